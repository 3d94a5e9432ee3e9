// The friends page: the players this account follows (online first, with the games they play
// now, to watch; each to challenge), and those it blocks. A guest is asked to sign in.
import { api, text } from "./api.js";
import { gameItem, link } from "./lists.js";
import { challengeButton } from "./challenges.js";

const $ = (id) => document.getElementById(id);

function say(id, words, failed = false) {
  $(id).className = `said ${failed ? "error" : "meta"}`;
  $(id).textContent = words;
}

// How recently a player used the site: "online", or when they were last seen.
function seenText(friend) {
  if (friend.online) return "online";
  if (!friend.seen) return "not seen lately";
  const minutes = Math.round((Date.now() - Date.parse(`${friend.seen}Z`)) / 60000);
  if (minutes < 60) return `seen ${minutes} min ago`;
  if (minutes < 48 * 60) return `seen ${Math.round(minutes / 60)} h ago`;
  return `seen ${Math.round(minutes / 1440)} days ago`;
}

function button(words, cls, action) {
  const b = text("button", words, `button small ${cls}`);
  b.type = "button";
  b.addEventListener("click", action);
  return b;
}

function friendItem(friend) {
  const li = text("li", null, "friend");
  const head = text("p", null, "friend-head");
  const dot = text("span", friend.online ? "●" : "○", `presence ${friend.online ? "on" : "off"}`);
  dot.setAttribute("aria-hidden", "true");
  head.append(dot, link(friend.name, "friend-name", friend.url), text("span", ` ${seenText(friend)}`, "meta"));
  const actions = text("span", null, "friend-actions");
  actions.append(
    challengeButton(friend.name, friend.name, (words, failed) => say("follow-said", words, failed)),
    button("Unfollow", "secondary", async () => {
      await api(`/api/social/follows/${encodeURIComponent(friend.name)}`, { method: "DELETE" });
      say("follow-said", `You no longer follow ${friend.name}.`);
      show();
    }),
  );
  head.append(actions);
  li.append(head);
  if (friend.playing.length) {
    const games = text("ul", null, "games");
    games.setAttribute("aria-label", `${friend.name}'s games under way`);
    games.append(...friend.playing.map((g) => {
      const item = gameItem(g);
      item.append(link("watch", "meta", `/game/${g.id}`));
      return item;
    }));
    li.append(games);
  }
  return li;
}

function blockedItem(blocked) {
  const li = text("li");
  li.append(link(blocked.name, null, blocked.url), button("Unblock", "secondary", async () => {
    await api(`/api/social/blocks/${encodeURIComponent(blocked.name)}`, { method: "DELETE" });
    say("blocked-said", `You no longer block ${blocked.name}.`);
    show();
  }));
  return li;
}

async function show() {
  const found = await api("/api/social");
  $("following").replaceChildren(...(found.following.length ? found.following.map(friendItem)
    : [text("li", "You follow nobody yet.", "meta")]));
  $("blocked").replaceChildren(...(found.blocked.length ? found.blocked.map(blockedItem) : [text("li", "You block nobody.", "meta")]));
}

async function start() {
  const { account } = await api("/api/account");
  if (!account) {
    $("guest").hidden = false;
    document.body.dataset.ready = "true";
    return;
  }
  $("mine").hidden = false;
  $("follow").addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = $("follow-name").value.trim();
    try {
      await api("/api/social/follows", { method: "POST", body: { name } });
      say("follow-said", `You follow ${name} now.`);
      $("follow-name").value = "";
      await show();
    } catch (error) {
      say("follow-said", error.message, true);
    }
  });
  await show();
  setInterval(() => show().catch(() => {}), 15000);
  document.body.dataset.ready = "true";
}

start();
