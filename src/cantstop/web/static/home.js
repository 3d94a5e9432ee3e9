// The home page: a game against a computer player in one click, your games (waiting for you
// first), the challenges made to you and by you, create a game, list live and finished games,
// show the leaderboard.
import { api, stored, text } from "./api.js";
import { markSvg } from "./board.js";
import { gameItem, leaderRow, noneYet } from "./lists.js";
import { startTour } from "./tour.js";
import { holdSeats } from "./held.js";
import { yourTurn } from "./turns.js";
import { challengesBox } from "./challenges.js";

const $ = (id) => document.getElementById(id);
let seatOptions = []; // [value, label, bot]: the bot a `bot:` entry seats (null for a person)
let variants = [];
let plays = {}; // bot -> preset -> the numbers of players it can play that preset with
let defaultBot = null; // the seat a new bot seat gets: the weakest level

const HERE = "here"; // a person at this screen: the seat is taken for this browser at once
const ME = "me"; // the signed-in person: the seat is their account's, on any device
let me = null; // the signed-in account, or null for a guest
const NAME = /^[^\x00-\x1f;"\\[\]{}]{1,40}$/; // as the server checks names

// Whether `bot` can play the preset `variant` with `count` players (a spec that is no preset,
// or a bot the server did not describe, is left to the server to judge).
function fits(bot, variant, count) {
  const counts = bot && plays[bot] && plays[bot][variant];
  return !counts || counts.includes(count);
}

// The entries a seat's menu offers with `count` seats: a bot only where it can play.
function offered(count) {
  const variant = $("variant").value;
  return seatOptions.filter(([, , bot]) => fits(bot, variant, count));
}

function seatRow(index, { value, name }, options) {
  const row = text("div", null, "seat-choice");
  const label = text("label", `Seat ${"ABCD"[index]} `);
  label.prepend(markSvg(index, 18));
  const select = text("select");
  select.name = "seat";
  for (const [v, l] of options) {
    const o = text("option", l);
    o.value = v;
    o.disabled = v === HERE && $("rated").checked; // a rated game seats signed-in people only, each on their own device
    select.append(o);
  }
  select.value = value;
  label.append(select);
  const input = text("input");
  Object.assign(input, { name: "seat-name", value: name, maxLength: 40, placeholder: "Name", autocomplete: "off" });
  input.setAttribute("aria-label", `Name at seat ${"ABCD"[index]}`);
  input.hidden = value !== HERE;
  select.addEventListener("change", () => {
    input.hidden = select.value !== HERE;
    if (input.hidden) return;
    input.value ||= stored("cantstop-here-names", [])[index] || ""; // the same family at the same seats as last time
    input.focus();
  });
  row.append(label, input);
  return row;
}

function seats() {
  return [...document.querySelectorAll(".seat-choice")].map((row) => ({
    value: row.querySelector("select").value, name: row.querySelector("input").value,
  }));
}

// The seats' rows for `values`; a bot that cannot play these rules with this many players
// gives its seat to the default bot, and the note under the seats says so.
function setSeats(values) {
  const list = $("seat-list");
  const options = offered(values.length);
  const allowed = new Set(options.map(([v]) => v));
  const moved = [];
  const seated = values.map((v, i) => {
    if (allowed.has(v.value) || !v.value.startsWith("bot:")) return v;
    const label = (o) => ((seatOptions.find(([value]) => value === o) || [])[1] || o).split(" — ")[0];
    moved.push(`Seat ${"ABCD"[i]}: the ${label(v.value)} cannot play these rules with ${values.length} player${values.length === 1 ? "" : "s"}; this seat has ${label(defaultBot.value)} now.`);
    return defaultBot;
  });
  $("seat-note").textContent = moved.join(" ");
  list.querySelectorAll(".seat-choice").forEach((l) => l.remove());
  seated.forEach((v, i) => list.append(seatRow(i, v, options)));
  const v = variantOf($("variant").value);
  $("add-seat").disabled = values.length >= v.max_players;
  $("remove-seat").disabled = values.length <= v.min_players;
}

// A preset's seat limits (the server checks any other spec, such as "classic+to_win=4").
function variantOf(name) {
  return variants.find((x) => x.name === name) || { min_players: 1, max_players: 4 };
}

// The create request for the form's seats: people here take their (open) seats at once.
function newGame() {
  const chosen = seats();
  const take = [];
  if (chosen.filter((s) => s.value === ME).length > 1) throw new Error("You take one seat of a game: the others are for other people or bots.");
  chosen.forEach((s, seat) => {
    if (s.value === ME) take.push({ seat });
    if (s.value !== HERE) return;
    const name = s.name.trim();
    const letter = "ABCD"[seat];
    if (!name) throw new Error(`Seat ${letter}: enter the name of the person playing there.`);
    if (!NAME.test(name) || name.toLowerCase().startsWith("bot:")) {
      throw new Error(`Seat ${letter}: a name is 1–40 characters, without ; " \\ [ ] { } or a "bot:" prefix.`);
    }
    if (take.some((t) => t.name.toLowerCase() === name.toLowerCase())) {
      throw new Error(`Seat ${letter}: each person at this screen needs a different name.`);
    }
    take.push({ seat, name, screen: me !== null });
  });
  const specs = chosen.map((s) => (s.value === HERE || s.value === ME ? "open" : s.value));
  return { variant: $("variant").value, seats: specs, take, clock: Number($("clock").value), rated: $("rated").checked };
}

// Rated needs an account; a guest is told how to get one, and plays friendly games.
function setupRated() {
  const rated = $("rated");
  rated.disabled = me === null;
  $("rated-note").textContent = me === null
    ? "Rated games are for signed-in players: sign in (Account) to play them. Friendly games need no account."
    : "Rated: every person signs in on their own device, on classic, its options or the Turtles; no odds or advice until the end.";
  rated.addEventListener("change", () => {
    setSeats(seats().map((s) => (rated.checked && s.value === HERE ? { value: "open", name: "" } : s)));
  });
}

async function setup() {
  me = (await api("/api/account")).account;
  if (me) challengesBox($("challenges-card"), $("challenges"), $("challenges-said"));
  setupRated();
  const info = await api("/api/variants");
  variants = info.variants;
  plays = Object.fromEntries(info.bots.map((b) => [b.name, b.plays]));
  // A level seats the bot the server names for it: the label says that bot, never a guess.
  const display = Object.fromEntries(info.bots.map((b) => [b.name, b.display]));
  seatOptions = [...(me ? [[ME, `You (${me.name})`, null]] : []), ["open", "A person with the link (open seat)", null], [HERE, "A person at this screen", null],
    ...info.levels.map((l) => [`bot:${l.name}`, `Computer, ${l.name} (${display[l.bot]})`, l.bot]),
    ...info.bots.map((b) => [`bot:${b.name}`, `${b.display} — ${b.description}`, b.name])];
  for (const v of variants) {
    const o = text("option", v.title);
    o.value = v.name;
    $("variant").append(o);
  }
  const bot = { value: `bot:${info.levels[0].name}`, name: "" };
  defaultBot = bot;
  setupQuickPlay(info, display);
  setSeats([{ value: me ? ME : "open", name: "" }, bot]);
  $("variant").addEventListener("change", () => {
    const v = variantOf($("variant").value);
    let values = seats();
    while (values.length < v.min_players) values.push(bot);
    values = values.slice(0, v.max_players);
    setSeats(values);
  });
  $("add-seat").addEventListener("click", () => setSeats([...seats(), bot]));
  $("remove-seat").addEventListener("click", () => setSeats(seats().slice(0, -1)));
  $("create").addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const created = await api("/api/games", { method: "POST", body: newGame() });
      holdSeats(created.id, created.taken || []);
      localStorage.setItem("cantstop-here-names", JSON.stringify(seats().map((s) => (s.value === HERE ? s.name.trim() : ""))));
      location.href = created.url;
    } catch (error) {
      $("create-error").textContent = error.message;
    }
  });
}

async function refresh() {
  const [live, finished, leaders] = await Promise.all([api("/api/games"), api("/api/finished?limit=20"), api("/api/players?limit=10")]);
  $("live").replaceChildren(...(live.length ? live.map((g) => gameItem(g)) : [text("li", "None yet: create one above.", "meta")]));
  $("finished").replaceChildren(...(finished.length ? finished.map((g) => gameItem(g)) : [text("li", "None yet.", "meta")]));
  $("leaders").replaceChildren(...(leaders.length ? leaders.map((r, i) => leaderRow(r, i)) : [noneYet()]));
}

// One click from the home page to a game: classic, against the medium computer player, the
// visitor's seat taken at once (a guest's under the name they last played under, else "Guest").
const QUICK_LEVEL = "medium";
function setupQuickPlay(info, display) {
  const level = info.levels.find((l) => l.name === QUICK_LEVEL) || info.levels[0];
  $("quick-what").textContent = `A game of classic Can't Stop against the ${level.name} computer player (${display[level.bot]}),`
    + (me ? ` as ${me.name}.` : " with no account and nothing to fill in.");
  const button = $("quick-play");
  button.disabled = false;
  button.addEventListener("click", async () => {
    button.disabled = true;
    $("quick-error").textContent = "";
    const seats = ["open", `bot:${level.name}`];
    const ask = (name) => api("/api/games", { method: "POST", body: { variant: "classic", seats, take: [me ? { seat: 0 } : { seat: 0, name }] } });
    try {
      let created;
      const name = (localStorage.getItem("cantstop-name") || "").trim() || "Guest";
      try {
        created = await ask(name);
      } catch (error) {
        // The name is an account's, or not a name the server takes: play as a numbered guest.
        if (me || !error.data || !["name_taken", "bad_name"].includes(error.data.error)) throw error;
        created = await ask(`Guest ${100 + Math.floor(Math.random() * 900)}`);
      }
      holdSeats(created.id, created.taken || []);
      location.href = created.url;
    } catch (error) {
      $("quick-error").textContent = error.message;
      button.disabled = false;
    }
  });
}

$("tour-start").addEventListener("click", startTour);
// Ready (for a test, or a script driving the page) once the forms and the first lists are in.
Promise.all([setup(), refresh()]).then(() => { document.body.dataset.ready = "true"; });
setInterval(refresh, 5000);
yourTurn($("mine-card"), $("mine"), document.title);
