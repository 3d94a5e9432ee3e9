// The tournaments: those taking entries, in play and finished, and (signed in) a form for a new one.
import { api, text } from "./api.js";
import { link, tournamentAbout as about, when } from "./lists.js";

const $ = (id) => document.getElementById(id);

function item(t) {
  const li = text("li");
  const progress = { open: `starts ${when(t.starts)}`, playing: `round ${t.round} of ${t.rounds}`, over: "finished", cancelled: "cancelled: too few players" }[t.status];
  li.append(link(t.name, null, t.url), text("span", `${about(t)} · ${progress}`, "meta"));
  return li;
}

function fill(id, list, empty) {
  $(id).replaceChildren(...(list.length ? list.map(item) : [text("li", empty, "meta")]));
}

async function load() {
  const found = await api("/api/tournaments");
  fill("open", found.open, "None taking entries: create one below.");
  fill("playing", found.playing, "None in play.");
  fill("finished", found.finished, "None finished yet.");
}

async function form() {
  const me = (await api("/api/account")).account;
  $("new-guest").hidden = me !== null;
  $("new").hidden = me === null;
  if (me === null) return;
  const { variants } = await api("/api/variants");
  $("t-variant").replaceChildren(...variants.filter((v) => v.max_players >= 2).map((v) => {
    const o = text("option", v.title);
    o.value = v.name;
    return o;
  }));
  const tomorrow = new Date(Date.now() + 86400000);
  tomorrow.setMinutes(0, 0, 0);
  const local = new Date(tomorrow.getTime() - tomorrow.getTimezoneOffset() * 60000);
  $("t-starts").value = local.toISOString().slice(0, 16);
  $("new").addEventListener("submit", async (event) => {
    event.preventDefault();
    $("new-error").textContent = "";
    const body = {
      name: $("t-name").value, variant: $("t-variant").value, seats: Number($("t-seats").value),
      rounds: Number($("t-rounds").value), capacity: Number($("t-capacity").value), clock: Number($("t-clock").value),
      rated: $("t-rated").checked, starts: new Date($("t-starts").value).toISOString(),
    };
    try {
      const made = await api("/api/tournaments", { method: "POST", body });
      location.href = made.url;
    } catch (error) {
      $("new-error").textContent = error.message;
    }
  });
}

await Promise.all([load(), form()]);
document.body.dataset.ready = "true";
