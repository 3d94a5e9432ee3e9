// A player's profile: rating, its history as a plot, and recent games linking to their replays.
import { api, text } from "./api.js";
import { gameItem, link } from "./lists.js";

const $ = (id) => document.getElementById(id);
const NS = "http://www.w3.org/2000/svg";
const name = decodeURIComponent(location.pathname.slice("/player/".length));
const legacy = new URLSearchParams(location.search).has("legacy"); // a rating from before accounts
const KINDS = {
  person: "A player with an account: rated games count for them.",
  bot: "A computer player: rated on the bots' board.",
  guest: "Played as a guest: friendly games, not rated.",
  legacy: "A rating kept under this name from before accounts: it belongs to no account until the server's operator attaches it.",
};

function statsRows(rows, key) {
  return rows.map((r) => {
    const tr = text("tr");
    for (const c of [r.title ?? String(r[key]), String(r.games), `${r.wins} (${Math.round(100 * r.rate)}%)`]) tr.append(text("td", c));
    return tr;
  });
}

function el(tag, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.append(node);
  return node;
}

// Round tick values between lo and hi: about four of them, at 1, 2 or 5 times a power of ten.
function ticks(lo, hi) {
  const raw = (hi - lo) / 4 || 1;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9; v += step) out.push(Number(v.toFixed(6)));
  return out;
}

// The rating (μ − 3σ) after each rated game as a line, over a band of μ ± σ. Drawn at `width`
// pixels (the box it goes in), so that its labels keep their size on a phone.
export function plot(history, width = 640) {
  const W = Math.round(Math.min(900, Math.max(280, width))), H = W < 480 ? 200 : 260, L = 44, R = 12, T = 14, B = 34;
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "rating-plot", role: "img" });
  const first = history[0], last = history[history.length - 1];
  svg.setAttribute("aria-label", `Rating after each of ${history.length} rated games: from ${first.rating.toFixed(1)} to ${last.rating.toFixed(1)}.`);
  const lows = history.map((p) => Math.min(p.rating, p.mu - p.sigma)), highs = history.map((p) => p.mu + p.sigma);
  let lo = Math.min(...lows), hi = Math.max(...highs);
  if (hi - lo < 1) { lo -= 1; hi += 1; }
  const x = (i) => L + (history.length === 1 ? (W - L - R) / 2 : (i * (W - L - R)) / (history.length - 1));
  const y = (v) => T + ((hi - v) * (H - T - B)) / (hi - lo);
  for (const v of ticks(lo, hi)) {
    el("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid" }, svg);
    el("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end", class: "tick" }, svg).textContent = String(v);
  }
  // One game: the band is a bar around its dot (a polygon one point wide would not show).
  const half = history.length === 1 ? 10 : 0;
  const edge = (at) => history.flatMap((p, i) => (half ? [x(i) - half, x(i) + half] : [x(i)]).map((px) => `${px},${y(at(p))}`));
  const band = edge((p) => p.mu + p.sigma).concat(edge((p) => p.mu - p.sigma).reverse());
  el("polygon", { points: band.join(" "), class: "band" }, svg);
  el("polyline", { points: history.map((p, i) => `${x(i)},${y(p.rating)}`).join(" "), class: "line" }, svg);
  history.forEach((p, i) => {
    const dot = el("circle", { cx: x(i), cy: y(p.rating), r: 4, class: "dot" }, svg);
    const counted = p.weight === undefined || p.weight === 1 ? "" : p.weight === 0 ? "; not counted (the same pair, too often this month)" : `; counted ${p.weight}× (the same pair again this month)`;
    el("title", {}, dot).textContent = `game ${i + 1}: rating ${p.rating.toFixed(1)} (μ ${p.mu.toFixed(1)}, σ ${p.sigma.toFixed(1)})${counted}`;
  });
  el("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle", class: "tick" }, svg).textContent = "rated games, oldest first";
  return svg;
}

async function show() {
  let profile;
  try {
    profile = await api(`/api/players/${encodeURIComponent(name)}${legacy ? "?legacy=1" : ""}`);
  } catch (error) {
    $("who").textContent = name;
    $("missing").textContent = error.message;
    $("plot-card").hidden = $("recent-card").hidden = true; // nobody to show: no empty cards either
    document.body.dataset.ready = "true";
    return;
  }
  document.title = `${profile.display} — Can't Stop`;
  $("who").textContent = profile.display;
  $("kind").textContent = KINDS[profile.kind] || "";
  if (profile.legacy) $("kind").append(" ", link("A legacy rating has this name.", null, profile.legacy));
  if (profile.rating) {
    const r = profile.rating;
    $("numbers").hidden = false;
    $("rating").textContent = r.rating.toFixed(1);
    $("games").textContent = String(r.games);
    $("wins").textContent = `${r.wins} (${Math.round((100 * r.wins) / Math.max(1, r.games))}%)`;
    $("musigma").textContent = `${r.mu.toFixed(1)} ± ${r.sigma.toFixed(1)}`;
  }
  // Skill and luck apart: the averages over the analysed rated games.
  const a = profile.analysis;
  $("accuracy-item").hidden = $("luck-item").hidden = $("analysed").hidden = !a;
  if (a) {
    $("numbers").hidden = false;
    $("accuracy").textContent = a.accuracy === null ? "—" : a.accuracy.toFixed(1);
    $("luck").textContent = `${a.luck > 0 ? "+" : a.luck < 0 ? "−" : "±"}${Math.abs(a.luck).toFixed(1)}`;
    $("analysed").textContent = `Accuracy and luck: averages over ${a.games} analysed rated game${a.games === 1 ? "" : "s"}. Accuracy is the share of`
      + " what was at stake in each decision that was kept (100: every decision the best); luck, the points of chance to win that the"
      + " player's own rolls brought beyond what rolling was expected to bring.";
  }
  $("plot").replaceChildren(profile.history.length ? plot(profile.history, $("plot").clientWidth)
    : text("p", "No rated games yet: rated games are between signed-in players.", "meta"));
  $("plot-legend").hidden = !profile.history.length;
  $("playing").replaceChildren(...profile.playing.map((g) => {
    const li = gameItem(g);
    if (g.your_turn) li.prepend(text("span", "Their turn", "tag your-turn"));
    return li;
  }));
  $("stats-card").hidden = !profile.stats.by_variant.length;
  $("by-variant").replaceChildren(...statsRows(profile.stats.by_variant, "variant"));
  $("by-players").replaceChildren(...statsRows(profile.stats.by_players, "players"));
  $("playing-card").hidden = !profile.playing.length;
  $("recent").replaceChildren(...(profile.games.length ? profile.games.map((g) => gameItem(g)) : [text("li", "No finished games yet.", "meta")]));
  document.body.dataset.ready = "true";
}

show();
