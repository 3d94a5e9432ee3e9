"""What the browser is sent: a game as JSON, and each event as lines of the game log."""

from __future__ import annotations

from typing import Any

from cantstop.bots import get_bot
from cantstop.core.choices import format_choice
from cantstop.core.dice import Dice
from cantstop.core.notation import seat_letter, to_json
from cantstop.core.record import Event, Roll
from cantstop.core.state import STOP, Phase, State
from cantstop.core.variant import Variant
from cantstop.web.storage import StoredGame
from cantstop.web.ways import roll_ways


def display_name(name: str | None) -> str | None:
    """What people read for a seat's name: a bot ('bot:rule28') by its display name."""
    if name and name.startswith("bot:"):
        try:
            return get_bot(name[4:]).display
        except ValueError:  # a bot this server no longer has: its name is all there is
            return name
    return name


def display_names(names: list[str]) -> list[str]:
    """Display names of a game's seats; two seats that would read alike get their seat letter."""
    shown = [display_name(n) or n for n in names]
    return [f"{s} {seat_letter(i)}" if shown.count(s) > 1 else s for i, s in enumerate(shown)]


def dice_text(dice: Dice, variant: Variant) -> str:
    """A roll as people write it, '4-6-2-6'; a wild die showing its turtle as 'T'."""
    wild = variant.wild_face
    return "-".join("T" if i < variant.wild_dice and d == wild else str(d) for i, d in enumerate(dice))


def log_lines(before: State, item: Event, after: State, names: list[str]) -> list[dict[str, Any]]:
    """The log entries one event makes: a roll (and a bust), a choice, a stop (claims, a win)."""
    names = display_names(names)
    who = names[before.player]
    if isinstance(item, Roll):
        shown = dice_text(item, before.variant)
        lines = [{"kind": "roll", "seat": before.player, "text": f"{who} rolls {shown}", "dice": list(item)}]
        if after.turn != before.turn:
            lines.append({"kind": "bust", "seat": before.player, "text": f"{who} busts: {shown} fits no column", "dice": list(item)})
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
        wild_dice=v.wild_dice,
        pairing=v.pairing.value,
        ways=[way.json() for way in roll_ways(state)],  # how the dice make each choice, as `legal`
    )
    return data


def game_json(game: StoredGame, state: State | None, version: int) -> dict[str, Any]:
    """A game as every client sees it (no tokens: they never leave the server except once)."""
    shown = display_names([s.name or "" for s in game.seats])
    return {
        "id": game.id,
        "variant": game.variant,
        "status": "over" if state is not None and state.is_over else game.status,
        "version": version,
        "created": game.created.isoformat(),
        "seats": [
            {"seat": s.seat, "letter": seat_letter(s.seat), "kind": s.kind, "bot": s.bot, "name": s.name,
             "display": shown[s.seat] if s.name else None}
            for s in game.seats
        ],
        "first": game.first,
        "rolloff": game.tags.get("RollOff"),
        "state": state_json(state) if state is not None else None,
        "rematch": game.rematch,
    }


def summary_json(game: StoredGame) -> dict[str, Any]:
    shown = display_names([s.name or "" for s in game.seats])
    return {
        "id": game.id,
        "variant": game.variant,
        "status": game.status,
        "version": game.version,
        "created": game.created.isoformat(),
        "players": [s.name if s.kind != "open" else None for s in game.seats],
        "display": [shown[s.seat] if s.kind != "open" else None for s in game.seats],
        "winner": game.winner,
    }
