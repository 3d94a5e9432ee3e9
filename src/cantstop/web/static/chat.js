// The chat panel of a game: players and spectators write; a player may mute spectators.
// Every message is shown as text (textContent), never as markup.
import { text } from "./api.js";
import { report } from "./report.js";

const MAX = 200; // characters as people see them, as the server counts (games/chat.py)
const CODE_POINTS = 1000; // what one message may hold underneath: letters with their accents
const COUNT_FROM = MAX - 50; // the counter shows once a message nears the limit

// Characters as a reader counts them: grapheme clusters, so an accent typed apart from its
// letter, a flag or an emoji with a skin tone is one, as the server counts. (A browser without
// Intl.Segmenter counts code points after NFC; the server's answer still has the last word.)
const segmenter = "Segmenter" in Intl ? new Intl.Segmenter(undefined, { granularity: "grapheme" }) : null;
export function characters(words) {
  const normal = words.normalize("NFC");
  return segmenter ? [...segmenter.segment(normal)].length : [...normal].length;
}

export function createChat(root, send) {
  const log = text("ol", null, "chat-log");
  log.setAttribute("aria-live", "polite");
  log.setAttribute("aria-label", "chat messages");
  // No maxLength: a browser would cut a longer pasted message silently. It is checked on
  // sending instead, where the note can say why and the words stay in the box to shorten.
  const input = document.createElement("input");
  input.autocomplete = "off";
  input.placeholder = "Say something…";
  input.setAttribute("aria-label", "chat message");
  const button = text("button", "Send", "button small secondary");
  button.type = "submit";
  // How long the message is, shown as it nears the limit (a screen reader hears the note on
  // sending instead of a number at every key).
  const counter = text("span", null, "chat-count");
  counter.setAttribute("aria-hidden", "true");
  const count = () => {
    const length = characters(input.value.trim());
    counter.textContent = length >= COUNT_FROM ? `${length}/${MAX}` : "";
    counter.classList.toggle("over", length > MAX);
  };
  input.addEventListener("input", count);
  const form = text("form", null, "chat-form");
  form.append(input, counter, button);
  const muteBox = document.createElement("input");
  muteBox.type = "checkbox";
  const muteRow = text("label", null, "chat-mute");
  muteRow.append(muteBox, " Mute spectators");
  muteRow.hidden = true;
  const note = text("p", null, "chat-note");
  note.setAttribute("role", "status");
  const box = text("details", null, "chat-box");
  box.open = true;
  box.append(text("summary", "Chat"), log, form, muteRow, note);
  root.replaceChildren(box);

  let who = { seat: null, token: null }; // whom this page speaks for
  let muted = false;
  let reporting = false; // a signed-in page may report a line to the moderators
  let sent = null; // the last message sent, given back to the box if the server refuses it

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const message = input.value.trim();
    if (!message) return;
    const length = characters(message);
    if (length > MAX) {
      note.textContent = `A chat message has at most ${MAX} characters; this one has ${length}. Shorten it and send again.`;
      return;
    }
    if ([...message.normalize("NFC")].length > CODE_POINTS) {
      note.textContent = "This message holds too many accents and marks to send: shorten it and send again.";
      return;
    }
    note.textContent = "";
    if (send({ type: "chat", text: message, ...(who.token ? { token: who.token } : {}) })) {
      sent = message;
      input.value = "";
      count();
    } else note.textContent = "Not connected: the message was not sent.";
  });
  muteBox.addEventListener("change", () => {
    send({ type: "mute", spectators: muteBox.checked, ...(who.token ? { token: who.token } : {}) });
  });

  function add(message) {
    const line = text("li", null, message.seat === null ? "chat-spectator" : "chat-player");
    if (message.seat !== null) line.dataset.seat = message.seat;
    if (message.id !== null && message.id !== undefined) line.dataset.id = message.id;
    line.append(text("b", `${message.name}: `), text("span", message.text));
    if (reporting) line.append(reportButton(message));
    log.append(line);
    while (log.children.length > 100) log.firstChild.remove();
    log.scrollTop = log.scrollHeight;
  }

  // A small button after a line: report it to the moderators (asks why first).
  function reportButton(message) {
    const button = text("button", "Report", "chat-report");
    button.type = "button";
    button.setAttribute("aria-label", `Report ${message.name}'s message to the moderators`);
    button.addEventListener("click", async () => {
      const done = await report({ message: message.id }, `${message.name}: “${message.text}”`);
      if (done) note.textContent = done;
    });
    return button;
  }

  function setMuted(on, by) {
    muted = on;
    muteBox.checked = on;
    // Only a player's mute is news; the mute a (re)connection reports leaves the note alone,
    // which may be telling the player why their message was not sent.
    if (by) note.textContent = `${by} ${on ? "muted" : "unmuted"} spectators.`;
    showMuted();
  }

  function showMuted() {
    const spectator = who.seat === null;
    input.disabled = button.disabled = spectator && muted;
    input.placeholder = spectator && muted ? "The players have muted spectators." : "Say something…";
  }

  return {
    // The server's hello: the recent messages and whether spectators are muted.
    reset(chat) {
      log.replaceChildren();
      (chat?.messages || []).forEach(add);
      setMuted(Boolean(chat?.spectators_muted), null);
    },
    // Signed in, each line offers to report it (the lines shown so far too).
    canReport(on) {
      if (on === reporting) return;
      reporting = on;
      log.querySelectorAll(".chat-report").forEach((b) => b.remove());
      if (on) {
        for (const line of log.querySelectorAll("li[data-id]")) {
          const name = line.querySelector("b").textContent.replace(/: $/, "");
          line.append(reportButton({ id: Number(line.dataset.id), name, text: line.querySelector("span").textContent }));
        }
      }
    },
    // Whom this page speaks for: its online seat, else a seat held at this screen (by token).
    speakAs(seat, token) {
      who = { seat, token };
      muteRow.hidden = seat === null;
      showMuted();
    },
    receive(message) {
      if (message.type === "chat") {
        if (message.text === sent) sent = null; // it went through
        add(message);
      } else if (message.type === "chat_all") { // a rated game's end: the spectators' lines too
        log.replaceChildren();
        message.messages.forEach(add);
      } else if (message.type === "chat_mute") {
        setMuted(message.spectators_muted, message.by);
      } else if (message.type === "error") {
        note.textContent = message.message;
        if (sent !== null && !input.value) input.value = sent; // refused: the words come back to be fixed
        count();
        sent = null;
      }
    },
  };
}
