// The account pages: sign in (password or passkey), sign up, and the account itself.
import { api, text } from "./api.js";

const $ = (id) => document.getElementById(id);
const post = (path, body) => api(path, { method: "POST", body: body || {} });

// One message at a time, in the card of what was done: the account page is long, and a
// message at its top would be out of sight of a form further down. A new message replaces
// the last, wherever it was, so a refusal never sits beside an older success.
function say(message, from = null, failed = true) {
  for (const old of document.querySelectorAll(".said")) old.textContent = "";
  const card = from && from.closest("section");
  const where = (card && card.querySelector(".said")) || $("form-error");
  where.className = `said ${failed ? "error" : "meta"}`;
  where.textContent = message;
}

// A form whose submit calls `act`; a refusal is shown and read out, nothing else changes.
function onSubmit(id, act) {
  $(id).addEventListener("submit", async (event) => {
    event.preventDefault();
    say("", $(id));
    try {
      await act();
    } catch (error) {
      say(error.message, $(id));
    }
  });
}

function onClick(id, act) {
  $(id).addEventListener("click", async () => {
    say("", $(id));
    try {
      await act();
    } catch (error) {
      say(passkeyTrouble(error), $(id));
    }
  });
}

// Browsers bind a passkey to the site's name, so at a bare IP address they refuse every one.
const atAddress = /^[\d.]+$|^\[/.test(location.hostname);

function addressHint() {
  const port = location.port ? `:${location.port}` : "";
  const local = ["127.0.0.1", "[::1]"].includes(location.hostname) ? `: open ${location.protocol}//localhost${port}${location.pathname} instead` : "";
  return `Passkeys need this site's name, not its address ${location.hostname}${local}.`;
}

// What a browser's refusal of a passkey means, in words (its own messages speak of "relying parties").
function passkeyTrouble(error) {
  if (error.name === "NotAllowedError") return "the passkey was not used (cancelled or timed out)";
  if (error.name === "InvalidStateError") return "this device already holds a passkey of this account: it signs you in as it is";
  if (error.name === "SecurityError") return addressHint();
  return error.message;
}

// At an IP address a passkey button can only fail: it is greyed, with the reason beside it.
function passkeyButton(id) {
  if (!atAddress) return;
  $(id).disabled = true;
  const why = text("p", addressHint(), "meta passkey-hint");
  $(id).after(why);
}

const credentials = () => ({ name: $("name").value, password: $("password").value });

// Where to go once signed in: the page of this site that sent here (`?next=/game/ID`), else
// the account. Read as a URL against this site, so `//elsewhere` or `/\elsewhere` go nowhere else.
function nextPage() {
  const next = new URLSearchParams(location.search).get("next");
  if (!next || !next.startsWith("/")) return "/account";
  const url = new URL(next, location.origin);
  return url.origin === location.origin ? url.pathname + url.search + url.hash : "/account";
}
const toAccount = () => location.assign(nextPage());

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
  await showAccount();
  say("The passkey is added: you can sign in with it.", $("add-passkey"), false);
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
  // What the moderators decided, with their reason: shown to the account itself.
  const standing = me.standing || {};
  const decided = [["silenced", "silenced: you cannot write in the chat"], ["suspended", "suspended: you cannot start or join games"]]
    .filter(([kind]) => standing[kind])
    .map(([kind, words]) => `The moderators have ${words}${standing[kind].until ? ` until ${standing[kind].until.replace("T", " ")} UTC` : ""}. Their reason: ${standing[kind].reason}`);
  $("standing").hidden = !decided.length;
  $("standing").textContent = decided.join(" ");
  $("passkeys").replaceChildren(...(me.passkeys.length ? me.passkeys.map((k, i) => {
    const li = text("li", `Passkey ${i + 1}, added ${day(k.created)} `);
    const remove = text("button", "Remove", "button small secondary");
    remove.type = "button";
    remove.setAttribute("aria-label", `Remove passkey ${i + 1}`);
    remove.addEventListener("click", async () => {
      await api(`/api/account/passkeys/${encodeURIComponent(k.id)}`, { method: "DELETE" }).catch((e) => say(e.message, $("add-passkey")));
      await showAccount();
    });
    li.append(remove);
    return li;
  }) : [text("li", "None yet.")]));
  $("sessions").replaceChildren(...me.sessions.map((s) => text("li", `Since ${day(s.created)}, from ${s.address}${s.this ? " (this browser)" : ""}`)));
}

const page = location.pathname;
// Between signing in and making an account, the page to go back to goes along.
for (const a of document.querySelectorAll("a[href='/sign-in'], a[href='/sign-up']")) {
  if (location.search.includes("next=") && a.closest("main")) a.href += location.search;
}
if (page === "/sign-in") {
  onSubmit("sign-in", async () => { await post("/api/account/sign-in", credentials()); toAccount(); });
  onClick("passkey-sign-in", passkeySignIn);
  passkeyButton("passkey-sign-in");
} else if (page === "/sign-up") {
  onSubmit("sign-up", async () => { await post("/api/account/sign-up", credentials()); toAccount(); });
} else {
  await showAccount();
  onClick("sign-out", async () => { await post("/api/account/sign-out"); location.assign("/"); });
  onClick("sign-out-everywhere", async () => { await post("/api/account/sign-out-everywhere"); location.assign("/sign-in"); });
  onClick("add-passkey", addPasskey);
  passkeyButton("add-passkey");
  onSubmit("change-password", async () => {
    const { ended } = await post("/api/account/password", { current: $("current").value, new: $("new-password").value });
    $("change-password").reset();
    await showAccount();
    say(`The password is changed; ${ended} other session${ended === 1 ? "" : "s"} signed out.`, $("change-password"), false);
  });
  onSubmit("webhook", async () => {
    const hook = await api("/api/account/webhook", { method: "PUT", body: { url: $("webhook-url").value.trim() } });
    await showAccount();
    say(`Saved. Each delivery is signed with this secret, shown only now: ${hook.secret}`, $("webhook"), false);
  });
  onClick("webhook-test", async () => {
    const tried = await post("/api/account/webhook/test");
    say(tried.ok ? `Delivered (HTTP ${tried.status}).` : `Not delivered: ${tried.reason}.`, $("webhook"), !tried.ok);
  });
  onClick("webhook-remove", async () => {
    await api("/api/account/webhook", { method: "DELETE" });
    await showAccount();
    say("The webhook is removed.", $("webhook"), false);
  });
  onSubmit("delete", async () => { await post("/api/account/delete", { password: $("delete-password").value }); location.assign("/"); });
}
document.body.dataset.ready = "true";
