// The account pages: sign in (password or passkey), sign up, and the account itself.
import { api, text } from "./api.js";

const $ = (id) => document.getElementById(id);
const say = (message) => { $("form-error").textContent = message; };
const post = (path, body) => api(path, { method: "POST", body: body || {} });

// A form whose submit calls `act`; a refusal is shown and read out, nothing else changes.
function onSubmit(id, act) {
  $(id).addEventListener("submit", async (event) => {
    event.preventDefault();
    say("");
    try {
      await act();
    } catch (error) {
      say(error.message);
    }
  });
}

function onClick(id, act) {
  $(id).addEventListener("click", async () => {
    say("");
    try {
      await act();
    } catch (error) {
      say(error.name === "NotAllowedError" ? "the passkey was not used (cancelled or timed out)" : error.message);
    }
  });
}

const credentials = () => ({ name: $("name").value, password: $("password").value });
const toAccount = () => location.assign("/account");

async function passkeySignIn() {
  const { handle, options } = await post("/api/account/passkey-sign-in/options");
  const credential = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options) });
  await post("/api/account/passkey-sign-in", { handle, credential: credential.toJSON() });
  toAccount();
}

async function addPasskey() {
  const { handle, options } = await post("/api/account/passkeys/options");
  const credential = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) });
  await post("/api/account/passkeys", { handle, credential: credential.toJSON() });
  $("done").textContent = "The passkey is added: you can sign in with it.";
  await showAccount();
}

const day = (iso) => new Date(iso + "Z").toLocaleString();

async function showAccount() {
  const me = await api("/api/account");
  $("guest").hidden = me.account !== null;
  $("mine").hidden = me.account === null;
  if (me.account === null) return;
  $("who").textContent = me.account.name;
  $("profile").href = `/player/${encodeURIComponent(me.account.name)}`;
  $("webhook-url").value = me.webhook || "";
  $("webhook-test").disabled = $("webhook-remove").disabled = !me.webhook;
  $("since").textContent = `Playing here since ${day(me.account.created)}`;
  $("passkeys").replaceChildren(...(me.passkeys.length ? me.passkeys.map((k, i) => {
    const li = text("li", `Passkey ${i + 1}, added ${day(k.created)} `);
    const remove = text("button", "Remove", "button small secondary");
    remove.type = "button";
    remove.setAttribute("aria-label", `Remove passkey ${i + 1}`);
    remove.addEventListener("click", async () => {
      await api(`/api/account/passkeys/${encodeURIComponent(k.id)}`, { method: "DELETE" }).catch((e) => say(e.message));
      await showAccount();
    });
    li.append(remove);
    return li;
  }) : [text("li", "None yet.")]));
  $("sessions").replaceChildren(...me.sessions.map((s) => text("li", `Since ${day(s.created)}, from ${s.address}${s.this ? " (this browser)" : ""}`)));
}

const page = location.pathname;
if (page === "/sign-in") {
  onSubmit("sign-in", async () => { await post("/api/account/sign-in", credentials()); toAccount(); });
  onClick("passkey-sign-in", passkeySignIn);
} else if (page === "/sign-up") {
  onSubmit("sign-up", async () => { await post("/api/account/sign-up", credentials()); toAccount(); });
} else {
  await showAccount();
  onClick("sign-out", async () => { await post("/api/account/sign-out"); location.assign("/"); });
  onClick("sign-out-everywhere", async () => { await post("/api/account/sign-out-everywhere"); location.assign("/sign-in"); });
  onClick("add-passkey", addPasskey);
  onSubmit("change-password", async () => {
    const { ended } = await post("/api/account/password", { current: $("current").value, new: $("new-password").value });
    $("change-password").reset();
    $("done").textContent = `The password is changed; ${ended} other session${ended === 1 ? "" : "s"} signed out.`;
    await showAccount();
  });
  onSubmit("webhook", async () => {
    const hook = await api("/api/account/webhook", { method: "PUT", body: { url: $("webhook-url").value.trim() } });
    $("webhook-said").textContent = `Saved. Each delivery is signed with this secret, shown only now: ${hook.secret}`;
    await showAccount();
  });
  onClick("webhook-test", async () => {
    const tried = await post("/api/account/webhook/test");
    $("webhook-said").textContent = tried.ok ? `Delivered (HTTP ${tried.status}).` : `Not delivered: ${tried.reason}.`;
  });
  onClick("webhook-remove", async () => {
    await api("/api/account/webhook", { method: "DELETE" });
    $("webhook-said").textContent = "The webhook is removed.";
    await showAccount();
  });
  onSubmit("delete", async () => { await post("/api/account/delete", { password: $("delete-password").value }); location.assign("/"); });
}
document.body.dataset.ready = "true";
