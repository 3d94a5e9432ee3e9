// A player's profile: rating, its history as a plot, and recent games linking to their replays.
import { api, text } from "./api.js";
import { gameItem, link } from "./lists.js";
import { report } from "./report.js";
import { cannotChallenge, wireChallenge } from "./challenges.js";

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

// The rating after each rated game as a line, over a band of its uncertainty (one sigma either
// side, on the same scale). Drawn at `width` pixels (the box it goes in), so that its labels
// keep their size on a phone.
export function plot(history, width = 640) {
  const W = Math.round(Math.min(900, Math.max(280, width))), H = W < 480 ? 200 : 260, L = 44, R = 12, T = 14, B = 34;
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "rating-plot", role: "img" });
  const first = history[0], last = history[history.length - 1];
  svg.setAttribute("aria-label", `Rating after each of ${history.length} rated games: from ${first.rating} to ${last.rating}.`);
  let lo = Math.min(...history.map((p) => p.low)), hi = Math.max(...history.map((p) => p.high));
  if (hi - lo < 20) { lo -= 10; hi += 10; }
  const x = (i) => L + (history.length === 1 ? (W - L - R) / 2 : (i * (W - L - R)) / (history.length - 1));
  const y = (v) => T + ((hi - v) * (H - T - B)) / (hi - lo);
  for (const v of ticks(lo, hi)) {
    el("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid" }, svg);
    el("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end", class: "tick" }, svg).textContent = String(v);
  }
  // One game: the band is a bar around its dot (a polygon one point wide would not show).
  const half = history.length === 1 ? 10 : 0;
  const edge = (at) => history.flatMap((p, i) => (half ? [x(i) - half, x(i) + half] : [x(i)]).map((px) => `${px},${y(at(p))}`));
  const band = edge((p) => p.high).concat(edge((p) => p.low).reverse());
  el("polygon", { points: band.join(" "), class: "band" }, svg);
  el("polyline", { points: history.map((p, i) => `${x(i)},${y(p.rating)}`).join(" "), class: "line" }, svg);
  history.forEach((p, i) => {
    const dot = el("circle", { cx: x(i), cy: y(p.rating), r: 4, class: p.provisional ? "dot provisional" : "dot" }, svg);
    const why = "the same players met often this month, or a provisional rating among them";
    const counted = p.weight === undefined || p.weight === 1 ? "" : p.weight === 0 ? `; not counted (${why})` : `; counted ${p.weight}× (${why})`;
    el("title", {}, dot).textContent = `game ${i + 1}: rating ${p.rating}${p.provisional ? " (provisional)" : ""}, ${p.low} to ${p.high}${counted}`;
  });
  el("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle", class: "tick" }, svg).textContent = "rated games, oldest first";
  return svg;
}

// One rating (of games of one number of players): its numbers, whether it is provisional, its plot.
function showRating(r) {
  $("numbers").hidden = false;
  $("rating").textContent = `${r.rating}${r.provisional ? "?" : ""}`;
  $("games").textContent = String(r.games);
  $("wins").textContent = `${r.wins} (${Math.round((100 * r.wins) / Math.max(1, r.games))}%)`;
  $("opponents").textContent = String(r.opponents);
  $("provisional").hidden = !r.provisional;
  $("provisional").textContent = r.provisional
    ? `Provisional (?): a rating is settled after ten counted rated games against five different trusted opponents (bots, and players whose own rating is settled); so far ${r.games} and ${r.opponents}.`
    : "";
  $("plot").replaceChildren(r.history.length ? plot(r.history, $("plot").clientWidth)
    : text("p", "No rated games yet: rated games are between signed-in players.", "meta"));
  $("plot-legend").hidden = !r.history.length;
}

// The ratings of each number of players the player has played rated, one shown at a time (the one played most first).
function showRatings(ratings) {
  const counts = $("counts");
  if (!ratings.length) {
    $("plot").replaceChildren(text("p", "No rated games yet: rated games are between signed-in players.", "meta"));
    return;
  }
  const main = ratings.reduce((a, b) => (b.games > a.games ? b : a));
  counts.hidden = ratings.length < 2;
  counts.replaceChildren(...ratings.map((r) => {
    const button = text("button", `${r.players} players`, "button small secondary");
    button.type = "button";
    button.addEventListener("click", () => {
      counts.querySelectorAll("button").forEach((b) => b.setAttribute("aria-pressed", String(b === button)));
      showRating(r);
    });
    button.setAttribute("aria-pressed", String(r === main));
    return button;
  }));
  showRating(main);
}

// Skill and luck apart: the averages over the analysed rated games.
function showAnalysis(a) {
  $("accuracy-item").hidden = $("luck-item").hidden = $("analysed").hidden = !a;
  if (!a) return;
  $("numbers").hidden = false;
  $("accuracy").textContent = a.accuracy === null ? "—" : a.accuracy.toFixed(1);
  $("luck").textContent = `${a.luck > 0 ? "+" : a.luck < 0 ? "−" : "±"}${Math.abs(a.luck).toFixed(1)}`;
  $("analysed").textContent = `Accuracy and luck: averages over ${a.games} analysed rated game${a.games === 1 ? "" : "s"}. Accuracy is the share of`
    + " what was at stake in each decision that was kept (100: every decision the best); luck, the points of chance to win that the"
    + " player's own rolls brought beyond what rolling was expected to bring.";
}

function said(words, failed = false) {
  $("social-said").className = `said ${failed ? "error" : "meta"}`;
  $("social-said").textContent = words;
}

// A signed-in visitor on another account's page: challenge it, follow or unfollow it, block or
// unblock it, report it.
async function social(profile) {
  if (profile.kind !== "person") return null;
  const { account } = await api("/api/account");
  if (!account) return null;
  let standing = await api(`/api/social/with/${encodeURIComponent(profile.name)}`);
  if (standing.you) return account;
  let refused = false; // a challenge was refused for good (they block you, say): the button says so
  const label = () => {
    if (!refused) {
      $("challenge").disabled = standing.blocking;
      $("challenge").textContent = standing.blocking ? "Cannot challenge" : "Challenge…";
      $("challenge").title = standing.blocking ? "You block this player: unblock them to challenge them." : "";
    }
    $("follow").textContent = standing.following ? "Unfollow" : "Follow";
    $("follow").setAttribute("aria-pressed", String(standing.following));
    $("block").textContent = standing.blocking ? "Unblock" : "Block";
    $("block").setAttribute("aria-pressed", String(standing.blocking));
    $("follow").disabled = standing.blocking;
  };
  const act = (button, path, on, words) => $(button).addEventListener("click", async () => {
    const doing = !standing[on];
    try {
      if (doing) await api(`/api/social/${path}`, { method: "POST", body: { name: profile.name } });
      else await api(`/api/social/${path}/${encodeURIComponent(profile.name)}`, { method: "DELETE" });
      standing = await api(`/api/social/with/${encodeURIComponent(profile.name)}`);
      label();
      said(words(doing));
    } catch (error) {
      said(error.message, true);
    }
  });
  act("follow", "follows", "following", (on) => (on ? `You follow ${profile.display} now: see them on your friends page.` : `You no longer follow ${profile.display}.`));
  act("block", "blocks", "blocking", (on) => (on
    ? `You block ${profile.display}: you do not see what they write in any game's chat.`
    : `You no longer block ${profile.display}.`));
  wireChallenge($("challenge"), profile.name, profile.display, (words, failed) => {
    refused ||= failed;
    said(words, failed);
  });
  $("report-player").addEventListener("click", async () => {
    const done = await report({ player: profile.name }, `The player ${profile.display}`);
    if (done) said(done);
  });
  label();
  $("social").hidden = false;
  return account;
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
  showRatings(profile.ratings);
  showAnalysis(profile.analysis);
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
  await social(profile).catch((error) => said(error.message, true));
  if (profile.kind === "person") await showTournaments(profile.name);
  document.body.dataset.ready = "true";
}

// The tournaments an account entered, each with its place in the standings (once play began).
async function showTournaments(account) {
  const { entered } = await api(`/api/tournaments?player=${encodeURIComponent(account)}`);
  $("tournaments-card").hidden = !entered.length;
  $("tournaments").replaceChildren(...entered.map((t) => {
    const li = text("li");
    const standing = t.rank === null ? { open: "entered", cancelled: "cancelled" }[t.status] || "entered"
      : `${t.status === "over" ? "finished" : "now"} ${t.rank} of ${t.of}, ${t.points} points`;
    li.append(link(t.name, null, t.url), text("span", `${t.title} · ${standing}`, "meta"));
    return li;
  }));
}

show();
