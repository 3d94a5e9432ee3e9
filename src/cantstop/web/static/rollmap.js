// The roll map: what the next roll can bring from a position about to roll, or deciding
// whether to. The server groups the rolls by the choices they offer (GET .../rollmap); this
// draws them: the bust's chance, rolling against stopping, and the likeliest groups.
import { api, text } from "./api.js";
import { tableHead } from "./lists.js";

const SHOWN = 10; // groups listed before "all of them"

// A value as people read it: a chance "58.2%", alone the expected turns "7.41 turns".
export function valueText(value, units) {
  return units === "turns" ? `${value.toFixed(2)} turns` : `${value.toFixed(1)}%`;
}

// A choice as the analysis writes it ("6+10") from the game's JSON ([6, 10]).
export function actionName(action) {
  return Array.isArray(action) ? action.join("+") : action;
}

// The words of an analysis's refusal, or of a server that cannot be asked.
function why(error) {
  return error.message || "The roll map could not be read.";
}

// Fill `box` with the roll map `found` (the server's JSON).
export function showRollMap(box, found) {
  const units = found.units;
  const head = text("p", null, "rollmap-head");
  head.append(text("strong", `Next roll busts: ${(100 * found.bust).toFixed(1)}%.`), " ");
  if (found.stop === null) head.append(`Rolling: ${valueText(found.roll, units)}.`);
  else head.append(`Rolling on: ${valueText(found.roll, units)}; stopping: ${valueText(found.stop, units)} — `, text("strong", found.advice), ".");
  const table = text("table", null, "rollmap-table");
  const caption = text("caption", units === "turns"
    ? "Each kind of roll: its chance, the best way to play it, and the expected turns after it"
    : "Each kind of roll: its chance, the best way to play it, and the chance to win after it", "sr-only");
  const thead = tableHead(["Chance", "E.g.", "Offers", "Best", "Then"]);
  const body = text("tbody");
  const rows = found.groups.map((g) => {
    const tr = text("tr", null, g.choices.length ? "" : "rollmap-bust");
    const cells = [`${(100 * g.chance).toFixed(1)}%`, g.example, g.choices.join(" ") || "bust", g.best || "—", valueText(g.value, units)];
    for (const c of cells) tr.append(text("td", c));
    return tr;
  });
  body.append(...rows.slice(0, SHOWN));
  table.append(caption, thead, body);
  const parts = [head, table];
  if (rows.length > SHOWN) {
    const more = text("button", `All ${rows.length} kinds of roll`, "button small secondary");
    more.type = "button";
    more.addEventListener("click", () => { body.append(...rows.slice(SHOWN)); more.remove(); });
    parts.push(more);
  }
  box.replaceChildren(...parts);
}

// Ask the server for the roll map at `query` ("" for the position on the table, "?ply=N" for a
// point of the game) and show it in `box`; a refusal's reason shows instead. Returns the map.
export async function loadRollMap(box, gameId, query = "") {
  try {
    const found = await api(`/api/games/${gameId}/rollmap${query}`);
    showRollMap(box, found);
    return found;
  } catch (error) {
    box.replaceChildren(text("p", why(error), "meta"));
    return null;
  }
}
