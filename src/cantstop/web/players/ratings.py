"""Player ratings with openskill's Plackett-Luce model, which handles 2-4 player games."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from cantstop.core.record import Leave, Record
from cantstop.core.state import State
from cantstop.web.db.storage import Storage
from cantstop.web.db.values import Rating

_MODEL = PlackettLuce()


def left_order(record: Record) -> list[int]:
    """The seats that left the game (resigned, or forfeited on their clock), in the order they left."""
    return [event.seat for event in record.events if isinstance(event, Leave)]


def placings(state: State, left: Sequence[int] | None = None) -> list[int]:
    """Rank 1 for the winner; the others still playing by columns claimed, then by spaces
    climbed; the seats that left (`left`, in the order they left; by default `state.out`)
    come last, the one that stayed longest first among them."""
    gone = {seat: order for order, seat in enumerate(state.out if left is None else left)}

    def key(p: int) -> tuple[int, int, int]:
        if p in gone:
            return 2, -gone[p], 0
        return (0 if p == state.winner else 1), -len(state.columns_won(p)), -sum(state.pieces[p])

    ranks = [0] * state.num_players
    for place, p in enumerate(sorted(range(state.num_players), key=key), 1):
        ranks[p] = place
    return ranks


def rate_game(storage: Storage, names: list[str], state: State, game_id: str | None = None, left: Sequence[int] | None = None) -> None:
    """Update the ratings of a finished game's players (bots are rated as 'bot:NAME'); with
    `game_id`, each player's new rating is kept as a point of their history too. A seat that
    left (`left`, as `placings` reads it) is rated below every seat that stayed."""
    if state.num_players < 2 or state.winner is None or len(set(names)) < len(names):
        return  # solitaire has no opponents; one name in two seats would rate against itself
    known = storage.ratings(names)
    before = [known.get(n) or Rating(n, _MODEL.mu, _MODEL.sigma, 0, 0) for n in names]
    teams = [[_MODEL.create_rating([r.mu, r.sigma], name=r.name)] for r in before]
    after = _MODEL.rate(teams, ranks=[float(r) for r in placings(state, left)])
    storage.save_ratings(
        [
            Rating(r.name, team[0].mu, team[0].sigma, r.games + 1, r.wins + (seat == state.winner))
            for seat, (r, team) in enumerate(zip(before, after))
        ],
        game_id,
    )


@dataclass(frozen=True)
class RatingChange:
    """What one finished game did to a player's rating (the leaderboard's mu - 3 sigma)."""

    before: float
    after: float

    @property
    def change(self) -> float:
        return self.after - self.before


def rating_changes(storage: Storage, game_id: str, names: Sequence[str]) -> list[RatingChange | None]:
    """Each seat's rating change from finished game `game_id`, in seat order; None for a seat
    the game did not rate (an unrated game: solitaire, abandoned, one name in two seats).
    The one question the end of a game asks the ratings; blocking, like every storage call."""
    points = storage.rating_points(game_id, list(names))
    fresh = _MODEL.mu - 3 * _MODEL.sigma  # a player's rating before their first rated game
    found: list[RatingChange | None] = []
    for name in names:
        point = points.get(name)
        if point is None:
            found.append(None)
            continue
        before, after = point
        found.append(RatingChange(round(fresh if before is None else before.ordinal, 2), round(after.ordinal, 2)))
    return found
