// Presence and the move clock on the game page: who has the game open, who is thinking,
// and how long the person to move has left. The server sends both (see games.py).

// A screen holding seats of people at it (tokens kept by the page) tells the server they are here.
export function announce(socket, held) {
  const tokens = Object.values(held);
  if (tokens.length && socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "present", tokens }));
}

// Marks on each seat of the list (one <li> per seat, in seat order).
export function markPresence(list, game, presence) {
  if (!presence) return;
  const connected = new Set(presence.connected);
  [...list.children].forEach((li, seat) => {
    const s = game.seats[seat];
    if (!s || s.kind === "open") return;
    const here = s.kind === "bot" || connected.has(seat); // a bot plays on the server: always there
    const dot = document.createElement("span");
    dot.className = `presence ${here ? "on" : "off"}`;
    dot.textContent = "●";
    dot.title = here ? "connected" : "not connected";
    dot.setAttribute("aria-label", dot.title);
    li.append(dot);
    if (presence.thinking === seat && game.status === "playing") {
      const mark = document.createElement("span");
      mark.className = "thinking";
      mark.textContent = "thinking…";
      li.append(mark);
    }
  });
}

// Seconds left as people read them: "1:05" within the hour, "11 h 59 min", "2 days 23 h".
export function timeLeft(seconds) {
  const days = Math.floor(seconds / 86400), hours = Math.floor((seconds % 86400) / 3600), minutes = Math.floor((seconds % 3600) / 60);
  if (days) return `${days} day${days === 1 ? "" : "s"} ${hours} h`;
  if (hours) return `${hours} h ${minutes} min`;
  return `${minutes}:${String(seconds % 60).padStart(2, "0")}`;
}

// A countdown under the status line while a person's move is timed.
export function createClock(after) {
  const el = document.createElement("p");
  el.id = "clock";
  el.className = "clock";
  el.hidden = true;
  after.after(el);
  let deadline = null; // in this browser's time
  let who = "";
  const tick = () => {
    if (deadline === null) return;
    const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    el.textContent = `${who}: ${timeLeft(left)} left for this move`;
    el.classList.toggle("low", left <= 10);
  };
  setInterval(tick, 250);
  return {
    // `skew`: the server's clock minus this browser's, from the message the game came in.
    show(game, name, skew, replaying) {
      const clock = game.clock;
      deadline = clock && clock.deadline !== null && !replaying ? clock.deadline - skew : null;
      el.hidden = deadline === null;
      who = name;
      tick();
    },
  };
}
