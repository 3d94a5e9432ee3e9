"""The end of a game as the players are shown it: who won and how the game ended, each
seat's rating change, turns, rolls, busts and columns, and the biggest single turn, with
links to the replay and the record. The counts are `core.summary`'s, the rating changes
the ratings room's (`players.ratings.rating_changes`)."""

from __future__ import annotations

from typing import Any

from cantstop.core.notation import seat_letter
from cantstop.core.summary import summarize
from cantstop.table import Kind
from cantstop.table.table import recorded_fault
from cantstop.web.errors import Conflict
from cantstop.web.games.describe import display_names
from cantstop.web.games.live import LiveGame, LiveGames
from cantstop.web.players.ratings import placings, rating_changes
from cantstop.web.players.standings import RatingChange


def how_left(game: LiveGame) -> dict[int, str]:
    """Seat -> how it left the game: 'resigned', or 'forfeited (timeout: ...)'."""
    found: dict[int, str] = {}
    for move in game.table.moves if game.table else ():
        if move.kind is Kind.RESIGN:
            fault, reason = recorded_fault(move.reason)
            found[move.seat] = "resigned" if fault is None else f"forfeited ({fault}: {reason})"
    return found


def summary_of(game: LiveGame, changes: list[RatingChange | None]) -> dict[str, Any]:
    """The summary of a finished game (won or abandoned); `changes` are the seats' rating changes."""
    meta, table = game.meta, game.table
    shown = display_names(game.names)
    links = {"replay": f"/game/{meta.id}#replay", "record": f"/api/games/{meta.id}/record"} if table else {"replay": None, "record": None}
    seats: list[dict[str, Any]] = [
        {"seat": s.seat, "letter": seat_letter(s.seat), "kind": s.kind, "name": s.name, "display": shown[s.seat]} for s in meta.seats
    ]
    if table is None:  # abandoned while it waited for players
        return {"id": meta.id, "status": meta.status, "ended": meta.ended, "winner": None, "turns": 0, "biggest": None,
                "seats": seats, **links}
    counted = summarize(table.record)
    left = how_left(game)
    ranks = placings(table.state) if table.winner is not None and len(seats) > 1 else None
    for number, (entry, seat, change) in enumerate(zip(seats, counted.seats, changes)):
        entry.update(
            turns=seat.turns, rolls=seat.rolls, busts=seat.busts, columns=list(seat.columns), best=seat.best,
            left=left.get(number), place=ranks[number] if ranks else None,
            rating=None if change is None else {"before": change.before, "after": change.after, "change": change.change,
                                                "weight": change.weight, "provisional": change.provisional},
        )
    biggest = counted.biggest
    return {
        "id": meta.id,
        "status": "over" if table.over else meta.status,
        "ended": meta.ended,
        "winner": table.winner,
        "turns": counted.turns,
        "biggest": None if biggest is None else {"seat": biggest.seat, "display": shown[biggest.seat], "turn": biggest.turn, "spaces": biggest.spaces},
        "seats": seats,
        **links,
    }


async def finished_summary(games: LiveGames, game_id: str) -> dict[str, Any]:
    """The summary of finished game `game_id`, its ratings written first; Conflict `not_over`
    while it is played, NotFound for no such game."""
    game = await games.live(game_id)
    async with game.lock:
        await games.refresh(game, seats=True)
    if not game.finished:
        raise Conflict("not_over", "a summary is for a finished game: this one is still being played")
    await games.ratings_written(game_id)  # the rating this process may be writing
    changes = await games.recorder.db(rating_changes, games.storage, game_id, game.names)
    if game.meta.rated and game.table is not None and game.table.winner is not None and not any(changes):
        # Not rated yet: another process is writing it, or one that stopped left it to the
        # sweep; whoever comes first writes it, once.
        await games.rate(game)
        changes = await games.recorder.db(rating_changes, games.storage, game_id, game.names)
    return summary_of(game, changes)
