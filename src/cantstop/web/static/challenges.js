// Challenges: the dialog that challenges a player to a game of two (rules, move clock, rated or
// friendly, your seat), the button that opens it (on a profile, a leaderboard row, the friends
// list), and the home page's box: the challenges made to you (accept, decline) and by you
// (withdraw; the game once accepted), each new one told by the browser as "your turn" is.
import { api, text } from "./api.js";
import { ask, formDialog } from "./dialog.js";
import { link, when } from "./lists.js";
import { canNotify } from "./turns.js";

const CLOCKS = [[0, "Off"], [30, "30 seconds a move"], [120, "2 minutes a move"], [43200, "12 hours a move"],
  [86400, "1 day a move"], [259200, "3 days a move"]];
const SEATS = [["random", "Drawn at random when accepted"], ["first", "Seat A"], ["second", "Seat B"]];

let dialog = null;

function option(value, label) {
  const o = text("option", label);
  o.value = String(value);
  return o;
}

function labelled(words, control) {
  const label = text("label", words);
  label.append(control);
  return label;
}

function build() {
  const rules = text("select");
  rules.id = "challenge-rules";
  rules.append(option("classic", "Classic"));
  const clock = text("select");
  clock.id = "challenge-clock";
  clock.append(...CLOCKS.map(([v, l]) => option(v, l)));
  const rated = text("input");
  Object.assign(rated, { type: "checkbox", id: "challenge-rated" });
  const ratedLabel = text("label", null, "check");
  ratedLabel.append(rated, " Rated game");
  const seats = text("fieldset");
  seats.append(text("legend", "Your seat"));
  for (const [value, label] of SEATS) {
    const radio = text("input");
    Object.assign(radio, { type: "radio", name: "challenge-seats", value, id: `challenge-seat-${value}`, checked: value === "random" });
    const choice = text("label", null, "check");
    choice.append(radio, ` ${label}`);
    seats.append(choice);
  }
  seats.append(text("p", "Who moves first is rolled off at the start, as in every game.", "meta"));
  dialog = formDialog("challenge", "Challenge", [labelled("Rules", rules), labelled("Move clock", clock), ratedLabel, seats],
    "Send the challenge", "roll");
  // The presets a game of two is played on (the server says which may be rated, if asked to).
  api("/api/variants").then((info) => {
    const two = info.variants.filter((v) => v.min_players <= 2 && v.max_players >= 2);
    if (two.length) rules.replaceChildren(...two.map((v) => option(v.name, v.title)));
  }).catch(() => { /* classic stays on offer; the server judges what is sent */ });
}

// Refusals that sending again cannot change: the dialog closes and the button says so.
const FINAL = new Set(["blocked", "cannot_play", "no_account", "bad_name"]);

// Ask for the challenge's settings, then send it to the account `name` (`display` as shown).
// Resolves to { words } once sent, { refused } (an error) for a refusal sending again cannot
// change, or null when cancelled; any other refusal is said in the dialog, which stays open.
export function challenge(name, display) {
  if (!dialog) build();
  document.getElementById("challenge-title").textContent = `Challenge ${display}`;
  return ask(dialog, async () => {
    const body = {
      to: name, rules: document.getElementById("challenge-rules").value, clock: Number(document.getElementById("challenge-clock").value),
      rated: document.getElementById("challenge-rated").checked, seats: dialog.querySelector("input[name=challenge-seats]:checked").value,
    };
    try {
      await api("/api/challenges", { method: "POST", body });
    } catch (error) {
      if (error.data && FINAL.has(error.data.error)) return { refused: error };
      throw error;
    }
    return { words: `Challenge sent to ${display}: it waits a day for an answer, which your home page shows.` };
  });
}

// A button that cannot challenge any more, saying so (and why, to a pointer's hover).
export function cannotChallenge(button, why) {
  button.disabled = true;
  button.textContent = "Cannot challenge";
  button.title = why;
}

// Make `button` challenge the account `name`; `say(words, failed)` tells what came of it.
export function wireChallenge(button, name, display, say) {
  button.addEventListener("click", async () => {
    const done = await challenge(name, display);
    if (!done) return;
    if (done.refused) {
      cannotChallenge(button, done.refused.message);
      say(done.refused.message, true);
    } else {
      say(done.words, false);
    }
  });
  return button;
}

// A small "Challenge…" button for a list's row, named for the player it challenges.
export function challengeButton(name, display, say) {
  const button = text("button", "Challenge…", "button small secondary challenge");
  button.type = "button";
  button.setAttribute("aria-label", `Challenge ${display}`);
  return wireChallenge(button, name, display, say);
}

// What a challenge is: its rules, clock, rated or friendly, and the seats as `me` sees them.
function about(c, mine) {
  const seat = c.seats === "random" ? "seats drawn when accepted"
    : `${mine ? "you play" : `${c.from.name} plays`} seat ${c.seats === "first" ? "A" : "B"}`;
  return `${c.title} · ${c.clock_text} · ${c.rated ? "rated" : "friendly"} · ${seat}`;
}

function small(words, cls, action) {
  const b = text("button", words, `button small ${cls}`);
  b.type = "button";
  b.addEventListener("click", action);
  return b;
}

function item(head, line, ...actions) {
  const li = text("li", null, "challenge-item");
  li.append(...head, text("span", line, "meta"));
  if (actions.length) {
    const row = text("span", null, "challenge-actions");
    row.append(...actions);
    li.append(row);
  }
  return li;
}

function notify(c) {
  const shown = new Notification("Can't Stop: a challenge", { body: `${c.from.name} challenges you: ${about(c, false)}`, tag: `challenge-${c.id}` });
  shown.addEventListener("click", () => window.focus());
}

// The home page's box (`card`, holding the list `list` and the line `said`): looked at every
// `every` ms, drawn again only when something changed (a focused button stays focused).
export function challengesBox(card, list, said, every = 5000) {
  let known = null; // the challenges received at the last look (none notified at the first)
  let drawn = "";
  const tell = (words, failed = false) => {
    said.className = `said ${failed ? "error" : "meta"}`;
    said.textContent = words;
  };
  const answer = (c, verb) => async () => {
    try {
      const done = await api(`/api/challenges/${encodeURIComponent(c.id)}/${verb}`, { method: "POST" });
      if (verb === "accept") {
        location.assign(done.url);
        return;
      }
      tell(verb === "decline" ? `You declined ${c.from.name}'s challenge.` : `You withdrew your challenge to ${c.to.name}.`);
    } catch (error) {
      tell(error.message, true);
    }
    look();
  };
  function received(c) {
    const from = link(c.from.name, "friend-name", c.from.url);
    const accept = small("Accept", "roll", answer(c, "accept"));
    accept.setAttribute("aria-label", `Accept ${c.from.name}'s challenge`);
    const decline = small("Decline", "secondary", answer(c, "decline"));
    decline.setAttribute("aria-label", `Decline ${c.from.name}'s challenge`);
    return item([from, " challenges you"], `${about(c, false)} · answer by ${when(c.expires)}`, accept, decline);
  }
  function sent(c) {
    const to = link(c.to.name, "friend-name", c.to.url);
    if (c.state === "accepted") return item([to, " accepted your challenge"], about(c, true), link("Play the game", "button small roll", c.url));
    if (c.state === "declined") return item([to, " declined your challenge"], about(c, true));
    if (c.state === "expired") return item(["Your challenge to ", to, " expired unanswered"], about(c, true));
    const withdraw = small("Withdraw", "secondary", answer(c, "withdraw"));
    withdraw.setAttribute("aria-label", `Withdraw your challenge to ${c.to.name}`);
    return item(["You challenged ", to], `${about(c, true)} · waiting for an answer until ${when(c.expires)}`, withdraw);
  }
  async function look() {
    let mine;
    try {
      mine = await api("/api/challenges");
    } catch {
      return; // offline, or signed out meanwhile: the box stays as it was until an answer comes
    }
    const seen = JSON.stringify([mine.received, mine.sent]);
    if (seen !== drawn) {
      drawn = seen;
      list.replaceChildren(...mine.received.map(received), ...mine.sent.map(sent));
      card.hidden = list.children.length === 0 && !said.textContent;
    }
    document.body.dataset.challenges = String(mine.received.length); // lets tests see what is there
    if (known !== null && canNotify() && Notification.permission === "granted" && document.visibilityState !== "visible") {
      for (const c of mine.received) if (!known.has(c.id)) notify(c);
    }
    known = new Set(mine.received.map((c) => c.id));
  }
  look();
  setInterval(look, every);
}
