// The board drawn in SVG: columns of their true heights, pieces, runners, claims, previews.
const NS = "http://www.w3.org/2000/svg";
export const SEATS = [
  { colour: "#d62828", shape: "circle", letter: "A" },
  { colour: "#1d4ed8", shape: "square", letter: "B" },
  { colour: "#15803d", shape: "triangle", letter: "C" },
  { colour: "#b45309", shape: "diamond", letter: "D" },
];
const CELL = 34, GAP = 4, COL = 46, PAD = 14, LABEL = 30;

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

// A player's mark: coloured shape with the seat letter, so colour is never the only cue.
export function mark(seat, cx, cy, r, parent, extra = {}) {
  const s = SEATS[seat];
  const g = el("g", { class: `mark seat${seat}`, ...extra }, parent);
  const style = { fill: s.colour, stroke: "#fff", "stroke-width": 1.5 };
  if (s.shape === "circle") el("circle", { cx, cy, r, ...style }, g);
  else if (s.shape === "square") el("rect", { x: cx - r, y: cy - r, width: 2 * r, height: 2 * r, rx: 2, ...style }, g);
  else if (s.shape === "triangle") el("polygon", { points: `${cx},${cy - r * 1.15} ${cx + r * 1.1},${cy + r * 0.85} ${cx - r * 1.1},${cy + r * 0.85}`, ...style }, g);
  else el("polygon", { points: `${cx},${cy - r * 1.2} ${cx + r * 1.2},${cy} ${cx},${cy + r * 1.2} ${cx - r * 1.2},${cy}`, ...style }, g);
  const t = el("text", { x: cx, y: cy + r * 0.38, "text-anchor": "middle", "font-size": r * 1.05, fill: "#fff", "font-weight": 700 }, g);
  t.textContent = s.letter;
  return g;
}

export function markSvg(seat, size = 18) {
  const svg = el("svg", { width: size, height: size, viewBox: "0 0 20 20", class: "mark-icon", "aria-hidden": "true" });
  mark(seat, 10, 10, 8, svg);
  return svg;
}

// Geometry: columns centred on one line, like the diamond of the real board.
function layout(heights) {
  const tallest = Math.max(...heights);
  const rows = tallest * (CELL + GAP);
  const width = PAD * 2 + heights.length * COL;
  const height = PAD * 2 + rows + LABEL * 2;
  const cell = (i, space) => {
    // space 1 is the bottom; offset centres each column vertically.
    const h = heights[i];
    const offset = ((tallest - h) * (CELL + GAP)) / 2;
    const x = PAD + i * COL + (COL - CELL) / 2;
    const y = PAD + LABEL + offset + (h - space) * (CELL + GAP);
    return { x, y, cx: x + CELL / 2, cy: y + CELL / 2 };
  };
  return { width, height, cell, tallest };
}

// Draw `state` (the server's JSON) into `svg`; `preview` is a choice whose runners to ghost.
export function drawBoard(svg, state, preview = null, flash = null) {
  const heights = state.heights, columns = state.columns;
  const { width, height, cell } = layout(heights);
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.replaceChildren();
  el("rect", { x: 0, y: 0, width, height, rx: 18, class: "board-bg" }, svg);
  const ghost = ghostRunners(state, preview);
  columns.forEach((c, i) => {
    const h = heights[i];
    const owner = state.claimed[String(c)];
    const group = el("g", { class: `column${flash && flash.includes(c) ? " flash" : ""}`, "data-column": c }, svg);
    const top = cell(i, h), bottom = cell(i, 1);
    el("rect", {
      x: top.x - 4, y: top.y - 4, width: CELL + 8, height: bottom.y - top.y + CELL + 8, rx: 10,
      class: "column-bg", fill: owner !== undefined ? SEATS[owner].colour : "none",
      "fill-opacity": owner !== undefined ? 0.35 : 0,
    }, group);
    for (let space = 1; space <= h; space++) {
      const p = cell(i, space);
      el("rect", { x: p.x, y: p.y, width: CELL, height: CELL, rx: 6, class: space === h ? "space top" : "space" }, group);
    }
    for (const [y, cls] of [[top.y - LABEL / 2 - 4, "label top-label"], [bottom.y + CELL + LABEL / 2 + 6, "label"]]) {
      const t = el("text", { x: top.cx, y, "text-anchor": "middle", class: cls }, group);
      t.textContent = c;
    }
    // Pieces: spread in the corners of their space when several share it.
    const here = {};
    state.pieces.forEach((row, seat) => {
      const space = row[String(c)];
      if (space) (here[space] ||= []).push(seat);
    });
    for (const [space, seats] of Object.entries(here)) {
      const p = cell(i, Number(space));
      const spots = seats.length === 1 ? [[0, 0]] : [[-8, -8], [8, 8], [8, -8], [-8, 8]];
      seats.forEach((seat, k) => mark(seat, p.cx + spots[k][0], p.cy + spots[k][1], seats.length === 1 ? 11 : 7.5, group));
    }
    const runner = state.runners[String(c)];
    if (runner) runnerAt(group, cell(i, runner), "runner");
    if (ghost[c] && ghost[c] !== runner) runnerAt(group, cell(i, ghost[c]), "runner ghost");
    if (owner !== undefined) {
      const p = cell(i, h);
      mark(owner, p.cx, p.cy, 13, group, { class: `mark seat${owner} claim` });
    }
  });
  return svg;
}

function runnerAt(parent, p, cls) {
  const g = el("g", { class: cls }, parent);
  el("path", { d: `M${p.cx - 10},${p.cy + 11} L${p.cx - 6},${p.cy - 6} A6,6 0 1 1 ${p.cx + 6},${p.cy - 6} L${p.cx + 10},${p.cy + 11} Z` }, g);
}

// A small runner for the panel: white while free, grey once on the board this turn.
export function runnerIcon(free) {
  const svg = el("svg", { width: 16, height: 18, viewBox: "0 0 24 26", class: `runner-icon${free ? "" : " used"}`, "aria-hidden": "true" });
  runnerAt(svg, { cx: 12, cy: 13 }, "runner");
  return svg;
}

// Where runners would stand after `choice` (a list of columns), capped at each top.
export function ghostRunners(state, choice) {
  const out = {};
  if (!choice) return out;
  const me = state.pieces[state.player] || {};
  for (const c of choice) {
    const i = state.columns.indexOf(c);
    const from = out[c] || state.runners[String(c)] || me[String(c)] || 0;
    out[c] = Math.min(state.heights[i], from + 1);
  }
  return out;
}

const PIPS = { 1: [[2, 2]], 2: [[1, 1], [3, 3]], 3: [[1, 1], [2, 2], [3, 3]], 4: [[1, 1], [1, 3], [3, 1], [3, 3]],
  5: [[1, 1], [1, 3], [2, 2], [3, 1], [3, 3]], 6: [[1, 1], [1, 2], [1, 3], [3, 1], [3, 2], [3, 3]] };

// Whether die `i` of a roll shows the wild turtle (Turtles: the wild-carrying dice only).
export function isWild(state, i, d) {
  return state.wild_face !== null && state.wild_face !== undefined && i < (state.wild_dice ?? 4) && d === state.wild_face;
}

// One die as an SVG: pips, or a turtle shell for a wild face.
export function dieSvg(d, wild, size = null) {
  const svg = el("svg", { viewBox: "0 0 40 40", class: "die" });
  if (size) { svg.setAttribute("width", size); svg.setAttribute("height", size); }
  el("rect", { x: 2, y: 2, width: 36, height: 36, rx: 7, class: "die-face" }, svg);
  if (wild) {
    el("ellipse", { cx: 19, cy: 22, rx: 11, ry: 8, class: "turtle" }, svg);
    el("circle", { cx: 32, cy: 19, r: 3.5, class: "turtle" }, svg);
  } else if (PIPS[d]) {
    for (const [x, y] of PIPS[d]) el("circle", { cx: x * 9 + 2, cy: y * 9 + 2, r: 3.6, class: "pip" }, svg);
  } else {
    const t = el("text", { x: 20, y: 27, "text-anchor": "middle", "font-size": 20, class: "pip" }, svg);
    t.textContent = d;
  }
  return svg;
}

// The four dice of a roll. With `way` (how a choice is made, see web/ways.py) each die is
// marked with its pair (or as the relay captain), and a wild die with the value it counts as.
export function drawDice(container, dice, state = {}, way = null, tumble = false) {
  container.replaceChildren();
  if (!dice) return;
  const role = dice.map(() => null);
  if (way) way.pairs.forEach((pair, k) => pair.forEach((i) => { if (i !== way.captain) role[i] = k; }));
  dice.forEach((d, i) => {
    const wild = isWild(state, i, d);
    const box = document.createElement("span");
    box.className = "die-box";
    if (way && way.captain === i) box.classList.add("captain");
    else if (role[i] !== null) box.classList.add(`pair${role[i]}`, ...(way.used[role[i]] ? [] : ["unused"]));
    const svg = dieSvg(d, wild);
    if (tumble) svg.classList.add("tumble");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", wild ? `die ${d}, a turtle: any value` : `die ${d}`);
    box.append(svg);
    if (way && way.captain === i) {
      const badge = document.createElement("span");
      badge.className = "counts captain-badge";
      badge.textContent = "captain";
      box.append(badge);
    }
    if (way && wild) {
      const counts = document.createElement("span");
      counts.className = "counts";
      counts.textContent = `=${way.values[i]}`;
      box.append(counts);
    }
    container.append(box);
  });
}

// How a choice is made, in words: "6+2 = 8, 2+1 = 3" (a sum that cannot be played is said so).
export function wayText(way, state = {}) {
  if (!way) return "";
  const parts = way.pairs.map(([a, b], k) => {
    const sum = `${way.values[a]}+${way.values[b]} = ${way.sums[k]}`;
    return way.used[k] ? sum : `${sum} (not playable)`;
  });
  const lead = way.captain !== null && way.captain !== undefined ? `captain die ${way.captain + 1}: ` : "";
  const wild = (state.dice || []).map((d, i) => (isWild(state, i, d) ? `turtle counts as ${way.values[i]}` : null)).filter(Boolean);
  return lead + parts.join(", ") + (wild.length ? ` (${wild.join(", ")})` : "");
}
