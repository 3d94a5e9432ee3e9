// The home page: create a game, list live and finished games, show the leaderboard.
import { api, text } from "./api.js";
import { markSvg } from "./board.js";

const $ = (id) => document.getElementById(id);
let seatOptions = [];
let variants = [];

function seatSelect(index, value) {
  const label = text("label", `Seat ${"ABCD"[index]} `, "seat-choice");
  label.prepend(markSvg(index, 18));
  const select = text("select");
  select.name = "seat";
  for (const [v, l] of seatOptions) {
    const o = text("option", l);
    o.value = v;
    select.append(o);
  }
  select.value = value;
  label.append(select);
  return label;
}

function seats() {
  return [...document.querySelectorAll("select[name=seat]")].map((s) => s.value);
}

function setSeats(values) {
  const list = $("seat-list");
  list.querySelectorAll("label").forEach((l) => l.remove());
  values.forEach((v, i) => list.append(seatSelect(i, v)));
  const v = variants.find((x) => x.name === $("variant").value) || { min_players: 1, max_players: 4 };
  $("add-seat").disabled = values.length >= v.max_players;
  $("remove-seat").disabled = values.length <= v.min_players;
}

async function setup() {
  const info = await api("/api/variants");
  variants = info.variants;
  seatOptions = [["open", "A person (open seat)"],
    ...info.levels.map((l) => [`bot:${l}`, `Computer, ${l}`]),
    ...info.bots.map((b) => [`bot:${b.name}`, `Bot “${b.name}” — ${b.description}`])];
  for (const v of variants) {
    const o = text("option", v.name);
    o.value = v.name;
    $("variant").append(o);
  }
  setSeats(["open", `bot:${info.levels[0]}`]);
  $("variant").addEventListener("change", () => {
    const v = variants.find((x) => x.name === $("variant").value);
    let values = seats();
    while (values.length < v.min_players) values.push(`bot:${info.levels[0]}`);
    values = values.slice(0, v.max_players);
    setSeats(values);
  });
  $("add-seat").addEventListener("click", () => setSeats([...seats(), `bot:${info.levels[0]}`]));
  $("remove-seat").addEventListener("click", () => setSeats(seats().slice(0, -1)));
  $("create").addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const created = await api("/api/games", { method: "POST", body: { variant: $("variant").value, seats: seats() } });
      location.href = created.url;
    } catch (error) {
      $("create-error").textContent = error.message;
    }
  });
}

function gameItem(g) {
  const li = text("li");
  const a = text("a", null);
  a.href = `/game/${g.id}`;
  g.players.forEach((p, i) => {
    const span = text("span", p || "open seat", `player${g.winner === i ? " winner" : ""}`);
    span.prepend(markSvg(i, 14));
    a.append(span);
  });
  li.append(a, text("span", `${g.variant} · ${g.status === "waiting" ? "waiting for players" : g.status === "over" ? `${g.version} moves` : "playing"}`, "meta"));
  if (g.status === "over") {
    const rec = text("a", "record", "meta");
    rec.href = `/api/games/${g.id}/record`;
    li.append(rec);
  }
  return li;
}

async function refresh() {
  const [live, finished, leaders] = await Promise.all([api("/api/games"), api("/api/games?finished=1"), api("/api/leaderboard")]);
  $("live").replaceChildren(...(live.length ? live.map(gameItem) : [text("li", "None yet: create one above.", "meta")]));
  $("finished").replaceChildren(...(finished.length ? finished.map(gameItem) : [text("li", "None yet.", "meta")]));
  $("leaders").replaceChildren(...leaders.map((r, i) => {
    const tr = text("tr");
    for (const v of [i + 1, r.name, r.rating.toFixed(1), r.games, r.wins]) tr.append(text("td", String(v)));
    return tr;
  }));
}

setup();
refresh();
setInterval(refresh, 5000);
