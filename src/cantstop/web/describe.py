"""What the browser is sent: a game as JSON, and each event as lines of the game log."""

from __future__ import annotations

from typing import Any

from cantstop.core.choices import format_choice
from cantstop.core.notation import format_dice, seat_letter, to_json
from cantstop.core.record import Event, Roll
from cantstop.core.state import STOP, Phase, State
from cantstop.web.storage import StoredGame


def log_lines(before: State, item: Event, after: State, names: list[str]) -> list[dict[str, Any]]:
    """The log entries one event makes: a roll (and a bust), a choice, a stop (claims, a win)."""
    who = names[before.player]
    if isinstance(item, Roll):
        lines = [{"kind": "roll", "seat": before.player, "text": f"{who} rolls {' '.join(format_dice(item))}", "dice": list(item)}]
        if after.turn != before.turn:
            lines.append({"kind": "bust", "seat": before.player, "text": f"{who} busts: {format_dice(item)} fits no column", "dice": list(item)})
        return lines
    if isinstance(item, tuple):
        return [{"kind": "choice", "seat": before.player, "text": f"{who} moves {format_choice(item)}", "columns": list(item)}]
    lines = [{"kind": "stop", "seat": before.player, "text": f"{who} stops"}] if item is STOP else []
    for c in before.variant.columns:
        if after.claimed[c] != before.claimed[c]:
            lines.append({"kind": "claim", "seat": before.player, "text": f"{who} claims column {c}", "columns": [c]})
    if after.is_over:
        verb = "finishes" if after.players == 1 else "wins"  # solitaire: the score is the turns taken
        lines.append({"kind": "win", "seat": after.player, "text": f"{names[after.player]} {verb} in {after.turn} turns"})
    return lines


def action_json(action: object) -> Any:
    return list(action) if isinstance(action, tuple) else str(action)


def state_json(state: State) -> dict[str, Any]:
    """The position with what a client needs to draw it and to offer the legal actions."""
    v = state.variant
    data = to_json(state)
    legal: list[Any] = [action_json(a) for a in state.legal_actions()]
    if state.phase is Phase.ROLL:
        legal = ["roll"]
    data.update(
        claimed={str(c): state.claimed[c] for c in v.columns if state.claimed[c] >= 0},
        legal=legal,
        runners_left=state.runners_left,
        winner=state.winner,
        heights=list(v.heights),
        columns=list(v.columns),
        to_win=v.to_win,
        runners_max=v.runners,
        wild_face=v.wild_face,
    )
    return data


def game_json(game: StoredGame, state: State | None, version: int) -> dict[str, Any]:
    """A game as every client sees it (no tokens: they never leave the server except once)."""
    return {
        "id": game.id,
        "variant": game.variant,
        "status": "over" if state is not None and state.is_over else game.status,
        "version": version,
        "created": game.created.isoformat(),
        "seats": [
            {"seat": s.seat, "letter": seat_letter(s.seat), "kind": s.kind, "bot": s.bot, "name": s.name}
            for s in game.seats
        ],
        "first": game.first,
        "rolloff": game.tags.get("RollOff"),
        "state": state_json(state) if state is not None else None,
        "rematch": game.rematch,
    }


def summary_json(game: StoredGame) -> dict[str, Any]:
    return {
        "id": game.id,
        "variant": game.variant,
        "status": game.status,
        "version": game.version,
        "created": game.created.isoformat(),
        "players": [s.name if s.kind != "open" else None for s in game.seats],
        "winner": game.winner,
    }
