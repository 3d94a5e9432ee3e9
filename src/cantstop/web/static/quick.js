// Quick game: ask to be paired, wait (the time waited, the ratings accepted now, the bot offered
// after a while), and go to the game once paired. The page asks the server about its request
// again and again; each answer comes as soon as the request is paired, or after a few seconds.
import { api, text } from "./api.js";

const $ = (id) => document.getElementById(id);
const WAIT = 5; // seconds each look may wait for news
let me = null;
let looking = 0; // the current run of looks: a new one (or a cancel) ends the one before
let keptWaiting = false; // "Keep waiting" chosen: the offer stays away
let shown = null; // the last answer, and when it came
let ticker = null;

function minutes(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function showForm(message = "") {
  looking += 1;
  clearInterval(ticker);
  $("waiting").hidden = true;
  $("ask").hidden = false;
  $("q-error").textContent = message;
}

function tick() {
  if (!shown) return;
  const waited = shown.request.waited + (Date.now() - shown.at) / 1000;
  $("q-waited").textContent = `Waited ${minutes(waited)}`;
}

function showWaiting(request) {
  shown = { request, at: Date.now() };
  $("ask").hidden = true;
  $("waiting").hidden = false;
  const kind = request.rated ? "rated" : "friendly";
  $("q-what").textContent = `Looking for a ${kind} game: ${request.players} players, ${request.title}, ${request.clock_text} a move`;
  $("q-window").textContent = `You (${request.rating}) are paired with players rated ${request.rating - request.window} to ${request.rating + request.window}; the range widens as you wait.`;
  $("q-offer").hidden = !request.offer_bot || keptWaiting;
  tick();
}

async function follow(request) {
  const run = ++looking;
  clearInterval(ticker);
  ticker = setInterval(tick, 1000);
  showWaiting(request);
  for (;;) {
    let found;
    try {
      found = await api(`/api/pairing?wait=${WAIT}`);
    } catch (error) {
      if (run !== looking) return;
      $("q-said").textContent = error.message;
      await new Promise((resolve) => setTimeout(resolve, 2000));
      continue;
    }
    if (run !== looking) return;
    $("q-said").textContent = "";
    if (found.state === "paired") {
      $("q-said").textContent = "Paired: to the game…";
      location.href = found.url;
      return;
    }
    if (found.state !== "waiting") {
      showForm(found.state === "expired" ? "Your request ended: the page stopped asking about it." : "Your request was cancelled.");
      return;
    }
    showWaiting(found);
  }
}

async function ask(event) {
  event.preventDefault();
  $("q-error").textContent = "";
  const body = {
    variant: $("q-variant").value, players: Number($("q-players").value), clock: Number($("q-clock").value),
    rated: $("q-rated").checked,
  };
  if (me === null) {
    body.name = $("q-name").value.trim();
    try { localStorage.setItem("cantstop-name", body.name); } catch { /* private browsing: not kept */ }
  }
  try {
    keptWaiting = false;
    follow(await api("/api/pairing", { method: "POST", body }));
    $("q-cancel").focus();
  } catch (error) {
    $("q-error").textContent = error.message;
  }
}

async function cancel() {
  looking += 1;
  try {
    await api("/api/pairing", { method: "DELETE" });
    showForm();
    $("q-players").focus();
  } catch (error) {
    if (error.data && error.data.url) location.href = error.data.url; // paired meanwhile
    else $("q-said").textContent = error.message;
  }
}

async function bot() {
  looking += 1;
  try {
    const made = await api("/api/pairing/bot", { method: "POST", body: {} });
    location.href = made.url;
  } catch (error) {
    if (error.data && error.data.url) location.href = error.data.url;
    else $("q-said").textContent = error.message;
  }
}

function keepWaiting() {
  keptWaiting = true;
  $("q-offer").hidden = true;
  $("q-cancel").focus();
}

async function start() {
  me = (await api("/api/account")).account;
  const { variants } = await api("/api/variants");
  $("q-variant").replaceChildren(...variants.filter((v) => v.max_players >= 2).map((v) => {
    const o = text("option", v.title);
    o.value = v.name;
    return o;
  }));
  $("q-name-label").hidden = me !== null;
  $("q-name").required = me === null;
  $("q-rated").disabled = me === null;
  $("q-guest").hidden = me !== null;
  if (me === null) {
    try { $("q-name").value = localStorage.getItem("cantstop-name") || ""; } catch { /* none kept */ }
  }
  $("ask").addEventListener("submit", ask);
  $("q-cancel").addEventListener("click", cancel);
  $("q-bot").addEventListener("click", bot);
  $("q-keep").addEventListener("click", keepWaiting);
  let mine = null;
  try {
    mine = await api("/api/pairing");
  } catch { /* no request yet */ }
  if (mine && mine.state === "waiting") follow(mine);
  else showForm();
}

await start();
document.body.dataset.ready = "true";
