// One tournament: what it is, entering and leaving, its standings, its rounds' tables and its
// players. It looks again every few seconds while the page is in view (a round ends when its
// last game does).
import { api, text } from "./api.js";
import { link, tournamentAbout as about, when } from "./lists.js";

const $ = (id) => document.getElementById(id);
const id = decodeURIComponent(location.pathname.slice("/tournament/".length));
const EVERY = 5000; // ms between looks
const STATUS = {
  open: (t) => `Entry is open until ${when(t.starts)}, when round 1 begins.`,
  playing: (t) => `Round ${t.round} of ${t.rounds} is being played; the next begins when its last game ends.`,
  over: (t) => `Finished ${t.ended ? when(t.ended) : ""}.`,
  cancelled: () => "Cancelled: fewer than two players had entered at its start.",
};

function person(p, cls) {
  return p.url ? link(p.display || p.name, cls, p.url) : text("span", p.display || p.name, cls);
}

function renderStandings(t) {
  $("standings-card").hidden = t.standings.length === 0;
  $("standings").tBodies[0].replaceChildren(...t.standings.map((s) => {
    const tr = text("tr");
    const who = text("td");
    who.append(person(s, s.withdrawn ? "withdrawn" : null));
    if (s.withdrawn) who.append(text("span", ` (withdrawn: ${s.why})`, "meta"));
    tr.append(text("td", String(s.rank)), who, text("td", s.points), text("td", s.buchholz), text("td", String(s.wins)),
      text("td", s.byes ? `${s.played} + ${s.byes} bye` : String(s.played)));
    return tr;
  }));
}

function renderRounds(t) {
  $("rounds-card").hidden = t.rounds_played.length === 0;
  $("rounds").replaceChildren(...t.rounds_played.slice().reverse().flatMap((r) => {
    const list = text("ul", null, "round-tables");
    for (const table of r.tables) {
      const li = text("li");
      table.players.forEach((p, i) => {
        if (i) li.append(" – ");
        li.append(person(p, p.won ? "winner" : null));
        if (p.points !== null) li.append(text("span", ` ${p.points}${p.forfeited ? " (forfeit)" : ""}`, "meta"));
      });
      const state = table.status === "playing" ? "playing" : table.status === "waiting" ? "starting" : "finished";
      li.append(" · ", link(state === "finished" ? "replay" : `game (${state})`, "meta", table.url));
      list.append(li);
    }
    for (const bye of r.byes) {
      const li = text("li");
      li.append(person(bye), text("span", " has a bye (1 point)", "meta"));
      list.append(li);
    }
    return [text("h3", `Round ${r.round}`), list];
  }));
}

function renderEntrants(t) {
  $("entrants").replaceChildren(...(t.entrants.length ? t.entrants.map((e) => {
    const li = text("li");
    li.append(person(e, e.withdrawn ? "withdrawn" : null));
    li.append(text("span", `rating ${e.rating === null ? "none yet" : e.rating}${e.seed ? ` · seed ${e.seed}` : ""}${e.withdrawn ? ` · withdrawn: ${e.why}` : ""}`, "meta"));
    return li;
  }) : [text("li", "Nobody has entered yet.", "meta")]));
}

function renderActions(t) {
  const you = t.you;
  $("t-sign-in").hidden = you !== null || t.status !== "open";
  $("t-sign-in").href = `/sign-in?next=${encodeURIComponent(location.pathname)}`;
  $("t-join").hidden = !you || !you.can_enter;
  $("t-leave").hidden = !you || !you.can_leave;
  $("t-leave").textContent = t.status === "open" ? "Leave" : "Withdraw";
  $("t-start").hidden = !you || !you.can_start;
}

function render(t) {
  document.title = `${t.name} — Can't Stop`;
  $("t-title").textContent = t.name;
  $("t-about").textContent = `${about(t)} · created by ${t.creator.name}`;
  $("t-when").textContent = STATUS[t.status](t);
  renderActions(t);
  renderStandings(t);
  renderRounds(t);
  renderEntrants(t);
  document.body.dataset.status = t.status;
  document.body.dataset.round = String(t.round);
  document.body.dataset.ready = "true";
}

async function load() {
  try {
    render(await api(`/api/tournaments/${encodeURIComponent(id)}`));
    $("missing").textContent = "";
  } catch (error) {
    $("missing").textContent = error.message;
    document.body.dataset.ready = "true";
  }
}

function act(button, path, done) {
  $(button).addEventListener("click", async () => {
    $("t-note").textContent = "";
    try {
      render(await api(`/api/tournaments/${encodeURIComponent(id)}/${path}`, { method: "POST", body: {} }));
      $("t-note").textContent = done;
    } catch (error) {
      $("t-note").textContent = error.message;
    }
  });
}

act("t-join", "join", "You have entered.");
act("t-leave", "leave", "You are out of the tournament.");
act("t-start", "start", "Round 1 has begun.");
await load();
setInterval(() => {
  if (document.visibilityState === "visible") load();
}, EVERY);
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") load();
});
