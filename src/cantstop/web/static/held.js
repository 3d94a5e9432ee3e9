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

export function dropSeat(gameId, seat) {
  const held = heldSeats(gameId);
  delete held[seat];
  localStorage.setItem(key(gameId), JSON.stringify(held));
}
