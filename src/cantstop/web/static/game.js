// The game page: live board, controls, odds, roll map, tutor, log, and the replay and analysis
// of finished games.
import { OFFLINE, api, choiceLabel, nameChoice, text } from "./api.js";
import { createAnalysis } from "./analysis.js";
import { SEATS, dieSvg, drawBoard, drawDice, isWild, markSvg, runnerIcon, wayText } from "./board.js";
import { dropSeat, heldSeats, holdSeats } from "./held.js";
import { createChat } from "./chat.js";
import { announce, createClock, markPresence } from "./presence.js";
import { bars, link, profileUrl } from "./lists.js";
import { createResign } from "./resign.js";
import { loadRollMap } from "./rollmap.js";
import { showSummary } from "./summary.js";
import { createTutor } from "./tutor.js";
import { tourOnFirstVisit } from "./tour.js";
import { createSeatLink, takeSeatFromLink } from "./seatlink.js";

const gameId = location.pathname.split("/").pop();
const $ = (id) => document.getElementById(id);
const ui = {
  board: $("board"), dice: $("dice"), controls: $("controls"), status: $("status"), seats: $("seats"),
  log: $("log"), banner: $("banner"), odds: $("odds"), oddsToggle: $("odds-toggle"), join: $("join"),
  error: $("error"), replay: $("replay"), live: $("live-dot"), way: $("dice-way"), announce: $("announce"), runners: $("runners"),
  rollmap: $("rollmap"), mapToggle: $("rollmap-toggle"), analysis: $("analysis"), analysisToggle: $("replay-analysis"),
};
const calm = matchMedia("(prefers-reduced-motion: reduce)"); // no tumbling dice, no shaking board
let game = null; // the latest snapshot from the server
let you = null; // the seat this browser joined online (its cookie says so), or null
let held = heldSeats(gameId); // seat → token of the people at this screen (see held.js)
let preview = null; // the number of the choice being hovered or focused
let rolledAt = -1e9; // when the latest roll arrived: its dice tumble briefly
let played = null; // how the dice made the choice just played (shown while its player decides)
let busy = false;
let joining = false; // a join of this page is on its way
let replay = null; // { frames, index, analysis } while replaying (with the analysis beside it, `analysis`)
let presence = null; // { connected: [seats], thinking: seat } from the server
let skew = 0; // the server's clock minus this browser's (for the move clock)
let me = null; // the signed-in account (its seats are found on any device), or null
let meKnown = false; // whether the server has said who is signed in (until then, neither rated join is shown)
let summarised = -1; // the version whose end-of-game summary is shown
// Whether the live connection is open. While it is not, nothing on the page may pass for the
// game as it stands: no "your turn", no controls, no seat shown as connected.
let online = false;
let offlineWhy = "Connecting to the server…";
const clock = createClock(ui.status);
const finished = () => game.status === "over" || game.status === "abandoned";
const seatLink = createSeatLink($("move-seat"), gameId);
// Fair play: while a rated or tournament game is on, nobody is offered odds or advice.
const fairPlay = () => game && game.fair_play && !finished();
// The tutor: a friendly game under way in which this screen plays.
const tutorOffered = () => game && !game.fair_play && game.status === "playing" && !replay && game.seats.some((s) => holds(s.seat));
// A seat taken at this screen acts (and asks the tutor) with its own token; one joined online, with its cookie.
const seatHeaders = (seat) => (held[seat] ? { authorization: `Bearer ${held[seat]}` } : {});
const analysis = createAnalysis(gameId, {
  section: ui.analysis, names: () => game.seats.map((s) => name(s.seat)), jump: (ply) => showFrame(analysis.version(ply)),
});
const tutor = createTutor(gameId, {
  select: $("tutor"), dialog: $("tutor-dialog"), said: $("tutor-said"), note: (words) => { $("tutor-note").textContent = words; },
});

// -------------------------------------------------------------- rendering
// A tournament's game links back to its tournament, naming the round.
function renderTournament() {
  const link = $("tournament-link");
  const t = game.tournament;
  link.hidden = !t;
  if (!t) return;
  const a = link.querySelector("a");
  a.href = t.url;
  a.textContent = `${t.name}, round ${t.round}`;
}

function render() {
  if (!game) return;
  document.body.dataset.version = game.version; // lets tests and tools see what is shown
  document.body.dataset.status = game.status;
  document.body.dataset.busy = String(busy); // an action of this page is on its way
  // A tab in the background tells its player the move is theirs (a turn-based game waits in one for days).
  const yours = online && game.status === "playing" && game.state && game.state.winner === null && holds(game.state.player);
  document.title = `${yours ? "Your turn — " : ""}Can't Stop — ${game.seats.map((s) => s.display || s.name || "open").join(" vs ")}`;
  const state = replay ? replay.frames[replay.index].state : game.state;
  renderSeats(state);
  markPresence(ui.seats, game, online ? presence : null); // who is connected is unknown while this page is not
  $("fair").hidden = !fairPlay();
  $("fair-what").textContent = game.rated ? "A rated game" : "A tournament's game";
  renderTournament();
  ui.oddsToggle.hidden = ui.mapToggle.hidden = fairPlay();
  if (fairPlay()) ui.odds.hidden = ui.rollmap.hidden = true;
  tutor.show(tutorOffered());
  ui.analysisToggle.hidden = !replay || game.status !== "over";
  ui.analysisToggle.setAttribute("aria-pressed", String(!!(replay && replay.analysis)));
  ui.analysis.hidden = !(replay && replay.analysis);
  // A guest's seat (held by this browser's cookie) can move to another device; an account's needs no link.
  seatLink.show(you !== null && !replay && !finished() && !game.seats[you].signed_in);
  clock.show(game, game.state ? name(game.state.player) : "", skew, !!replay);
  renderJoin();
  resign.show(game, game.seats.filter((s) => holds(s.seat)).map((s) => ({ seat: s.seat, name: name(s.seat) })));
  renderSummary();
  if (!state) {
    const open = game.seats.filter((s) => s.kind === "open").map((s) => s.letter);
    const seats = `seat${open.length > 1 ? "s" : ""} ${open.join(", ")}`;
    ui.status.textContent = !addingHere() ? `Waiting for players to take ${seats}…`
      : game.rated ? `Waiting for ${seats}: share the link.` // a rated game has one person per screen
        : `Waiting for ${seats}: share the link, or add a person at this screen.`;
    ui.controls.replaceChildren();
    drawBoard(ui.board, emptyState());
    fitBoard();
    return;
  }
  drawTable(state);
  fitBoard();
  if (replay) return renderReplay();
  renderStatus(state);
  renderControls(state);
  if (odds.on && !fairPlay()) loadOdds();
  if (rollMap.on && !fairPlay()) loadLiveMap();
  // The tutor's values of a decision of this screen are asked for as it comes, not as it is taken.
  if (tutorOffered() && online && holds(state.player) && (state.phase === "choose" || state.phase === "decide")) {
    tutor.prepare(game.version, seatHeaders(state.player));
  }
}

// The board, the dice and, for a choice hovered or focused, its dice pairs and ghost runners.
function drawTable(state) {
  const shown = replay || preview === null || !state.legal || !state.legal[preview] ? null : preview;
  drawBoard(ui.board, state, shown === null ? null : state.legal[shown], null);
  const way = shown !== null && state.ways ? state.ways[shown] : replay ? replayWay() : state.phase === "decide" ? played : null;
  drawDice(ui.dice, state.dice || lastDice(), state, way, !calm.matches && performance.now() - rolledAt < 500);
  ui.way.textContent = way ? wayText(way, state) : "";
}

// The board's shape (the Turtles' board is wider than tall) sizes its column of the layout.
function fitBoard() {
  const [, , w, h] = ui.board.getAttribute("viewBox").split(" ").map(Number);
  ui.board.closest(".table").style.setProperty("--aspect", (w / h).toFixed(3));
}

// Keep how the dice made a choice just played (by anyone), from the choosing position's ways.
function notePlayed(before, columns) {
  if (!before || before.phase !== "choose" || !before.ways) return;
  const i = before.legal.findIndex((c) => Array.isArray(c) && c.join() === columns.join());
  if (i >= 0) played = before.ways[i];
}

function emptyState() {
  return { heights: [3, 5, 7, 9, 11, 13, 11, 9, 7, 5, 3], columns: [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], claimed: {}, pieces: [], runners: {}, player: 0 };
}

// The dice of the latest roll shown: in the replay, the latest up to the frame on show.
function lastDice() {
  const entries = replay ? replay.frames.slice(0, replay.index + 1).flatMap((f) => f.log) : logEntries;
  for (let i = entries.length - 1; i >= 0; i--) if (entries[i].dice) return entries[i].dice;
  return null;
}

// What people read for a seat: a person's name, a bot's display name ("Rule-of-28 bot").
function name(seat) {
  const s = game.seats[seat];
  return s.display || s.name || `Seat ${SEATS[seat].letter}`;
}

// Whether this browser plays `seat`; with more than one such seat, people take turns here.
const holds = (seat) => seat !== null && (seat === you || seat in held);
const hotSeat = () => game.seats.filter((s) => holds(s.seat)).length > 1;

function renderSeats(state) {
  ui.seats.replaceChildren();
  game.seats.forEach((s) => {
    const li = text("li", null, "seat");
    if (state && !state.winner && state.winner !== 0 && state.player === s.seat && game.status === "playing") li.classList.add("to-move");
    if (state && state.winner === s.seat) li.classList.add("winner");
    const gone = state && (state.out || []).includes(s.seat);
    if (gone) li.classList.add("left");
    const who = s.kind === "open" ? text("span", "open seat", "seat-name") : text("a", name(s.seat), "seat-name");
    if (s.kind !== "open") Object.assign(who, { href: profileUrl(s.name), target: "_blank", rel: "noopener", title: `${name(s.seat)}: profile and rating (new tab)` });
    li.append(markSvg(s.seat, 22), who);
    if (holds(s.seat)) li.append(text("span", hotSeat() ? "here" : "you", "tag"));
    if (gone) li.append(text("span", "left the game", "tag"));
    if (state) {
      const won = Object.values(state.claimed).filter((o) => o === s.seat).length;
      li.append(text("span", `${won}/${state.to_win}`, "won"));
    }
    ui.seats.append(li);
  });
}

// Before the game starts, open seats can be taken here: the first by whoever uses this
// browser (a cookie, as for anyone with the link); once this screen holds a seat, each more
// is for another person at this screen, whose token the page keeps (see held.js).
function renderJoin() {
  // A seat this page has just taken may still read "open" until the live update comes: never offer it.
  const open = game.seats.filter((s) => s.kind === "open" && !holds(s.seat));
  const waiting = game.status === "waiting" && open.length > 0 && !replay;
  // A rated game seats signed-in people, one each, on their own device: a form it could only
  // refuse is not offered (to a guest, nor to a screen that holds a seat); a note says why.
  const ratedNote = !waiting || !game.rated || !meKnown ? null : me === null ? "guest" : addingHere() ? "seated" : null;
  renderRatedJoin(ratedNote);
  ui.join.hidden = !waiting || (game.rated && (!meKnown || ratedNote !== null));
  if (ui.join.hidden) return;
  const here = addingHere();
  ui.join.dataset.mode = here ? "screen" : "online";
  $("join-title").textContent = here ? "Add a person at this screen" : "Take a seat";
  $("join-name-label").textContent = here ? "Their name" : "Your name";
  $("join-submit").textContent = here ? "Add this person" : "Take the seat";
  $("join-submit").className = `button ${here ? "secondary" : "roll"}`;
  $("join-submit").disabled = joining;
  // Signed in, a seat taken online is the account's, under its name: nothing to type.
  const mine = me !== null && !here;
  $("join-name").closest("label").hidden = mine;
  $("join-name").required = !mine;
  if (mine) $("join-submit").textContent = `Take the seat as ${me.name}`;
  const select = $("join-seat");
  const chosen = select.value; // a live update must not undo the seat being picked
  select.replaceChildren(...open.map((s) => { const o = text("option", `Seat ${s.letter}`); o.value = s.seat; return o; }));
  if (open.some((s) => String(s.seat) === chosen)) select.value = chosen;
  if (!here) $("join-name").value ||= localStorage.getItem("cantstop-name") || "";
}

const addingHere = () => game.seats.some((s) => holds(s.seat));

// Why this screen cannot take a seat of a rated game, and what to do: `why` is "guest" (sign
// in first, and come back here), "seated" (the others join on their own devices) or null.
function renderRatedJoin(why) {
  const note = $("join-rated");
  note.hidden = why === null;
  if (why === null || note.dataset.why === why) return; // rebuilt only when it changes: a focused link stays
  note.dataset.why = why;
  if (why === "seated") {
    note.replaceChildren("A rated game: each player signs in and takes a seat on their own device. Send them the link to this page.");
    return;
  }
  const back = `?next=${encodeURIComponent(location.pathname)}`;
  note.replaceChildren("A rated game seats signed-in players only: ", link("sign in", null, `/sign-in${back}`), " or ",
    link("make an account", null, `/sign-up${back}`), " to take a seat here. Guests play friendly games.");
}

function renderStatus(state) {
  const who = name(state.player);
  let line;
  if (!online && !finished()) line = offlineWhy;
  else if (game.status === "abandoned") line = game.ended || "The game has ended.";
  else if (game.status === "over" || state.winner !== null) {
    // Solitaire's score is its number of turns: fewer is better.
    const turns = `${state.turn} turn${state.turn === 1 ? "" : "s"}`;
    line = game.seats.length === 1 ? `Finished in ${turns}.` : `${name(state.winner)} won in ${turns}.`;
  }
  else if (holds(state.player) && hotSeat()) {
    line = { roll: `${who} to roll — pass the device to ${who}.`, choose: `${who}: choose how to move.`, decide: `${who}: roll again or stop?` }[state.phase];
  }
  else if (holds(state.player)) line = { roll: "Your turn: roll the dice.", choose: "Choose how to move.", decide: "Roll again or stop?" }[state.phase];
  else line = `${who} is ${{ roll: "about to roll", choose: "choosing", decide: "deciding" }[state.phase]}…`;
  ui.status.textContent = line;
  ui.status.style.setProperty("--seat", SEATS[state.winner ?? state.player].colour);
  // The runners the player to move has left this turn (three at most take part in a turn).
  const playing = game.status === "playing" && state.winner === null;
  ui.runners.hidden = !playing;
  if (playing) {
    const icons = Array.from({ length: state.runners_max }, (_, i) => runnerIcon(i < state.runners_left));
    ui.runners.replaceChildren(text("span", `Runners left: ${state.runners_left} of ${state.runners_max}`, "runners-label"), ...icons);
  }
  // A turn starting for another person here: the line stands out so the device gets passed.
  ui.status.classList.toggle("pass", online && game.status === "playing" && state.phase === "roll" && holds(state.player) && hotSeat());
  ui.status.classList.toggle("offline", !online && !finished());
}

// A control's identity across renders: the same choice, roll or stop in the next drawing.
const controlKey = (el) => el.dataset.choice ?? ["roll", "stop"].find((c) => el.classList.contains(c)) ?? null;

function renderControls(state) {
  // Any render rebuilds the buttons (a chat line, a presence change, the same move heard twice):
  // a keyboard player's focus stays on the control it was on, where that control is still offered.
  const held = ui.controls.contains(document.activeElement) ? controlKey(document.activeElement) : null;
  ui.controls.replaceChildren();
  const refocus = () => {
    const same = held && [...ui.controls.querySelectorAll("button:enabled")].find((b) => controlKey(b) === held);
    if (same) same.focus({ preventScroll: true });
  };
  if (finished() || state.winner !== null) {
    ui.controls.append(nextGame()); // the replay and the record are in the summary below
    return;
  }
  const mine = online && holds(state.player); // offline, a move could not be sent, nor the game known to wait for it
  if (state.phase === "choose") {
    state.legal.forEach((choice, i) => {
      const b = button(`${i + 1}`, "choice", () => act(choice));
      const how = state.ways && state.ways[i] ? pairsLabel(state.ways[i]) : "";
      const explained = `move ${choice.join(" and ")}${how && state.ways ? `, from ${wayText(state.ways[i], state)}` : ""}`;
      nameChoice(b, [text("kbd", String(i + 1)), text("span", choiceLabel(choice), "choice-columns"), text("span", how, "choice-dice")], explained);
      b.dataset.choice = JSON.stringify(choice);
      b.disabled = !mine || busy;
      // Hovering or focusing a choice shows its dice pairs and ghosts its runners on the board.
      for (const [on, value] of [["mouseenter", i], ["focus", i], ["mouseleave", null], ["blur", null]]) {
        b.addEventListener(on, () => { preview = value; drawTable(state); });
      }
      ui.controls.append(b);
    });
    refocus();
    // The keyboard player lands on the first choice of a new roll (a click's button is gone by now).
    const first = ui.controls.querySelector(".choice:enabled");
    if (first && document.activeElement === document.body) first.focus({ preventScroll: true });
    return;
  }
  const roll = button(state.phase === "decide" ? "Roll again" : "Roll", "roll", () => act("roll"));
  roll.prepend(text("kbd", "R"));
  roll.disabled = !mine || busy;
  ui.controls.append(roll);
  if (state.phase === "decide") {
    const stop = button("Stop", "stop", () => act("stop"));
    stop.prepend(text("kbd", "S"));
    stop.disabled = !mine || busy || !state.legal.includes("stop");
    ui.controls.append(stop);
  }
  refocus();
  if (mine && !busy && document.activeElement === document.body) roll.focus({ preventScroll: true });
}

// The end of the game in short, once it is over; fetched again if the game changed (a rematch).
async function renderSummary() {
  const box = $("summary");
  if (!finished() || replay) {
    box.hidden = true;
    return;
  }
  // Shown once filled: a render that comes while the summary is fetched must not show an
  // empty box whose label (summary-title) is not there yet.
  if (summarised === game.version) { box.hidden = !box.querySelector("#summary-title"); return; }
  summarised = game.version;
  if (!(await showSummary(box, gameId, startReplay, startAnalysis))) summarised = -1;
}

// After the game: its rematch if one was created, "Play again" for its players, else a new game.
function nextGame() {
  if (game.rematch) return link("Rematch created: join", "button again", `/game/${game.rematch}`);
  if (!game.seats.some((s) => holds(s.seat))) return link("New game", "button again", "/");
  const again = button("Play again", "again", playAgain);
  again.disabled = busy;
  return again;
}

// A choice's dice in short, under its columns: "6+2 · 2+1" (a sum not played is left out).
function pairsLabel(way) {
  return way.pairs.filter((_, k) => way.used[k]).map(([a, b]) => `${way.values[a]}+${way.values[b]}`).join(" · ");
}


function button(label, cls, onClick) {
  const b = text("button", label, `button ${cls}`);
  b.type = "button";
  b.addEventListener("click", onClick);
  return b;
}

// ------------------------------------------------------------------- log
let logEntries = [];
function showLog(entries) {
  ui.log.replaceChildren();
  addLog(entries, false, false);
}

function addLog(entries, animate, keep = true) {
  for (const entry of entries) {
    if (keep) logEntries.push(entry);
    if (replay && keep) continue; // the replay shows its own log until it is closed
    const li = logItem(entry);
    ui.log.prepend(li);
    if (animate) celebrate(entry);
  }
  while (ui.log.children.length > 300) ui.log.lastChild.remove();
}

// A log line; a roll's dice as small dice (their text, '6-2-2-1', for screen readers and copying).
function logItem(entry) {
  const li = text("li", null, `log-${entry.kind}`);
  if (entry.seat !== undefined && entry.seat !== null) li.append(markSvg(entry.seat, 14));
  const dice = entry.kind === "roll" && entry.dice;
  const words = dice ? entry.text.slice(0, entry.text.lastIndexOf(" ")) : entry.text;
  li.append(text("span", words, "log-text"));
  if (dice) {
    const row = text("span", null, "log-dice");
    const state = (game && game.state) || {};
    dice.forEach((d, i) => row.append(dieSvg(d, isWild(state, i, d), 16)));
    row.setAttribute("aria-hidden", "true");
    li.append(row, text("span", entry.text.slice(entry.text.lastIndexOf(" ")), "sr-only"));
  }
  return li;
}

// What a screen reader is told of new log entries: rolls with their dice, busts, claims, wins.
function spoken(entries) {
  const words = entries.map((e) => (e.kind === "roll" ? `${e.text.slice(0, e.text.lastIndexOf(" "))} ${e.dice.join(", ")}.` : `${e.text.replace(/\.$/, "")}.`)); // the table's sentences may end in a full stop already
  const state = game && game.state;
  if (state && state.phase === "choose" && holds(state.player) && entries.some((e) => e.kind === "roll")) {
    words.push(`Choices: ${state.legal.map((c, i) => `${i + 1}, ${c.join(" and ")}`).join("; ")}.`);
  }
  return words;
}

// Said aloud through the live region: new entries, then the status line when it changed and
// concerns this screen (its turn, or the end of the game); others' turns show on screen only.
let saidStatus = "";
function say(words) {
  const line = ui.status.textContent;
  if (line !== saidStatus && game && game.state && (holds(game.state.player) || game.status === "over")) words.push(line);
  saidStatus = line;
  if (words.length) ui.announce.textContent = words.join(" ");
}

function celebrate(entry) {
  const banner = { bust: "Bust!", claim: entry.text, win: entry.text }[entry.kind];
  if (!banner) return;
  ui.banner.textContent = banner;
  ui.banner.className = `banner show ${entry.kind}`;
  if (entry.kind === "bust" && !calm.matches) ui.board.classList.add("shake");
  if (entry.kind === "claim" && game.state) drawBoard(ui.board, game.state, null, entry.columns);
  clearTimeout(celebrate.timer);
  celebrate.timer = setTimeout(() => {
    ui.banner.className = "banner";
    ui.board.classList.remove("shake");
  }, entry.kind === "win" ? 4000 : 1400);
}

// ------------------------------------------------------------------ acting
async function act(action) {
  if (busy || !game || !game.state) return;
  busy = true;
  preview = null;
  ui.error.textContent = "";
  render();
  const seat = game.state.player;
  const headers = seatHeaders(seat);
  const before = game.state;
  const version = game.version; // what the move was made on, whatever comes while the tutor speaks
  // The tutor may hold the move back: then nothing is sent.
  if (tutorOffered() && before.phase !== "roll" && !(await tutor.allows(action, version, headers))) {
    busy = false;
    render();
    return;
  }
  try {
    const snapshot = await api(`/api/games/${gameId}/actions`, { method: "POST", headers, body: { version, action } });
    if (Array.isArray(action)) notePlayed(before, action);
    if (snapshot.version > game.version) { game = { ...snapshot }; }
  } catch (error) {
    const code = error.data && error.data.error;
    ui.error.textContent = REFUSED_MOVE[code] || error.message;
    if (code === "bad_token") forget(seat);
    if (code in REFUSED_MOVE) catchUp();
  } finally {
    busy = false;
    render();
  }
}

// A move refused because this page was behind the game (another move came first, or the turn
// or the game ended meanwhile), in a player's words rather than the server's.
const REFUSED_MOVE = {
  stale: "The game had moved on before your move arrived, so it was not played. Here is the game as it stands.",
  not_your_turn: "It was no longer your turn when your move arrived, so it was not played.",
  game_over: "The game had ended before your move arrived.",
  illegal: "That move was not possible in the position when it arrived, so it was not played. Here is the game as it stands.",
  offline: OFFLINE,
};

// The game as the server has it, after a refusal showed this page was behind.
async function catchUp() {
  try {
    const snapshot = await api(`/api/games/${gameId}`);
    if (snapshot.version > game.version) { game = { ...snapshot }; render(); }
  } catch { /* offline: the live connection catches up when it is back */ }
}

// The same seats again: this screen's seats (held tokens, or the cookie of a seat joined
// online) are taken under the same names; the server opens the others and keeps the bots.
async function playAgain() {
  if (busy) return;
  busy = true;
  ui.error.textContent = "";
  render();
  try {
    const created = await api(`/api/games/${gameId}/rematch`, { method: "POST", body: { tokens: Object.values(held) } });
    holdSeats(created.id, created.taken || []);
    location.href = created.url; // busy stays set: nothing more to do here
  } catch (error) {
    ui.error.textContent = error.message;
    if (error.data && error.data.game) game = { ...game, rematch: error.data.game }; // another player was first
    busy = false;
    render();
  }
}

document.addEventListener("keydown", (event) => {
  if (event.target.closest && event.target.closest("input, select, textarea")) return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (replay) {
    if (event.key === "ArrowRight") stepReplay(1);
    else if (event.key === "ArrowLeft") stepReplay(-1);
    else if (event.key === "Escape") stopReplay();
    return;
  }
  if (event.key === "o") return odds.toggle();
  if (event.key === "m") return rollMap.toggle();
  if (!online || !game || !game.state || game.status !== "playing" || !holds(game.state.player)) return;
  const state = game.state;
  if (event.key === "r" && state.phase !== "choose") act("roll");
  else if (event.key === "s" && state.phase === "decide") act("stop");
  else if (/^[1-9]$/.test(event.key) && state.phase === "choose") {
    const choice = state.legal[Number(event.key) - 1];
    if (choice) act(choice);
  }
});

// ------------------------------------------------------- odds, roll map
// A panel shown on demand beside the game (the odds, the roll map), on or off as this browser
// last left it; `shownFor` is the version it shows, so each position is asked for once.
function panel(key, button, box, load) {
  const shown = {
    on: localStorage.getItem(key) === "1",
    shownFor: -1,
    toggle() {
      if (fairPlay()) return;
      shown.on = !shown.on;
      localStorage.setItem(key, shown.on ? "1" : "0");
      shown.shownFor = -1;
      shown.sync();
      if (shown.on) load();
    },
    sync() {
      box.hidden = !shown.on;
      button.setAttribute("aria-pressed", String(shown.on));
    },
  };
  button.addEventListener("click", shown.toggle);
  return shown;
}
const odds = panel("cantstop-odds", ui.oddsToggle, ui.odds, () => loadOdds());
const rollMap = panel("cantstop-rollmap", ui.mapToggle, ui.rollmap, () => loadLiveMap());

async function loadOdds() {
  odds.sync();
  if (!game || !game.state || odds.shownFor === game.version) return;
  if (game.status !== "playing") { // the last position's odds would mislead once the game is over
    odds.shownFor = game.version;
    ui.odds.replaceChildren(text("p", "Odds are shown while a game is played.", "odds-head"));
    return;
  }
  odds.shownFor = game.version;
  const version = game.version;
  let found;
  try { found = await api(`/api/games/${gameId}/odds`); } catch { return; }
  if (version !== game.version) return;
  ui.odds.replaceChildren();
  if (found.bust !== undefined) ui.odds.append(text("p", `Next roll busts: ${found.bust.toFixed(1)}%`, "odds-bust"));
  const rows = found.choices
    ? found.choices.map((c) => ({ label: choiceLabel(c.choice), share: 100 - c.bust_after, value: `${(100 - c.bust_after).toFixed(0)}% safe` }))
    : Object.entries(found.columns).map(([c, p]) => ({ label: c, share: p, value: `${p.toFixed(0)}%` }));
  ui.odds.append(text("p", found.choices ? "Each choice: chance the next roll still fits" : "Chance the next roll can move each column", "odds-head"), bars(rows));
  if (found.advice) ui.odds.append(text("p", `${found.advice.bot} would ${found.advice.reason}`, "advice"));
}

// What the next roll can bring in the position on the table (the server's roll map).
async function loadLiveMap() {
  rollMap.sync();
  if (!game || !game.state || rollMap.shownFor === game.version) return;
  rollMap.shownFor = game.version;
  const says = (words) => ui.rollmap.replaceChildren(text("p", words, "meta"));
  if (game.status !== "playing") return says("The roll map is for a game under way: a finished game's analysis has one at every point.");
  if (game.state.phase === "choose") return says("The roll map shows what the next roll can bring: it is drawn before each roll.");
  const version = game.version;
  if (!ui.rollmap.querySelector(".rollmap-table")) says("Reading the roll map…");
  const box = text("div");
  await loadRollMap(box, gameId);
  if (version === game.version) ui.rollmap.replaceChildren(...box.childNodes);
}

// ----------------------------------------------------------------- replay
async function startReplay() {
  const data = await api(`/api/games/${gameId}/replay`);
  replay = { frames: data.frames, index: 0, analysis: false };
  ui.replay.hidden = false;
  $("replay-range").max = data.frames.length - 1;
  $("replay-turn").max = data.frames[data.frames.length - 1].turn;
  render();
}
function stopReplay() { replay = null; analysedLog = null; ui.replay.hidden = true; showLog(logEntries); render(); }

// The analysis beside the replay: the graph, the summary, each move's grade in the log.
async function startAnalysis() {
  if (!replay) await startReplay().catch((error) => { ui.error.textContent = error.message; });
  if (!replay) return;
  replay.analysis = true;
  render();
  if (!analysis.ready && !(await analysis.load())) return;
  analysedLog = null;
  if (replay) render();
}
function stopAnalysis() { replay.analysis = false; analysedLog = null; showLog(replay.frames.slice(0, replay.index + 1).flatMap((f) => f.log)); render(); }
ui.analysisToggle.addEventListener("click", () => (replay && replay.analysis ? stopAnalysis() : startAnalysis()));

// Show the frame of game version `version` (a point of the graph, a line of the log).
function showFrame(version) {
  if (!replay) return;
  const i = replay.frames.findIndex((f) => f.version === version);
  replay.index = i < 0 ? replay.frames.length - 1 : i;
  render();
}
function stepReplay(delta) { if (replay) { replay.index = Math.max(0, Math.min(replay.frames.length - 1, replay.index + delta)); render(); } }
function renderReplay() {
  const frame = replay.frames[replay.index];
  $("replay-range").value = replay.index;
  $("replay-pos").textContent = `move ${replay.index} of ${replay.frames.length - 1} · turn ${frame.turn}`;
  ui.status.textContent = frame.log.map((e) => e.text).join(" · ") || "Start of the game";
  ui.controls.replaceChildren();
  if (replay.analysis && analysis.ready) {
    showAnalysedLog();
    analysis.show(frame.version, frame.state);
    return;
  }
  // The log as it stood at this position: what is still to come is not given away.
  showLog(replay.frames.slice(0, replay.index + 1).flatMap((f) => f.log));
}

// In the analysis the whole game is open: every line of the log, each move's grade and each
// roll's luck beside it, and each line a button to the position it led to.
let analysedLog = null; // the lines, built once per analysis shown
const DECIDED = new Set(["choice", "stop", "roll", "resign"]);
function showAnalysedLog() {
  if (!analysedLog) {
    analysedLog = [];
    ui.log.replaceChildren();
    replay.frames.forEach((frame, f) => {
      const note = analysis.noteOf(frame.version);
      let graded = false;
      for (const entry of frame.log) {
        const li = logItem(entry);
        if (note && DECIDED.has(entry.kind) && !graded) {
          graded = true;
          if (note.grade) {
            const badge = text("span", note.mark || "✓", `grade ${note.grade}`);
            badge.title = note.decision;
            li.append(badge, text("span", ` (${note.grade})`, "sr-only"));
          }
        }
        if (note && entry.kind === "roll" && note.luck) {
          const luck = text("span", note.luck.replace(/ (points|turns)$/, ""), "luck");
          luck.title = `luck: ${note.roll}`;
          li.append(luck, text("span", ` luck ${note.luck}`, "sr-only"));
        }
        const go = text("button", null, "log-jump");
        go.type = "button";
        go.append(...li.childNodes);
        go.addEventListener("click", () => { replay.index = f; render(); });
        li.replaceChildren(go);
        li.dataset.frame = String(f);
        ui.log.prepend(li);
        analysedLog.push(li);
      }
    });
  }
  let shown = null;
  for (const li of analysedLog) {
    const current = Number(li.dataset.frame) === replay.index;
    li.classList.toggle("current", current);
    if (current && !shown) shown = li;
  }
  if (shown) { // the line of the position shown is in view in the log's own box
    const below = shown.getBoundingClientRect().top - ui.log.getBoundingClientRect().top;
    if (below < 0 || below > ui.log.clientHeight - shown.offsetHeight) ui.log.scrollTop += below - ui.log.clientHeight / 3;
  }
}

// In a replay, how the dice made the choice played from this roll: on the roll's frame (the
// choice comes next) and on the choice's own frame.
function replayWay() {
  const { frames, index } = replay;
  const chosen = (f) => f && f.log.find((e) => e.kind === "choice");
  const [rolled, choice] = frames[index].state.phase === "choose" ? [frames[index], chosen(frames[index + 1])] : [frames[index - 1], chosen(frames[index])];
  if (!rolled || !choice || rolled.state.phase !== "choose" || !rolled.state.ways) return null;
  const i = rolled.state.legal.findIndex((c) => Array.isArray(c) && c.join() === choice.columns.join());
  return i < 0 ? null : rolled.state.ways[i];
}
$("replay-first").addEventListener("click", () => { replay.index = 0; render(); });
$("replay-prev").addEventListener("click", () => stepReplay(-1));
$("replay-next").addEventListener("click", () => stepReplay(1));
$("replay-last").addEventListener("click", () => { replay.index = replay.frames.length - 1; render(); });
$("replay-close").addEventListener("click", stopReplay);
$("replay-range").addEventListener("input", (e) => { replay.index = Number(e.target.value); render(); });
$("replay-jump").addEventListener("submit", (e) => {
  e.preventDefault();
  const turn = Number($("replay-turn").value);
  const i = replay.frames.findIndex((f) => f.turn >= turn);
  replay.index = i < 0 ? replay.frames.length - 1 : i;
  render();
});

// ------------------------------------------------------------------- join
$("join").addEventListener("submit", async (event) => {
  event.preventDefault();
  if (joining) return;
  const here = addingHere();
  const nameValue = $("join-name").value.trim();
  if (!here) localStorage.setItem("cantstop-name", nameValue);
  joining = true;
  render();
  try {
    const body = { seat: Number($("join-seat").value), screen: here, ...(me !== null && !here ? {} : { name: nameValue }) };
    const joined = await api(`/api/games/${gameId}/join`, { method: "POST", body });
    if (here) {
      holdSeats(gameId, [joined]);
      held = heldSeats(gameId);
      announce(socket, held);
    } else {
      you = joined.seat;
      reconnect(); // with the new cookie: the chat then speaks for this seat
    }
    $("join-name").value = ""; // the next person here types their own name
    ui.error.textContent = "";
  } catch (error) {
    ui.error.textContent = error.message;
  } finally {
    joining = false;
    render();
  }
});

$("share").value = location.href;
$("share-copy").addEventListener("click", async () => {
  const copy = $("share-copy");
  copy.textContent = (await copyText(location.href)) ? "Copied" : "Copy failed";
  clearTimeout(copy.timer);
  copy.timer = setTimeout(() => { copy.textContent = "Copy link"; }, 1500);
});

// The clipboard API exists only on secure pages (https or this machine); a server on a home
// network over plain http gets the older way through a selected text field.
async function copyText(value) {
  try {
    await navigator.clipboard.writeText(value);
    return true;
  } catch {
    const area = text("textarea");
    area.value = value;
    area.style.position = "fixed"; area.style.opacity = "0";
    document.body.append(area);
    area.select();
    const done = document.execCommand("copy");
    area.remove();
    return done;
  }
}

// ------------------------------------------------------------------- live
let lastLogVersion = -1; // log entries up to this version are shown already
let socket = null;
let socketSeat = null; // the seat the server knows this socket by (its cookie at connection)
const resign = createResign(gameId, {
  tokenOf: (seat) => held[seat],
  resigned: (seat, beforeStart) => {
    if (beforeStart) { // the seat is open again: this screen holds it no more
      if (seat in held) forget(seat);
      if (seat === you) { you = null; reconnect(); }
    }
    ui.error.textContent = "";
    render(); // the socket may have told of the opened seat before this answer came
  },
  failed: (error) => { ui.error.textContent = error.message; },
});
const chat = createChat($("chat"), (message) => {
  if (!socket || socket.readyState !== WebSocket.OPEN) return false;
  socket.send(JSON.stringify(message));
  return true;
});
// The chat speaks for the seat joined online, else for the first seat held at this screen.
function chatSpeaker() {
  if (socketSeat !== null) return [socketSeat, null];
  const [seat, token] = Object.entries(held)[0] || [null, null];
  return [seat === null ? null : Number(seat), token];
}
function receive(message) {
  if (message.type.startsWith("chat") || message.about === "chat") {
    chat.receive(message);
    return;
  }
  if (message.presence) presence = message.presence;
  if (message.now) skew = message.now - Date.now();
  if (message.type === "presence") presence = message;
  let words = [];
  if (message.type === "hello") {
    socketSeat = message.you;
    chat.reset(message.chat);
    // A hello prepared before this page joined a seat says "spectator": keep the seat we know.
    you = message.you ?? you;
    game = message.game;
    logEntries = [];
    ui.log.replaceChildren();
    addLog(message.log, false);
    lastLogVersion = Math.max(-1, ...message.log.map((e) => e.version));
    odds.shownFor = rollMap.shownFor = -1;
    announce(socket, held);
    // A link to a finished game's replay or analysis (from a profile, the game lists, practice) opens it at once.
    if ((location.hash === "#replay" || location.hash === "#analysis") && game.status === "over" && !replay) {
      const analyse = location.hash === "#analysis";
      history.replaceState(null, "", location.pathname); // once: a reconnect does not reopen it
      (analyse ? startAnalysis : startReplay)();
    }
  } else if (message.type === "update") {
    const entries = message.log.filter((e) => e.version > lastLogVersion);
    if (!game || message.game.version > game.version) preview = null; // the choices it named are gone
    for (const e of entries) {
      if (e.kind === "roll") played = null;
      else if (e.kind === "choice" && game) notePlayed(game.state, e.columns);
    }
    if (!game || message.game.version >= game.version) game = message.game;
    if (entries.some((e) => e.kind === "roll")) rolledAt = performance.now();
    addLog(entries, true);
    lastLogVersion = Math.max(lastLogVersion, ...entries.map((e) => e.version));
    words = spoken(entries);
    // The dice stop tumbling: only they are drawn again, so focus and hover stay where they are.
    if (rolledAt > performance.now() - 600) setTimeout(() => { if (game && game.state && !replay) drawTable(game.state); }, 520);
  } else if (message.type === "error") {
    ui.error.textContent = message.message;
  }
  chat.speakAs(...chatSpeaker());
  render();
  say(words);
}

const RESTARTING = 1012; // the close code a server sends its sockets when it stops (SIGTERM)
let closing = false; // this page closed its socket to connect again at once
function reconnect() {
  closing = true;
  socket?.close();
}
let retry = 500;
function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/games/${gameId}`);
  socket = ws;
  ws.addEventListener("open", () => {
    retry = 500;
    online = true;
    ui.live.classList.add("on");
    ui.live.title = "live";
    render();
  });
  ws.addEventListener("message", (e) => {
    receive(JSON.parse(e.data));
  });
  ws.addEventListener("close", async (event) => {
    online = false;
    ui.live.classList.remove("on");
    ui.live.title = "reconnecting…";
    offlineWhy = "The connection to the server is lost: reconnecting… The game shows as it stands once it is back.";
    if (event.code === RESTARTING) {
      // The server is stopping to restart: come back once it is up, not all sockets at once.
      ui.live.title = "the server is restarting: reconnecting…";
      offlineWhy = "The server is restarting: reconnecting… The game goes on where it was once it is back.";
      retry = 1000 + Math.floor(Math.random() * 2000);
    }
    if (closing) offlineWhy = "Reconnecting…"; // this page closed it, to come back under a new seat
    closing = false;
    render();
    if (!game && await noSuchGame()) return; // nothing to wait for
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 8000);
  });
}

// A link to a game this server does not have (mistyped, or from another server) says so.
async function noSuchGame() {
  try {
    await api(`/api/games/${gameId}`);
    return false;
  } catch (error) {
    if (!error.data || error.data.error !== "no_game") return false; // offline: keep trying
    ui.live.title = "no such game";
    ui.status.textContent = `There is no game '${gameId}' on this server: check the link, or start a new one.`;
    ui.controls.replaceChildren(link("New game", "button again", "/"));
    return true;
  }
}
// The server decides which seats the stored tokens hold: a stale one (say, from a reset
// server) is dropped rather than offered controls it cannot use.
async function checkHeld() {
  await Promise.all(Object.entries(held).map(async ([seat, token]) => {
    try {
      const seen = await api(`/api/games/${gameId}`, { headers: { authorization: `Bearer ${token}` } });
      if (seen.you !== Number(seat)) forget(seat);
    } catch { /* offline or gone: keep the seat and let the next action tell */ }
  }));
  render();
}

function forget(seat) {
  dropSeat(gameId, seat);
  held = heldSeats(gameId);
}

odds.sync();
rollMap.sync();
api("/api/account").then((found) => { me = found.account; meKnown = true; chat.canReport(Boolean(me)); render(); }).catch(() => {});
takeSeatFromLink(gameId).then((said) => {
  if (said) ui.error.textContent = said;
  connect(); // after the link's seat is taken, so the server knows this browser by its new cookie
});
checkHeld();
tourOnFirstVisit();
