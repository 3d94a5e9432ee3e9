// Moving a guest's seat to another device: the holder asks for a one-time link (it works once,
// for ten minutes); the device that opens it takes the seat, and this one holds it no more.
// A signed-in player needs none: their seat is their account's, on any device.
import { api, text } from "./api.js";

// Opened from a link (#seat=CODE): take the seat here. Returns a message to show, or "".
export async function takeSeatFromLink(gameId) {
  const found = /^#seat=([\w-]{1,100})$/.exec(location.hash);
  if (!found) return "";
  history.replaceState(null, "", location.pathname); // once: a reload does not try the used code again
  try {
    const joined = await api(`/api/games/${gameId}/seat-link/use`, { method: "POST", body: { code: found[1] } });
    return `This device plays seat ${"ABCD"[joined.seat]} now.`;
  } catch (error) {
    return error.message;
  }
}

// The "play on another device" panel inside `root`: `show(visible)` after each render.
export function createSeatLink(root, gameId) {
  const ask = text("button", "Play this seat on another device", "button small secondary");
  ask.type = "button";
  const field = text("input");
  Object.assign(field, { readOnly: true, hidden: true, id: "seat-link" });
  field.setAttribute("aria-label", "one-time link to this seat");
  const note = text("p", null, "meta");
  note.setAttribute("role", "status");
  root.append(ask, field, note);
  ask.addEventListener("click", async () => {
    try {
      const link = await api(`/api/games/${gameId}/seat-link`, { method: "POST", body: {} });
      field.value = `${location.origin}${link.url}`;
      field.hidden = false;
      field.select();
      note.textContent = `Open this link on the other device within ${link.minutes} minutes; it works once, and then this browser no longer holds the seat.`;
    } catch (error) {
      note.textContent = error.message;
    }
  });
  return {
    show(visible) {
      root.hidden = !visible;
      if (!visible) { field.hidden = true; field.value = ""; note.textContent = ""; }
    },
  };
}
