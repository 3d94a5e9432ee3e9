// The tutor of a friendly game: before a decision of this screen's player is sent, the server
// values its options (GET .../tutor: the analysis's own numbers); a move that gives up more
// than the player's threshold is held back with the reason, to take it back or play it anyway.
// The threshold is the player's, kept in this browser.
import { api } from "./api.js";
import { actionName } from "./rollmap.js";

const KEY = "cantstop-tutor";
export const THRESHOLDS = [0, 1, 3, 5, 8, 12]; // points of chance to win (0: off)
const PATIENCE = 5000; // ms a move waits for the tutor's values before it goes without them

const later = (ms) => new Promise((done) => setTimeout(() => done(undefined), ms));
const ucfirst = (s) => s.charAt(0).toUpperCase() + s.slice(1);

export function createTutor(gameId, { select, dialog, said, note }) {
  let threshold = THRESHOLDS.includes(Number(localStorage.getItem(KEY))) ? Number(localStorage.getItem(KEY)) : 0;
  let asked = null; // { version, answer: a promise of the values, or of the refusal }

  select.replaceChildren(...THRESHOLDS.map((points) => {
    const option = document.createElement("option");
    option.value = String(points);
    option.textContent = points === 0 ? "off" : `warns past ${points} point${points === 1 ? "" : "s"}`;
    return option;
  }));
  select.value = String(threshold);
  select.addEventListener("change", () => {
    threshold = Number(select.value);
    localStorage.setItem(KEY, String(threshold));
    note("");
  });

  function prepare(version, headers) {
    if (threshold === 0 || (asked && asked.version === version)) return;
    asked = { version, answer: api(`/api/games/${gameId}/tutor`, { headers }).catch((error) => ({ refused: error.message })) };
  }

  return {
    // Offer the setting (a friendly game this screen plays in) or not.
    show(visible) {
      select.closest("label").hidden = !visible;
    },
    // Ask for the values of the decision at `version` ahead of the move (once a version).
    prepare,
    // Whether to send `action`, made at `version`: at once when the tutor is off or finds
    // nothing to say; else as the player answers the warning.
    async allows(action, version, headers) {
      if (threshold === 0) return true;
      prepare(version, headers);
      const values = await Promise.race([asked.answer, later(PATIENCE)]);
      if (values === undefined) {
        note("The tutor did not answer in time: your move went without its advice.");
        return true;
      }
      if (values.refused) {
        note(`The tutor cannot advise here: ${values.refused}`);
        return true;
      }
      if (values.version !== version) return true; // another position: the server judges the move
      const option = values.options.find((o) => o.action === actionName(action));
      if (!option || option.loss < threshold * values.point) return true;
      said.textContent = `${ucfirst(option.warning)}.`;
      dialog.returnValue = "";
      dialog.showModal();
      return new Promise((done) => dialog.addEventListener("close", () => done(dialog.returnValue === "play"), { once: true }));
    },
  };
}
