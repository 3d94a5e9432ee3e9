"""What the browser is sent: a game as JSON, and each event as lines of the game log."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import datetime
from typing import Any, assert_never

from cantstop.bots import get_bot
from cantstop.core.dice import Dice
from cantstop.core.errors import UnknownBotError
from cantstop.core.notation import action_json, seat_letter, to_json
from cantstop.core.record import Record
from cantstop.core.state import Phase, State
from cantstop.core.variant import Variant, variant_title
from cantstop.table import Fault, Happening
from cantstop.table import happenings as kinds
from cantstop.table.wording import say
from cantstop.web.db.values import GameStatus, SeatKind, StoredGame
from cantstop.web.games.ways import roll_ways


def display_name(name: str | None) -> str | None:
    """What people read for a seat's name: a bot ('bot:rule28') by its display name."""
    if name and name.startswith("bot:"):
        try:
            return get_bot(name[4:]).display
        except UnknownBotError:  # a bot this server no longer has: its name is all there is
            return name
    return name


def display_names(names: list[str]) -> list[str]:
    """Display names of a game's seats; two seats that would read alike get their seat letter."""
    shown = [display_name(n) or n for n in names]
    return [f"{s} {seat_letter(i)}" if shown.count(s) > 1 else s for i, s in enumerate(shown)]


SEATS_TAG = "Seats"  # the seats as the server knows them, in a downloaded record (the terminal game's tag)


def readable_record(record: Record) -> Record:
    """A game's record as people download it: its players by the names the page shows (a bot
    by its display name, 'Rule-of-28 bot'), as the terminal game writes them, and the seats
    as the server knows them ('Ann,bot:rule28') in the `Seats` tag, for programs."""
    return replace(record, players=display_names(record.players), tags={**record.tags, SEATS_TAG: ",".join(record.players)})


def dice_text(variant: Variant, dice: Dice) -> str:
    """A roll as people write it, '4-6-2-6'; a wild die showing its turtle as 'T'."""
    wild = variant.wild_face
    return "-".join("T" if i < variant.wild_dice and d == wild else str(d) for i, d in enumerate(dice))


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
    """The log entries of what moves did, in the table's own words (`table.wording`), the
    dice written '4-6-2-6' and bots called by their display names.

    A seat the table played for (its clock ran out, its bot failed) gets one entry: the move
    made, saying why, and marked `fell_back` with the fault; not a note and then the move."""
    shown = display_names(names)
    lines: list[dict[str, Any]] = []
    why: kinds.FellBack | None = None
    for h in happenings:
        if isinstance(h, kinds.FellBack):
            why = h
            continue
        kind, extra = _extra(h)
        text = say(h, shown, variant, brief=True, dice=dice_text, options=False)  # the choices are buttons
        if why is not None:
            text, extra = f"{why.reason[:1].upper()}{why.reason[1:]}: {text}", {**extra, "fell_back": why.fault.value}
            why = None
        lines.append({"kind": kind, "seat": h.seat, "text": text, **extra})
    if why is not None:  # a note with no move after it: it stands alone
        kind, extra = _extra(why)
        lines.append({"kind": kind, "seat": why.seat, "text": say(why, shown, variant, brief=True), **extra})
    return lines


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
        "status": GameStatus.OVER if state is not None and state.is_over else game.status,
        "version": version,
        "created": game.created.isoformat(),
        "seats": [
            {"seat": s.seat, "letter": seat_letter(s.seat), "kind": s.kind, "bot": s.bot, "name": s.name,
             "display": shown[s.seat] if s.name else None, "signed_in": s.account_id is not None}
            for s in game.seats
        ],
        "first": game.first,
        "rolloff": game.tags.get("RollOff"),
        "state": state_json(state) if state is not None else None,
        "rematch": game.rematch,
        "rated": game.rated,
        "ended": game.ended,  # why a game ended without a winner (abandoned), if it did
    }


def summary_json(game: StoredGame) -> dict[str, Any]:
    """A game as the game lists show it: its rules by `title` (the spec stays in `variant`)."""
    shown = display_names([s.name or "" for s in game.seats])
    return {
        "id": game.id,
        "variant": game.variant,
        "title": variant_title(game.variant),
        "status": game.status,
        "version": game.version,
        "created": game.created.isoformat(),
        "players": [s.name if s.kind is not SeatKind.OPEN else None for s in game.seats],
        "display": [shown[s.seat] if s.kind is not SeatKind.OPEN else None for s in game.seats],
        "winner": game.winner,
        "rated": game.rated,
    }


def seat_summary_json(game: StoredGame, seat: int, now: datetime, clock_scale: float = 1.0) -> dict[str, Any]:
    """A game as listed for one of its seats (your games, a profile's games under way): the
    seat, whether the move is its own (`your_turn`) and, on a move clock, the seconds it has
    left for that move (`left`), counted from the last stored move as the clock counts."""
    turn = game.status is GameStatus.PLAYING and game.to_move == seat
    listed = {**summary_json(game), "seat": seat, "your_turn": turn}
    if turn and game.clock and game.updated is not None:
        listed["left"] = max(0, math.ceil(game.clock * clock_scale - (now - game.updated).total_seconds()))
    return listed


def waiting_first(listed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Games as `seat_summary_json` lists them, those waiting for the seat's move first, the
    least time left first among them; otherwise in the order given (the last moved first)."""
    return sorted(listed, key=lambda g: (not g["your_turn"], "left" not in g, g.get("left", 0)))
