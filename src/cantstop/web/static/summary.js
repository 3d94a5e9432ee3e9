// The end of a game: who won (or why it ended without a winner), each player's rating
// change and statistics, the game's biggest turn, and the replay and the record.
import { api, text } from "./api.js";
import { markSvg } from "./board.js";
import { link } from "./lists.js";

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

function headline(summary) {
  if (summary.ended) return summary.ended;
  const winner = summary.seats[summary.winner];
  if (summary.seats.length === 1) return `Finished in ${plural(summary.turns, "turn")}.`;
  return `${winner.display} won in ${plural(summary.turns, "turn")}.`;
}

// A change in rating points with a real minus sign: "+23", "−8", "±0".
const signed = (x) => `${x > 0 ? "+" : x < 0 ? "−" : "±"}${Math.abs(x)}`;

// "rating +23, now 1523?" (the mark: still provisional), or why there is none. A game counts
// less against an opponent met often this month, or whose rating is still provisional.
function ratingText(seat) {
  if (!seat.rating) return "not rated";
  const { weight } = seat.rating;
  const why = "the same players met often this month, or a provisional rating among them";
  const counted = weight === undefined || weight === 1 ? "" : weight === 0 ? ` (not counted: ${why})` : ` (counted ${weight}×: ${why})`;
  return `rating ${signed(seat.rating.change)}, now ${seat.rating.after}${seat.rating.provisional ? "?" : ""}${counted}`;
}

// One player: mark, name, how the game went for them; then their counts.
function item(seat, winner) {
  const li = text("li", null, "summary-seat");
  const who = text("p", null, "summary-who");
  who.append(markSvg(seat.seat, 16), text("span", seat.display || "open seat", "summary-name"));
  if (seat.seat === winner) who.append(text("span", "won", "tag"));
  if (seat.left) who.append(text("span", seat.left, "summary-left"));
  who.append(text("span", ratingText(seat), "summary-rating"));
  li.append(who);
  if (seat.turns !== undefined) {
    const columns = seat.columns.length ? `column${seat.columns.length === 1 ? "" : "s"} ${seat.columns.join(", ")}` : "no column";
    const best = seat.best ? `best turn ${plural(seat.best, "space")}` : "no turn kept";
    li.append(text("p", [plural(seat.turns, "turn"), plural(seat.rolls, "roll"), plural(seat.busts, "bust"), columns, best].join(" · "), "summary-counts"));
  }
  return li;
}

// Fill `box` (a <section>) with the summary of finished game `gameId`; `replay` starts the
// replay, `analyse` its analysis (for a game played to its end).
export async function showSummary(box, gameId, replay, analyse) {
  let summary;
  try {
    summary = await api(`/api/games/${gameId}/summary`);
  } catch {
    return false; // not finished after all, or offline: the next update tries again
  }
  const title = text("h2", headline(summary), "summary-title");
  title.id = "summary-title";
  const list = text("ul", null, "summary-seats");
  summary.seats.forEach((seat) => list.append(item(seat, summary.winner)));
  const parts = [title, list];
  if (summary.biggest) {
    const b = summary.biggest;
    parts.push(text("p", `Biggest turn: ${b.display}, turn ${b.turn}: ${plural(b.spaces, "space")} climbed.`, "summary-biggest"));
  }
  if (summary.record) {
    const again = text("button", "Replay this game", "button secondary");
    again.type = "button";
    again.addEventListener("click", replay);
    const record = link("Download the record", "button secondary", summary.record);
    record.setAttribute("download", "");
    const links = text("p", null, "summary-links");
    links.append(again);
    if (analyse && summary.status === "over") {
      const analysis = text("button", "Analyse this game", "button secondary");
      analysis.type = "button";
      analysis.addEventListener("click", analyse);
      links.append(analysis);
    }
    links.append(record);
    parts.push(links);
  }
  box.replaceChildren(...parts);
  box.hidden = false;
  return true;
}
