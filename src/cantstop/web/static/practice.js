// Practice: a position from the signed-in player's own analysed games where their decision cost
// them much, asked again (GET /api/practice); the answer is judged by the server, which then
// tells every option's chance and what was played in the game (POST /api/practice/answer).
import { api, nameChoice, text } from "./api.js";
import { SEATS, drawBoard, drawDice, markSvg } from "./board.js";
import { link } from "./lists.js";
import { optionBars } from "./analysis.js";
import { valueText } from "./rollmap.js";

const $ = (id) => document.getElementById(id);
let asked = null; // the position on show

function progressText(p) {
  if (!p.positions) return "";
  return `Answered ${p.answered} of ${p.positions} · right the last time: ${p.right}.`;
}

const ACTIONS = { roll: "Roll again", stop: "Stop" };

function question(position) {
  asked = position;
  const state = position.state;
  $("question").hidden = false;
  $("reveal").replaceChildren();
  $("next").hidden = true;
  drawBoard($("board"), state);
  drawDice($("dice"), state.phase === "choose" ? state.dice : null, state);
  const you = SEATS[position.seat].letter;
  $("ask").replaceChildren(markSvg(position.seat, 18), ` You are ${you}, turn ${position.turn}: `,
    text("strong", state.phase === "choose" ? "how do you play these dice?" : "roll again, or stop?"));
  $("choices").replaceChildren(...position.actions.map((action, i) => {
    const b = text("button", null, `button ${action === "stop" ? "stop" : action === "roll" ? "roll" : "choice"}`);
    b.type = "button";
    if (ACTIONS[action]) b.replaceChildren(text("kbd", action[0].toUpperCase()), ACTIONS[action]);
    else nameChoice(b, [text("kbd", String(i + 1)), text("span", action.split("+").join(" + "), "choice-columns")], `move ${action.split("+").join(" and ")}`);
    b.addEventListener("click", () => answer(action));
    return b;
  }));
  const first = $("choices").querySelector("button");
  if (first) first.focus({ preventScroll: true });
  document.body.dataset.ready = "true";
}

async function answer(action) {
  for (const b of $("choices").querySelectorAll("button")) b.disabled = true;
  let judged;
  try {
    judged = await api("/api/practice/answer", { method: "POST", body: { game: asked.game, ply: asked.ply, action } });
  } catch (error) {
    $("said").textContent = error.message;
    for (const b of $("choices").querySelectorAll("button")) b.disabled = false;
    return;
  }
  const units = judged.units;
  const best = judged.options[0];
  const verdict = judged.right
    ? text("p", `Right: ${action} ${judged.loss > 0 ? `is as good as the best, ${best.action}` : "is the best"} (${valueText(best.value, units)}).`, "practice-verdict right")
    : text("p", `Not the best: ${action} gives up ${units === "turns" ? `${judged.loss.toFixed(2)} turns` : `${judged.loss.toFixed(1)} points`} against ${best.action} (${valueText(best.value, units)}).`, "practice-verdict wrong");
  const said = (o) => [o.action === action ? "your answer" : "", o.action === judged.played ? "played in the game" : ""].filter(Boolean).join(", ");
  const list = optionBars(judged.options, units, said, action);
  const game = text("p", null, "meta");
  game.append("In the game you played ", text("strong", judged.played), ". ", link("See it in the game's analysis", null, `/game/${judged.game}#analysis`), ".");
  $("reveal").replaceChildren(verdict, list, game);
  $("progress").textContent = progressText(judged.progress);
  $("next").hidden = false;
  $("next").focus({ preventScroll: true });
}

async function load() {
  $("said").textContent = "";
  let found;
  try {
    found = await api("/api/practice");
  } catch (error) {
    $("question").hidden = true;
    if (error.data && error.data.error === "not_signed_in") {
      $("progress").replaceChildren("Practice is kept for your account: ", link("sign in", null, "/sign-in?next=/practice"), " or ",
        link("make an account", null, "/sign-up?next=/practice"), ".");
    } else $("said").textContent = error.message;
    document.body.dataset.ready = "true";
    return;
  }
  $("progress").textContent = progressText(found.progress);
  if (!found.position) {
    $("question").hidden = true;
    $("progress").textContent = found.progress.positions
      ? `${progressText(found.progress)} You have answered every position right: new ones come from your next analysed games.`
      : "No positions yet: they come from your analysed games (rated games are analysed as they end; open a friendly game's analysis from its summary).";
    document.body.dataset.ready = "true";
    return;
  }
  question(found.position);
}

// Keys as in a game: 1-9 a choice, R roll again, S stop.
document.addEventListener("keydown", (event) => {
  if (!asked || event.ctrlKey || event.metaKey || event.altKey || !$("next").hidden) return;
  const buttons = [...$("choices").querySelectorAll("button:enabled")];
  const i = /^[1-9]$/.test(event.key) ? Number(event.key) - 1 : asked.actions.indexOf({ r: "roll", s: "stop" }[event.key]);
  if (i >= 0 && buttons[i] && asked.state.phase === (/^[1-9]$/.test(event.key) ? "choose" : "decide")) buttons[i].click();
});

$("next").addEventListener("click", load);
load();
