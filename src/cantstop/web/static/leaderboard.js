// The leaderboards: people (accounts), bots, and the legacy names from before accounts, each
// row linking to its profile.
import { api } from "./api.js";
import { leaderRow, noneYet } from "./lists.js";

const BOARDS = { people: "Players by rating", bots: "Bots by rating", legacy: "Legacy ratings, from before accounts" };
const asked = new URLSearchParams(location.search).get("board");
const board = asked in BOARDS ? asked : "people";
for (const a of document.querySelectorAll(".tabs a")) {
  if (a.dataset.board === board) a.setAttribute("aria-current", "page");
}
document.getElementById("caption").textContent = BOARDS[board];
document.getElementById("legacy-note").hidden = board !== "legacy";
const leaders = await api(`/api/players?limit=200&board=${board}`);
document.getElementById("leaders").replaceChildren(...(leaders.length ? leaders.map(leaderRow) : [noneYet()]));
document.body.dataset.ready = "true";
