// The analysis of a finished game, beside its replay: each player's accuracy and luck, the
// chance to win of every player move by move (an SVG graph, and the same as a table), each
// decision's grade beside its log line, and at the point shown every option with its chance,
// the roll's luck and the roll map. The server computes all of it once (GET .../analysis);
// this only draws what it is sent.
import { api, text } from "./api.js";
import { SEATS, markSvg } from "./board.js";
import { bars, tableHead } from "./lists.js";
import { loadRollMap, showRollMap, valueText } from "./rollmap.js";

const NS = "http://www.w3.org/2000/svg";
export const MARKS = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const GRADE_WORDS = { best: "best", good: "good", inaccuracy: "inaccuracy", mistake: "mistake", blunder: "blunder", forced: "forced" };
const DASHES = ["", "7 4", "2 4", "10 4 2 4"]; // each seat's line its own pattern: colour is never the only cue
const TRIES = 90; // times the page asks again while the analysis is under way (each after Retry-After)

function svg(tag, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.append(node);
  return node;
}

const signed = (x, digits) => `${x > 0 ? "+" : x < 0 ? "−" : "±"}${Math.abs(x).toFixed(digits)}`;

// A change as the analysis's units say it: "+3.2 points", "−0.15 turns".
export function changeText(change, units) {
  return units === "turns" ? `${signed(change, 2)} turns` : `${signed(change, 1)} points`;
}

// A decision's options as bars, best first: a chance fills its bar; alone, the fewest turns
// fill the best one's. `said(option)` adds words to an option's value; `marked` is the played one.
export function optionBars(options, units, said, marked) {
  const best = options[0].value;
  const list = bars(options.map((o) => ({
    label: o.action,
    share: units === "turns" ? (100 * best) / Math.max(o.value, 1e-9) : o.value,
    value: `${valueText(o.value, units)}${said(o) ? ` · ${said(o)}` : ""}`,
    cls: o.action === marked ? "chosen" : "",
  })));
  list.classList.add("analysis-options");
  return list;
}

const wait = (seconds) => new Promise((done) => setTimeout(done, seconds * 1000));

// Fetch the analysis, asking again while the server says it is under way (202).
async function fetchAnalysis(gameId, said) {
  for (let tries = 0; tries < TRIES; tries++) {
    const response = await fetch(`/api/games/${gameId}/analysis`, { credentials: "same-origin" }).catch(() => null);
    if (response === null) throw new Error("The server cannot be reached: try again in a moment.");
    const data = await response.json().catch(() => ({}));
    if (response.status === 202) {
      said(tries ? "Still analysing… a long game takes a little longer." : "Analysing the game… (a few seconds)");
      await wait(Number(response.headers.get("retry-after")) || 2);
      continue;
    }
    if (!response.ok) throw new Error(data.message || `The analysis could not be read (HTTP ${response.status}).`);
    return data;
  }
  throw new Error("The analysis is taking longer than it should: try again later.");
}

// Which event of the record led to game version `version` (the frame shown): the last whose
// version is at most it.
function plyAt(versions, version) {
  let lo = 0, hi = versions.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (versions[mid] <= version) lo = mid; else hi = mid - 1;
  }
  return lo;
}

export function createAnalysis(gameId, { section, names, jump }) {
  let data = null; // { versions, analysis }
  let byPly = null; // ply -> { decision, roll, point }
  let shownPly = -1;
  let cursor = null;
  const maps = new Map(); // ply -> its roll map, once read

  const units = () => data.analysis.units;
  const label = (seat) => `${SEATS[seat].letter} ${names()[seat]}`;

  function index(analysis) {
    const found = new Map();
    const at = (ply) => { if (!found.has(ply)) found.set(ply, {}); return found.get(ply); };
    for (const d of analysis.decisions) at(d.ply).decision = d;
    for (const r of analysis.rolls) at(r.ply).roll = r;
    for (const p of analysis.points) at(p.ply).point = p;
    return found;
  }

  // ---------------------------------------------------------------- the summary
  function summaryTable(analysis) {
    const table = text("table", null, "analysis-summary");
    const caption = text("caption", "Each player's accuracy, loss, luck and marked decisions", "sr-only");
    const turns = analysis.units === "turns";
    const named = Object.entries({ "?!": "inaccuracies", "?": "mistakes", "??": "blunders" }).map(([mark, said]) => {
      const abbr = text("abbr", mark);
      abbr.title = said;
      return abbr;
    });
    const thead = tableHead(["Player", "Accuracy", "Decisions", turns ? "Turns lost" : "Points lost", "Luck", ...named]);
    const body = text("tbody");
    for (const r of analysis.reports) {
      const tr = text("tr");
      const who = text("th", null, "analysis-who");
      who.scope = "row";
      who.append(markSvg(r.seat, 16), names()[r.seat]);
      tr.append(who);
      const luck = turns ? -r.luck : r.luck; // alone, luck is turns saved: shown as turns gained or lost
      const cells = [r.accuracy === null ? "—" : r.accuracy.toFixed(1), String(r.decisions), turns ? r.loss.toFixed(2) : r.loss.toFixed(1),
        changeText(luck, analysis.units), String(r.grades.inaccuracy), String(r.grades.mistake), String(r.grades.blunder)];
      for (const c of cells) tr.append(text("td", c));
      body.append(tr);
    }
    table.append(caption, thead, body);
    return table;
  }

  // The biggest mistakes of each player, each a button to its position.
  function mistakes(analysis) {
    const items = [];
    for (const r of analysis.reports) {
      for (const ply of r.mistakes) {
        const li = text("li");
        const go = text("button", null, "link-button");
        go.type = "button";
        const d = byPly.get(ply).decision;
        go.append(markSvg(r.seat, 14), `Turn ${d.turn}: ${analysis.said.decisions[ply]}`);
        go.addEventListener("click", () => jump(ply));
        li.append(go);
        items.push(li);
      }
    }
    if (!items.length) return [];
    const list = text("ul", null, "analysis-mistakes");
    list.append(...items);
    return [text("h3", "Biggest mistakes"), list];
  }

  // ---------------------------------------------------------------- the graph
  function graph(analysis, width) {
    const W = Math.round(Math.min(1000, Math.max(300, width))), H = W < 480 ? 190 : 230, L = 40, R = 10, T = 12, B = 30;
    const points = analysis.points;
    const last = points[points.length - 1].ply || 1;
    const turns = analysis.units === "turns";
    const values = points.flatMap((p) => p.values.filter((v) => v !== null));
    const lo = turns ? Math.max(0, Math.floor(Math.min(...values)) - 1) : 0;
    const hi = turns ? Math.ceil(Math.max(...values)) + 1 : 100;
    const x = (ply) => L + (ply * (W - L - R)) / last;
    const y = (v) => T + ((hi - v) * (H - T - B)) / (hi - lo);
    const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "analysis-graph", role: "img" });
    const who = analysis.reports.map((r) => `${names()[r.seat]} from ${valueText(r.start, analysis.units)}`).join(", ");
    root.setAttribute("aria-label", turns
      ? `Expected turns to finish, event by event, from ${valueText(points[0].values[0], "turns")}; the table below gives it turn by turn.`
      : `Chance to win of each player, event by event: ${who}; the table below gives it turn by turn.`);
    const step = turns ? Math.max(1, Math.round((hi - lo) / 4)) : 25;
    for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) {
      svg("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid" }, root);
      svg("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end", class: "tick" }, root).textContent = turns ? String(v) : `${v}%`;
    }
    svg("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle", class: "tick" }, root).textContent =
      turns ? "event of the game · expected turns (fewer is better)" : "event of the game · chance to win";
    const seats = turns ? [0] : analysis.reports.map((r) => r.seat);
    for (const seat of seats) {
      let path = "";
      let drawing = false;
      for (const p of points) {
        const v = p.values[seat];
        if (v === null) { drawing = false; continue; }
        path += drawing ? ` H${x(p.ply).toFixed(1)} V${y(v).toFixed(1)}` : ` M${x(p.ply).toFixed(1)} ${y(v).toFixed(1)}`;
        drawing = true;
      }
      svg("path", { d: path.trim(), class: "analysis-line", stroke: SEATS[seat].colour, "stroke-dasharray": DASHES[seat] }, root);
    }
    // The graded mistakes, on their player's line: the mark chess players know.
    for (const d of analysis.decisions) {
      const mark = MARKS[d.grade];
      const point = byPly.get(d.ply) && byPly.get(d.ply).point;
      if (!mark || !point) continue;
      const v = point.values[turns ? 0 : d.seat];
      if (v === null) continue;
      const g = svg("g", { class: `analysis-flag ${d.grade}` }, root);
      svg("circle", { cx: x(d.ply), cy: y(v), r: 4, fill: SEATS[d.seat].colour }, g);
      svg("text", { x: x(d.ply), y: y(v) - 7, "text-anchor": "middle" }, g).textContent = mark;
      svg("title", {}, g).textContent = `${label(d.seat)}, turn ${d.turn}: ${analysis.said.decisions[d.ply]}`;
    }
    cursor = svg("line", { x1: x(0), x2: x(0), y1: T, y2: H - B, class: "analysis-cursor" }, root);
    cursor.dataset.scale = JSON.stringify({ L, R, W, last });
    // A click (or a tap) anywhere over the plot goes to the nearest event.
    const hit = svg("rect", { x: L, y: T, width: W - L - R, height: H - T - B, class: "analysis-hit" }, root);
    hit.addEventListener("click", (event) => {
      const box = root.getBoundingClientRect();
      const at = ((event.clientX - box.left) * W) / box.width;
      jump(Math.max(0, Math.min(last, Math.round(((at - L) * last) / (W - L - R)))));
    });
    return root;
  }

  function legend(analysis) {
    const list = text("ul", null, "analysis-legend");
    const seats = analysis.units === "turns" ? [0] : analysis.reports.map((r) => r.seat);
    for (const seat of seats) {
      const li = text("li");
      const sample = svg("svg", { width: 28, height: 10, "aria-hidden": "true" });
      svg("line", { x1: 1, x2: 27, y1: 5, y2: 5, stroke: SEATS[seat].colour, "stroke-width": 3, "stroke-dasharray": DASHES[seat] }, sample);
      li.append(sample, markSvg(seat, 14), names()[seat]);
      list.append(li);
    }
    return list;
  }

  let drawnAt = 0;
  function drawGraph(plot) {
    drawnAt = plot.clientWidth;
    if (!drawnAt) return; // hidden: drawn when it shows
    plot.replaceChildren(graph(data.analysis, drawnAt));
    if (shownPly >= 0) moveCursor(shownPly);
  }

  function moveCursor(ply) {
    if (!cursor) return;
    const { L, R, W, last } = JSON.parse(cursor.dataset.scale);
    const at = L + (Math.min(ply, last) * (W - L - R)) / last; // past an analysis that stopped early: at its end
    cursor.setAttribute("x1", at);
    cursor.setAttribute("x2", at);
  }

  // ---------------------------------------------------------------- the table
  // One row per turn (the server's words, as the command line's table has them): who played,
  // what (dice, choices, stops, with their marks), and every value once the turn is over;
  // each row a button to that point of the game.
  function table(analysis) {
    const box = text("details", null, "analysis-table-box");
    box.append(text("summary", "The graph as a table, turn by turn"));
    const t = text("table", null, "analysis-table");
    const turns = analysis.units === "turns";
    t.append(text("caption", turns ? "Each turn: what was played (?! inaccuracy, ? mistake, ?? blunder) and the expected turns once it was over"
      : "Each turn: what was played (?! inaccuracy, ? mistake, ?? blunder) and every player's chance to win once it was over", "sr-only"));
    const thead = tableHead(["Turn", "Player", "Play", ...(turns ? ["Expected turns"] : analysis.reports.map((r) => names()[r.seat]))]);
    const body = text("tbody");
    for (const row of analysis.said.turns) {
      const tr = text("tr");
      const go = text("button", String(row.turn), "link-button");
      go.type = "button";
      go.setAttribute("aria-label", `turn ${row.turn}: show the game there`);
      go.addEventListener("click", () => jump(row.last));
      const first = text("th");
      first.scope = "row";
      first.append(go);
      tr.append(first, text("td", names()[row.seat]), text("td", row.words));
      const point = byPly.get(row.last).point;
      for (const v of point ? point.values : []) tr.append(text("td", v === null ? "—" : valueText(v, analysis.units)));
      body.append(tr);
    }
    t.append(thead, body);
    const scroll = text("div", null, "analysis-table-scroll");
    scroll.append(t);
    box.append(scroll);
    return box;
  }

  // ---------------------------------------------------------------- a point
  const here = text("div", null, "analysis-here");
  here.setAttribute("aria-live", "polite");


  // The point after event `ply`: every value there; the decision or the roll that led to it
  // (the decision's every option with its value, the one played marked); and, where a roll
  // comes next, what it can bring.
  function showHere(ply, state) {
    const analysis = data.analysis;
    const end = analysis.points[analysis.points.length - 1].ply;
    const parts = [text("h3", ply ? `After event ${ply} of ${end}` : "The start")];
    const found = byPly.get(ply) || {};
    if (found.point) {
      const values = found.point.values.map((v, seat) => (v === null ? null : `${analysis.units === "turns" ? "expected" : names()[seat]} ${valueText(v, analysis.units)}`));
      parts.push(text("p", values.filter((v) => v !== null).join(" · "), "analysis-values"));
    } else if (analysis.stopped) {
      parts.push(text("p", analysis.stopped, "meta"));
    }
    const d = found.decision;
    if (d && d.options.length > 1) {
      const said = (o) => (o.action === d.chosen ? "played" : "");
      parts.push(text("p", `${names()[d.seat]} ${analysis.said.decisions[d.ply]}.`, `analysis-said ${d.grade}`),
        optionBars(d.options, analysis.units, said, d.chosen));
    } else if (d && d.chosen === "resign") {
      parts.push(text("p", `${names()[d.seat]} resigned: ${changeText(-d.loss, analysis.units)}.`, "analysis-said"));
    }
    if (found.roll) parts.push(text("p", `${names()[found.roll.seat]} ${analysis.said.rolls[ply]}.`, "analysis-said"));
    if (state && (state.phase === "roll" || state.phase === "decide") && state.winner === null) {
      const map = text("div", null, "rollmap");
      parts.push(text("h4", "What the next roll can bring"), map);
      const known = maps.get(ply);
      if (known) showRollMap(map, known);
      else {
        map.append(text("p", "Reading the roll map…", "meta"));
        loadRollMap(map, gameId, `?ply=${ply}`).then((read) => { if (read) maps.set(ply, read); });
      }
    }
    here.replaceChildren(...parts);
  }

  return {
    get ready() { return data !== null; },
    // Load the analysis (asking again while it is computed) and draw it in `section`.
    async load() {
      const said = text("p", "Reading the analysis…", "meta");
      section.replaceChildren(text("h2", "Analysis", "analysis-title"), said);
      section.hidden = false;
      try {
        data = await fetchAnalysis(gameId, (words) => { said.textContent = words; });
      } catch (error) {
        said.textContent = error.message;
        said.className = "error";
        return false;
      }
      const analysis = data.analysis;
      byPly = index(analysis);
      const title = text("h2", "Analysis", "analysis-title");
      title.id = "analysis-title";
      // A phone's width may not hold every column: the figures scroll sideways in a box of their own.
      const figures = text("div", null, "table-scroll");
      figures.tabIndex = 0;
      figures.setAttribute("role", "region");
      figures.setAttribute("aria-label", "each player's figures");
      figures.append(summaryTable(analysis));
      // Above the box, not its table's caption: a caption is as wide as the table, and would scroll away with it.
      const values = text("p", `Values: ${analysis.description}.`, "analysis-caption");
      const parts = [title, values, figures];
      if (analysis.stopped) parts.push(text("p", analysis.stopped, "meta"));
      const plot = text("div", null, "analysis-plot");
      parts.push(legend(analysis), plot, table(analysis), ...mistakes(analysis), here);
      section.replaceChildren(...parts);
      drawGraph(plot);
      // Drawn at the width of its box, so that its words keep their size: again when that changes much.
      new ResizeObserver(() => { if (Math.abs(plot.clientWidth - drawnAt) > 40) drawGraph(plot); }).observe(plot);
      section.dataset.ready = "true";
      return true;
    },
    // The frame of game version `version` is shown (its position `state`).
    show(version, state) {
      if (!data) return;
      const ply = plyAt(data.versions, version);
      moveCursor(ply);
      if (ply !== shownPly || !here.childElementCount) showHere(ply, state);
      shownPly = ply;
    },
    // The game version at which event `ply` was played (the replay's frame after it).
    version(ply) {
      return data.versions[Math.max(0, Math.min(ply, data.versions.length - 1))];
    },
    // What the analysis says of the move that made version `version`: its decision's grade and
    // sentence, its roll's luck; null where nothing is said.
    noteOf(version) {
      if (!data) return null;
      const ply = plyAt(data.versions, version);
      if (data.versions[ply] !== version || ply === 0) return null;
      const found = byPly.get(ply) || {};
      const analysis = data.analysis;
      return {
        ply,
        mark: found.decision && MARKS[found.decision.grade] ? MARKS[found.decision.grade] : "",
        grade: found.decision && found.decision.options.length > 1 ? GRADE_WORDS[found.decision.grade] : "",
        decision: found.decision ? analysis.said.decisions[ply] : "",
        luck: found.roll ? changeText(analysis.units === "turns" ? -found.roll.luck : found.roll.luck, analysis.units) : "",
        roll: found.roll ? analysis.said.rolls[ply] : "",
      };
    },
  };
}
