// Reporting a chat line or a player to the moderators: a dialog that asks why (built once, on
// any page that offers a report), sent to /api/social/reports. Only signed-in players report.
import { api, text } from "./api.js";
import { ask, formDialog } from "./dialog.js";

let dialog = null;

function build() {
  const what = text("p", null, "report-what");
  what.id = "report-what";
  const label = text("label", "Why? The moderators read it.");
  const reason = document.createElement("textarea");
  Object.assign(reason, { id: "report-reason", maxLength: 500, rows: 3, required: true });
  label.append(reason);
  dialog = formDialog("report", "Report", [what, label], "Send the report", "stop");
}

// Ask why, then report `about` ({ message: id } or { player: name }); `described` says what is
// reported. Resolves to the words to show afterwards, or null when cancelled.
export function report(about, described) {
  if (!dialog) build();
  const reason = document.getElementById("report-reason");
  document.getElementById("report-what").textContent = described;
  reason.value = "";
  return ask(dialog, async () => {
    await api("/api/social/reports", { method: "POST", body: { ...about, reason: reason.value } });
    return "Reported: thank you. The moderators will look at it.";
  });
}
