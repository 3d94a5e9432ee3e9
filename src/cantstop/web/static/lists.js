// Lists shared by the pages: games (live or finished), leaderboard rows linking to profiles, tournaments.
import { text } from "./api.js";
import { markSvg } from "./board.js";
import { timeLeft } from "./presence.js";

// A profile page's address: a name may hold nearly any character, so it is encoded.
export function profileUrl(name) {
  return `/player/${encodeURIComponent(name)}`;
}

export function link(label, cls, href) {
  const a = text("a", label, cls);
  a.href = href;
  return a;
}

const turnsText = (n) => (n === 1 ? "1 turn" : `${n} turns`);

// One game: its players (the winner in bold), rules and progress; a finished one in turns,
// with its replay and record.
export function gameItem(g) {
  const li = text("li");
  const a = link(null, null, `/game/${g.id}`);
  g.players.forEach((p, i) => {
    const shown = (g.display && g.display[i]) || p || "open seat";
    const span = text("span", shown, `player${g.winner === i ? " winner" : ""}`);
    span.prepend(markSvg(i, 14));
    if (g.winner === i) span.append(text("span", " (won)", "sr-only"));
    a.append(span);
  });
  // An abandoned game counts the turn it was abandoned in, as its summary does (null: it never started).
  const abandoned = g.turns === null || g.turns === undefined ? "abandoned before it started" : g.turns === 0 ? "abandoned before the first roll" : `abandoned after ${turnsText(g.turns)}`;
  const progress = { waiting: "waiting for players", over: turnsText(g.turns), abandoned }[g.status] || "playing";
  // A seat's own list (your games, a profile's): the time left for the move it owes, on a move clock.
  const left = g.left === undefined ? "" : ` · ${timeLeft(g.left)} left`;
  li.append(a, text("span", `${g.title || g.variant}${g.rated ? " · rated" : ""} · ${progress}${left}`, "meta"));
  if ((g.status === "over" || g.status === "abandoned") && g.turns !== null) {
    li.append(link("replay", "meta", `/game/${g.id}#replay`), link("record", "meta", `/api/games/${g.id}/record`));
  }
  return li;
}

// A rating as people read it: "1523", or "1523?" while it is provisional (with words for a screen reader).
export function ratingCell(r) {
  const td = text("td", String(r.rating));
  if (r.provisional) {
    const mark = text("abbr", "?");
    mark.title = "provisional: too few rated games against trusted opponents yet";
    td.append(mark, text("span", " (provisional)", "sr-only"));
  }
  return td;
}

// One row of a leaderboard: place, the player (a link to the profile), rating, games, wins.
export function leaderRow(r, i) {
  const tr = text("tr");
  const who = text("td");
  who.append(link(r.display || r.name, null, r.url || profileUrl(r.name)));
  tr.append(text("td", String(i + 1)), who, ratingCell(r), text("td", String(r.games)), text("td", String(r.wins)));
  return tr;
}

// A table's head row: a column heading for each of `headings` (text, or a node).
export function tableHead(headings) {
  const row = text("tr");
  for (const h of headings) {
    const th = text("th", typeof h === "string" ? h : null);
    if (typeof h !== "string") th.append(h);
    th.scope = "col";
    row.append(th);
  }
  const head = text("thead");
  head.append(row);
  return head;
}

// Bars of 0 to 100: each row's `label`, its bar filled to `share` percent and its `value` in
// words; a row with `cls` is marked (the option played).
export function bars(rows) {
  const list = text("ul", null, "bars");
  for (const { label, share, value, cls } of rows) {
    const li = text("li", null, cls || "");
    li.append(text("span", label, "bar-label"));
    const bar = text("span", null, "bar");
    const fill = text("span", null, "bar-fill");
    fill.style.width = `${Math.max(0, Math.min(100, share))}%`;
    bar.append(fill);
    li.append(bar, text("span", value, "bar-value"));
    list.append(li);
  }
  return list;
}

export function noneYet(words = "Nobody yet: a player is listed once their rating is no longer provisional (ten rated games against five trusted opponents).") {
  const tr = text("tr");
  const td = text("td", words, "meta");
  td.colSpan = 5;
  tr.append(td);
  return tr;
}

// When something happens (a tournament's start), in the reader's own time zone.
export function when(iso) {
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

// One line about a tournament: its rules, players a game, clock, rounds and players.
export function tournamentAbout(t) {
  const rounds = t.rounds === 1 ? "1 round" : `${t.rounds} rounds`;
  return `${t.title} · ${t.seats} a game · ${t.clock_text} a move · ${rounds} · ${t.entered} of ${t.capacity} players${t.rated ? " · rated" : ""}`;
}
