// Reporting a chat line or a player to the moderators: a dialog that asks why (built once, on
// any page that offers a report), sent to /api/social/reports. Only signed-in players report.
import { api, text } from "./api.js";

let dialog = null;

function build() {
  dialog = text("dialog", null, "dialog");
  dialog.id = "report-dialog";
  dialog.setAttribute("aria-labelledby", "report-title");
  const form = text("form", null, "account-form");
  form.method = "dialog";
  const title = text("h2", "Report");
  title.id = "report-title";
  const what = text("p", null, "report-what");
  what.id = "report-what";
  const label = text("label", "Why? The moderators read it.");
  const reason = document.createElement("textarea");
  Object.assign(reason, { id: "report-reason", maxLength: 500, rows: 3, required: true });
  label.append(reason);
  const said = text("p", null, "said error");
  said.id = "report-said";
  said.setAttribute("role", "alert");
  const buttons = text("div", null, "row");
  const cancel = text("button", "Cancel", "button secondary");
  cancel.value = "cancel";
  cancel.formNoValidate = true;
  const send = text("button", "Send the report", "button stop");
  send.value = "send";
  send.id = "report-send";
  buttons.append(cancel, send);
  form.append(title, what, label, said, buttons);
  dialog.append(form);
  document.body.append(dialog);
}

// Ask why, then report `about` ({ message: id } or { player: name }); `described` says what is
// reported. Resolves to the words to show afterwards, or null when cancelled.
export function report(about, described) {
  if (!dialog) build();
  const reason = document.getElementById("report-reason");
  document.getElementById("report-what").textContent = described;
  document.getElementById("report-said").textContent = "";
  reason.value = "";
  dialog.showModal();
  return new Promise((resolve) => {
    const form = dialog.querySelector("form");
    async function submitted(event) {
      if (event.submitter && event.submitter.value === "cancel") return; // the dialog closes itself
      event.preventDefault();
      try {
        await api("/api/social/reports", { method: "POST", body: { ...about, reason: reason.value } });
        finish("Reported: thank you. The moderators will look at it.");
      } catch (error) {
        document.getElementById("report-said").textContent = error.message;
      }
    }
    function finish(words) {
      form.removeEventListener("submit", submitted);
      dialog.removeEventListener("close", closed);
      if (dialog.open) dialog.close();
      resolve(words);
    }
    function closed() { finish(null); }
    form.addEventListener("submit", submitted);
    dialog.addEventListener("close", closed);
  });
}
