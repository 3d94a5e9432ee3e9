// A small form in a modal dialog, shared by the pages' asks (a report, a challenge): its title,
// its fields, a line for a refusal, then Cancel and the button that sends it. Built once per
// page; `ask` opens it and waits.
import { text } from "./api.js";

// The dialog `${id}-dialog` (title `${id}-title`, refusal line `${id}-said`, send button
// `${id}-send`) holding `fields`, added to the page.
export function formDialog(id, title, fields, sendWords, sendClass) {
  const dialog = text("dialog", null, "dialog");
  dialog.id = `${id}-dialog`;
  dialog.setAttribute("aria-labelledby", `${id}-title`);
  const form = text("form", null, "account-form");
  form.method = "dialog";
  const heading = text("h2", title);
  heading.id = `${id}-title`;
  const said = text("p", null, "said error");
  said.id = `${id}-said`;
  said.setAttribute("role", "alert");
  const buttons = text("div", null, "row");
  const cancel = text("button", "Cancel", "button secondary");
  cancel.value = "cancel";
  cancel.formNoValidate = true;
  const send = text("button", sendWords, `button ${sendClass}`);
  send.value = "send";
  send.id = `${id}-send`;
  buttons.append(cancel, send);
  form.append(heading, ...fields, said, buttons);
  dialog.append(form);
  document.body.append(dialog);
  return dialog;
}

// Open `dialog` and wait: each time it is sent, `send()` runs; what it resolves to closes the
// dialog and is resolved, and what it throws is said in the dialog, which stays open to try
// again. Cancelled or closed (Escape), it resolves to null.
export function ask(dialog, send) {
  const said = dialog.querySelector(".said");
  said.textContent = "";
  dialog.showModal();
  return new Promise((resolve) => {
    const form = dialog.querySelector("form");
    async function submitted(event) {
      if (event.submitter && event.submitter.value === "cancel") return; // the dialog closes itself
      event.preventDefault();
      try {
        finish(await send());
      } catch (error) {
        said.textContent = error.message;
      }
    }
    function finish(result) {
      form.removeEventListener("submit", submitted);
      dialog.removeEventListener("close", closed);
      if (dialog.open) dialog.close();
      resolve(result);
    }
    function closed() { finish(null); }
    form.addEventListener("submit", submitted);
    dialog.addEventListener("close", closed);
  });
}
