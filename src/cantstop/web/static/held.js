// Seats this browser holds in a game, for people taking turns at one screen: seat → secret
// token, kept in localStorage under the game's id so that a reload keeps every one of them.
import { stored } from "./api.js";

const key = (gameId) => `cantstop-seats-${gameId}`;

export function heldSeats(gameId) {
  return stored(key(gameId), {});
}

export function holdSeats(gameId, taken) {
  const held = heldSeats(gameId);
  for (const t of taken) held[t.seat] = t.token;
  localStorage.setItem(key(gameId), JSON.stringify(held));
}

// A seat this screen holds no more (left before the start, or its token holds nothing): with
// the last one, the game's entry goes too, so nothing is kept (or sent) for it any more.
export function dropSeat(gameId, seat) {
  const held = heldSeats(gameId);
  delete held[seat];
  if (Object.keys(held).length) localStorage.setItem(key(gameId), JSON.stringify(held));
  else localStorage.removeItem(key(gameId));
}
