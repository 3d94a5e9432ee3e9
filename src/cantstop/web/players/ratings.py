"""Player ratings with openskill's Plackett-Luce model, which handles 2-4 player games."""

from __future__ import annotations

from openskill.models import PlackettLuce

from cantstop.core.state import State
from cantstop.web.db.storage import Storage
from cantstop.web.db.values import Rating

_MODEL = PlackettLuce()


def placings(state: State) -> list[int]:
    """Rank 1 for the winner; the others by columns claimed, then by spaces climbed."""
    def score(p: int) -> tuple[int, int]:
        return len(state.columns_won(p)), sum(state.pieces[p])

    order = sorted(range(state.num_players), key=lambda p: (p != state.winner, *(-x for x in score(p))))
    ranks = [0] * state.num_players
    for place, p in enumerate(order, 1):
        ranks[p] = place
    return ranks


def rate_game(storage: Storage, names: list[str], state: State, game_id: str | None = None) -> None:
    """Update the ratings of a finished game's players (bots are rated as 'bot:NAME'); with
    `game_id`, each player's new rating is kept as a point of their history too."""
    if state.num_players < 2 or state.winner is None or len(set(names)) < len(names):
        return  # solitaire has no opponents; one name in two seats would rate against itself
    known = storage.ratings(names)
    before = [known.get(n) or Rating(n, _MODEL.mu, _MODEL.sigma, 0, 0) for n in names]
    teams = [[_MODEL.create_rating([r.mu, r.sigma], name=r.name)] for r in before]
    after = _MODEL.rate(teams, ranks=[float(r) for r in placings(state)])
    storage.save_ratings(
        [
            Rating(r.name, team[0].mu, team[0].sigma, r.games + 1, r.wins + (seat == state.winner))
            for seat, (r, team) in enumerate(zip(before, after))
        ],
        game_id,
    )
