// Resigning: a button for the seats this screen plays, and a dialog that says what follows
// and asks first. The server decides: with two players the other wins; with more the seat
// leaves and play goes on; alone the game ends; before the start the seat opens again.
import { api, text } from "./api.js";

const $ = (id) => document.getElementById(id);

export function createResign(gameId, { tokenOf, resigned, failed }) {
  const open = $("resign-open"), dialog = $("resign-dialog"), who = $("resign-who"), what = $("resign-what");
  let game = null;
  let seats = []; // [{ seat, name }] this screen holds and that still play

  function consequence(seat) {
    if (!game.state) return "Your seat opens again for someone else to take; the game has not started.";
    const playing = game.seats.map((s) => s.seat).filter((s) => !(game.state.out || []).includes(s));
    if (playing.length <= 1) return "The game ends here, unfinished.";
    // Only a rated game moves ratings: a friendly one's dialog does not speak of them.
    if (playing.length === 2) {
      const other = game.seats[playing.find((s) => s !== seat)];
      return `${other.display || other.name} wins the game.${game.rated ? " A resignation counts as a loss in the ratings." : ""}`;
    }
    return `Your pieces come off the board and the others play on.${game.rated ? " You are ranked last in the ratings." : ""}`;
  }

  function describe() {
    const seat = Number(who.value);
    const name = (seats.find((s) => s.seat === seat) || {}).name || "";
    $("resign-title").textContent = seats.length > 1 ? "Resign?" : `Resign as ${name}?`;
    what.textContent = consequence(seat);
  }

  open.addEventListener("click", () => {
    who.replaceChildren(...seats.map((s) => { const o = text("option", s.name); o.value = s.seat; return o; }));
    $("resign-who-row").hidden = seats.length < 2;
    describe();
    dialog.showModal();
  });
  who.addEventListener("change", describe);
  dialog.addEventListener("close", async () => {
    if (dialog.returnValue !== "resign") return;
    const seat = Number(who.value);
    const token = tokenOf(seat);
    try {
      await api(`/api/games/${gameId}/resign`, { method: "POST", headers: token ? { authorization: `Bearer ${token}` } : {} });
      resigned(seat, !game.state);
    } catch (error) {
      failed(error);
    }
  });

  return {
    // `held`: the seats this screen plays, with their names.
    show(current, held) {
      game = current;
      const out = (game.state && game.state.out) || [];
      seats = held.filter((s) => !out.includes(s.seat));
      const live = game.status === "waiting" || (game.status === "playing" && game.state && game.state.winner === null);
      open.hidden = !live || seats.length === 0;
      if (open.hidden && dialog.open) dialog.close();
    },
  };
}
