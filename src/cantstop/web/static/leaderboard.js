// The leaderboards: people (accounts), bots, and the legacy names from before accounts, for
// games of two, three or four players (each number is rated apart), each row linking to its
// profile. People are listed once their rating is no longer provisional; signed in, each can be
// challenged from its row.
import { api } from "./api.js";
import { leaderRow, noneYet } from "./lists.js";
import { challengeButton } from "./challenges.js";

const BOARDS = { people: "Players", bots: "Bots", legacy: "Legacy ratings, from before accounts" };
const EMPTY = { bots: "No bot has played a rated game of this many players yet.", legacy: "No legacy rating of this many players." };
const query = new URLSearchParams(location.search);
const board = query.get("board") in BOARDS ? query.get("board") : "people";
const players = ["2", "3", "4"].includes(query.get("players")) ? query.get("players") : "2";
for (const a of document.querySelectorAll(".tabs a")) {
  const here = a.dataset.board ? a.dataset.board === board : a.dataset.players === players;
  if (here) a.setAttribute("aria-current", "page");
  // Each link keeps the other choice: the board's links the number of players, and the other way round.
  const target = new URLSearchParams({ board: a.dataset.board || board, players: a.dataset.players || players });
  a.href = `/leaderboard?${target}`;
}
document.getElementById("caption").textContent = `${BOARDS[board]} by rating, ${players}-player games`;
document.getElementById("legacy-note").hidden = board !== "legacy";
const [leaders, { account }] = await Promise.all([api(`/api/players?limit=200&board=${board}&players=${players}`), api("/api/account")]);
const said = document.getElementById("challenge-said");
const say = (words, failed) => {
  said.className = `said ${failed ? "error" : "meta"}`;
  said.textContent = words;
};
const rows = leaders.map((r, i) => {
  const tr = leaderRow(r, i);
  // Signed in, each other person on the people's board can be challenged from their row.
  if (board === "people" && account && r.name !== account.name) tr.children[1].append(" ", challengeButton(r.name, r.display || r.name, say));
  return tr;
});
document.getElementById("leaders").replaceChildren(...(rows.length ? rows : [board === "people" ? noneYet() : noneYet(EMPTY[board])]));
document.body.dataset.ready = "true";
