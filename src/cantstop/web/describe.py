"""What the browser is sent: a game as JSON, and each event as lines of the game log."""

from __future__ import annotations

from typing import Any, assert_never

from cantstop.core.notation import seat_letter, to_json
from cantstop.core.state import Phase, State
from cantstop.core.variant import Variant
from cantstop.table import Fault, Happening
from cantstop.table import happenings as kinds
from cantstop.table.wording import say
from cantstop.web.storage import StoredGame


# Each happening's entry in the log: its kind for the page, and what it carries besides the sentence.
def _extra(h: Happening) -> tuple[str, dict[str, Any]]:
    match h:
        case kinds.Rolled():
            return "roll", {"dice": list(h.dice)}
        case kinds.Busted():
            return "bust", {"dice": list(h.dice)}
        case kinds.Chose():
            return "choice", {"columns": list(h.choice)}
        case kinds.Stopped():
            return "stop", {}
        case kinds.Claimed():
            return "claim", {"columns": [h.column]}
        case kinds.Won():
            return "win", {}
        case kinds.FellBack():
            return ("timeout" if h.fault is Fault.TIMEOUT else "fallback"), {}
        case kinds.Forfeited():
            return "resign", {}
    assert_never(h)


def log_lines(happenings: list[Happening], names: list[str], variant: Variant) -> list[dict[str, Any]]:
    """The log entries of what moves did, in the table's own words (`table.wording`)."""
    lines = []
    for h in happenings:
        kind, extra = _extra(h)
        lines.append({"kind": kind, "seat": h.seat, "text": say(h, names, variant, brief=True), **extra})
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
