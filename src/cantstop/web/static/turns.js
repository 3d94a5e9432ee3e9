// "Your turn" without outside services: the games waiting for this browser's move (its
// account's, and the guest seats it holds: cookies and the seats kept for people at its
// screen), counted in the tab's title and favicon, and told by the browser's notifications
// when the player allowed them and the tab is not in view.
import { OFFLINE, api, text } from "./api.js";
import { gameItem } from "./lists.js";

const SEATS_KEY = /^cantstop-seats-(.+)$/; // held.js keeps a game's screen seats under this key

// Every seat token this browser keeps for people at its screen, as [{game, token}].
function heldTokens() {
  const tokens = [];
  for (let i = 0; i < localStorage.length; i++) {
    const found = SEATS_KEY.exec(localStorage.key(i));
    if (!found) continue;
    let held = {};
    try { held = JSON.parse(localStorage.getItem(found[0])) || {}; } catch { /* unreadable: none */ }
    for (const token of Object.values(held)) if (typeof token === "string") tokens.push({ game: found[1], token });
  }
  return tokens.slice(0, 100);
}

// The site's icon with a red badge counting the games waiting (none: the plain icon).
function favicon(count) {
  const plain = '<rect x="2" y="2" width="28" height="28" rx="6" fill="#15803d"/><circle cx="10" cy="10" r="3" fill="#fff"/>'
    + '<circle cx="22" cy="22" r="3" fill="#fff"/><circle cx="16" cy="16" r="3" fill="#fff"/>';
  const badge = count ? `<circle cx="23" cy="9" r="9" fill="#dc2626"/><text x="23" y="13.5" font-size="13" font-family="sans-serif" font-weight="700" fill="#fff" text-anchor="middle">${count > 9 ? "9+" : count}</text>` : "";
  return `data:image/svg+xml,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">${plain}${badge}</svg>`)}`;
}

function showCount(count, title) {
  document.title = count ? `(${count}) ${title}` : title;
  const icon = document.querySelector("link[rel=icon]");
  icon.href = favicon(count);
  icon.type = "image/svg+xml";
  document.body.dataset.waiting = String(count); // lets tests and tools see what is counted
}

export const canNotify = () => "Notification" in window;

// A button that asks for the browser's permission to notify (shown until it is answered).
function notifyButton(root) {
  if (!canNotify()) return;
  const note = text("p", null, "meta");
  const button = text("button", "Tell me when it is my turn", "button small secondary");
  button.type = "button";
  const show = () => {
    const state = Notification.permission;
    button.hidden = state !== "default";
    note.textContent = state === "granted" ? "This browser tells you when a game waits for your move, or a player challenges you (while this page is open in a tab)."
      : state === "denied" ? "Notifications are blocked for this site in the browser's settings." : "";
  };
  button.addEventListener("click", async () => { await Notification.requestPermission(); show(); });
  show();
  root.append(button, note);
}

function notify(game) {
  const others = (game.display || []).filter((_, i) => i !== game.seat).filter(Boolean).join(", ");
  const shown = new Notification("Can't Stop: your turn", { body: `Against ${others || "the board"} (${game.title || game.variant})`, tag: game.id });
  shown.addEventListener("click", () => { window.focus(); location.assign(`/game/${game.id}`); });
}

// Start listing into `list` (a <ul>) every `every` ms; `card` is shown only when there is
// something to list. The tab's own title is `title`.
export function yourTurn(card, list, title, every = 5000) {
  let known = null; // the games waiting at the last look (none notified at the first look)
  const offline = text("p", null, "meta offline-note");
  offline.setAttribute("role", "status");
  card.append(offline);
  notifyButton(card);
  async function look() {
    let mine;
    try {
      mine = await api("/api/my-games", { method: "POST", body: { tokens: heldTokens() } });
    } catch {
      // Offline, or the server is restarting: whose turn it is cannot be known, so nothing says
      // "your turn" (the list, the title, the icon) until the next look gets an answer.
      list.querySelectorAll(".your-turn").forEach((tag) => tag.remove());
      showCount(0, title);
      offline.textContent = list.children.length ? `${OFFLINE} Whose turn it is shows again once it answers.` : "";
      return;
    }
    offline.textContent = "";
    card.hidden = mine.games.length === 0;
    list.replaceChildren(...mine.games.map((g) => {
      const li = gameItem(g);
      if (g.your_turn) li.prepend(text("span", "Your turn", "tag your-turn"));
      return li;
    }));
    showCount(mine.waiting, title);
    const waiting = mine.games.filter((g) => g.your_turn);
    if (known !== null && canNotify() && Notification.permission === "granted" && document.visibilityState !== "visible") {
      for (const g of waiting) if (!known.has(g.id)) notify(g);
    }
    known = new Set(waiting.map((g) => g.id));
  }
  look();
  setInterval(look, every);
}
