// The first-visit tour: a few scenes on a small board that the newcomer plays through —
// roll, choose, the bust, stopping, claiming. Skippable; once seen or skipped, remembered.
import { choiceLabel, nameChoice, text } from "./api.js";
import { drawBoard, drawDice } from "./board.js";

const SEEN = "cantstop-tour-done";
const HEIGHTS = [3, 5, 7, 9, 11, 13, 11, 9, 7, 5, 3];
const COLUMNS = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
const calm = matchMedia("(prefers-reduced-motion: reduce)");

const board = (runners = {}, pieces = {}, claimed = {}) => ({ heights: HEIGHTS, columns: COLUMNS, runners, pieces: [pieces], claimed, player: 0 });

// Each scene: what is said, the position shown, and the one thing to do (a button) with what follows it.
const SCENES = [
  {
    title: "Welcome to Can't Stop",
    // the count of steps is put in from SCENES itself below, so it cannot drift from them
    say: "Race up the eleven columns, one for each sum of two dice. Claim three columns to win. STEPS short steps show you how.",
  },
  {
    title: "1. Roll",
    say: "Every turn starts with a roll of four dice. Press Roll.",
    position: board(),
    act: "Roll",
    after: { dice: [6, 1, 3, 4], say: "Four dice. Next, you split them into two pairs." },
  },
  {
    title: "2. Choose",
    say: "Four dice pair up in three ways; each pair's total is a column. Hover over or focus a choice to see its pairs and where your runners (the white pieces) would go, then pick one.",
    position: board(),
    dice: [6, 1, 3, 4],
    choices: [
      { columns: [7, 7], pairs: "6+1 and 3+4", runners: { 7: 2 } },
      { columns: [5, 9], pairs: "6+3 and 1+4", runners: { 5: 1, 9: 1 } },
      { columns: [4, 10], pairs: "1+3 and 6+4", runners: { 4: 1, 10: 1 } },
    ],
  },
  {
    title: "3. The bust",
    say: "You have three runners a turn. Here they stand on 6, 7 and 8, none is free, and you roll again. Press Roll.",
    position: board({ 6: 3, 7: 4, 8: 2 }),
    act: "Roll",
    after: { dice: [1, 1, 1, 2], bust: true, position: board(), say: "1-1-1-2 makes only 2 and 3: no runner can move. Bust! The runners go back and this turn's progress is lost. Your pieces from earlier turns stay." },
  },
  {
    title: "4. Stop in time",
    say: "After each choice you may roll again or stop. Stopping turns your runners into your own pieces: that progress is safe for good. Press Stop.",
    position: board({ 6: 3, 7: 4, 8: 2 }),
    act: "Stop",
    after: { position: board({}, { 6: 3, 7: 4, 8: 2 }), say: "Safe: your pieces (red circles) hold those spaces. Next turn your runners start just above them." },
  },
  {
    title: "5. Claim a column",
    say: "Your runner is on the top space of column 12. Stop now to claim it.",
    position: board({ 12: 3, 7: 6 }, { 7: 4 }),
    act: "Stop",
    after: { position: board({}, { 7: 6 }, { 12: 0 }), say: "Column 12 is yours: nobody may play it again. Claim three columns and you win. Good luck!" },
  },
];

// The numbered steps after the welcome: the welcome names how many, the counter counts them.
const STEPS = SCENES.length - 1;
const NUMBERS = ["No", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine"];
SCENES[0].say = SCENES[0].say.replace("STEPS", NUMBERS[STEPS] ?? String(STEPS));

export const tourSeen = () => localStorage.getItem(SEEN) === "1";

// Show the tour in a modal dialog; it returns focus to the page when it closes.
export function startTour() {
  const dialog = text("dialog", null, "tour");
  dialog.setAttribute("aria-labelledby", "tour-title");
  const title = text("h2", null, "tour-title");
  title.id = "tour-title";
  const words = text("p", null, "tour-say");
  words.setAttribute("aria-live", "polite");
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("class", "tour-board");
  svg.setAttribute("role", "img");
  const dice = text("div", null, "dice tour-dice");
  const doing = text("div", null, "controls tour-controls");
  const steps = text("p", null, "tour-steps meta");
  const next = text("button", "Next", "button roll tour-next");
  const skip = text("button", "Skip the tour", "button secondary small tour-skip");
  for (const b of [next, skip]) b.type = "button";
  const nav = text("div", null, "tour-nav");
  nav.append(skip, steps, next);
  dialog.append(title, words, svg, dice, doing, nav);
  document.body.append(dialog);
  let index = 0;

  const close = () => {
    localStorage.setItem(SEEN, "1");
    dialog.close();
    dialog.remove();
  };
  const show = (position, shownDice = null, bust = false) => {
    svg.toggleAttribute("hidden", !position); // an SVG element has no `hidden` property
    if (position) {
      drawBoard(svg, position);
      svg.setAttribute("aria-label", describe(position));
    }
    drawDice(dice, shownDice, {}, null, !calm.matches && !!shownDice);
    if (bust) dice.append(text("span", "Bust!", "tour-bust"));
    svg.classList.toggle("shake", bust && !calm.matches);
  };

  function scene() {
    const s = SCENES[index];
    title.textContent = s.title;
    words.textContent = s.say;
    steps.textContent = index ? `Step ${index} of ${STEPS}` : "";
    next.textContent = index === SCENES.length - 1 ? "Play" : "Next";
    next.disabled = Boolean(s.act || s.choices);
    show(s.position, s.dice);
    doing.replaceChildren();
    if (s.act) {
      const b = text("button", s.act, `button ${s.act === "Stop" ? "stop" : "roll"}`);
      b.type = "button";
      b.addEventListener("click", () => {
        show(s.after.position || s.position, s.after.dice || s.dice, s.after.bust);
        words.textContent = s.after.say;
        doing.replaceChildren();
        next.disabled = false;
        next.focus();
      });
      doing.append(b);
      b.focus();
    }
    (s.choices || []).forEach((c, i) => {
      const b = text("button", null, "button choice");
      b.type = "button";
      nameChoice(b, [text("span", choiceLabel(c.columns), "choice-columns"), text("span", c.pairs.replaceAll(" and ", " · "), "choice-dice")],
        `move ${c.columns.join(" and ")}, from ${c.pairs}`);
      const preview = () => { drawBoard(svg, s.position, c.columns); };
      b.addEventListener("mouseenter", preview);
      b.addEventListener("focus", preview);
      b.addEventListener("click", () => {
        show(board(c.runners), s.dice);
        words.textContent = `Your runners moved: ${c.pairs}. Runners mark this turn's progress; it is not safe yet.`;
        doing.replaceChildren();
        next.disabled = false;
        next.focus();
      });
      doing.append(b);
      if (i === 0) b.focus();
    });
    if (!s.act && !s.choices) next.focus();
  }

  next.addEventListener("click", () => {
    if (index === SCENES.length - 1) return close();
    index += 1;
    scene();
  });
  skip.addEventListener("click", close);
  dialog.addEventListener("cancel", (event) => { event.preventDefault(); close(); }); // Escape skips too
  dialog.showModal();
  scene();
  document.body.dataset.tour = "open";
  dialog.addEventListener("close", () => { document.body.dataset.tour = "closed"; });
}

// The position in words, for a screen reader: runners, pieces and claims.
function describe(position) {
  const list = (o) => Object.entries(o).map(([c, s]) => `${c} (space ${s})`).join(", ");
  const parts = [];
  if (Object.keys(position.runners).length) parts.push(`runners on ${list(position.runners)}`);
  if (Object.keys(position.pieces[0]).length) parts.push(`your pieces on ${list(position.pieces[0])}`);
  if (Object.keys(position.claimed).length) parts.push(`you claimed ${Object.keys(position.claimed).join(", ")}`);
  return `The board: ${parts.join("; ") || "empty"}.`;
}

// On a first visit, the tour starts by itself.
export function tourOnFirstVisit() {
  if (!tourSeen()) startTour();
}
