"""Rating farming, measured: one account beating the same second account game after game,
with the server's weighting of a pair's repeated rated games and without it.

Run: `python benchmarks/farming.py [--per-day 1 2 4 8 20 100] [--days 30 365]`. No server and
no dice: the farmer wins every game, and each game moves both ratings by openskill's
Plackett-Luce update (as `web/players/ratings.py` does), weighted by `PAIR_WEIGHTS` as the
pair's k-th rated game within a window (the server's `PAIR_WINDOW`, 30 days; and a window
of one day, for comparison), or in full ("unweighted", as before accounts). It prints the
farmer's rating (mu - 3 sigma) after each number of days at each pace and, for scale,
where honest play puts a player: winning one game in two against fresh opponents, and
winning every game against fresh opponents (each a new account, which sign-up throttling
bounds).
"""

from __future__ import annotations

import argparse
from collections import deque

from openskill.models import PlackettLuce

from cantstop.web.db.values import Rating, RatingKind
from cantstop.web.players.ratings import PAIR_WEIGHTS, PAIR_WINDOW, weighted

MODEL = PlackettLuce()


def fresh() -> Rating:
    return Rating(RatingKind.PERSON, "", MODEL.mu, MODEL.sigma, 0, 0)


def game(a: Rating, b: Rating, a_wins: bool, weight: float) -> tuple[Rating, Rating]:
    teams = [[MODEL.create_rating([a.mu, a.sigma])], [MODEL.create_rating([b.mu, b.sigma])]]
    (na,), (nb,) = MODEL.rate(teams, ranks=[1.0, 2.0] if a_wins else [2.0, 1.0])
    return weighted(a, na.mu, na.sigma, weight, a_wins), weighted(b, nb.mu, nb.sigma, weight, not a_wins)


def farm(per_day: int, days: int, window: int | None) -> float:
    """The farmer's rating after `days` days of `per_day` wins a day over one partner, each
    game weighted by the pair's games within `window` days before it (None: unweighted)."""
    farmer, partner = fresh(), fresh()
    recent: deque[int] = deque()  # the day of each game within the window
    for day in range(days):
        while window is not None and recent and recent[0] <= day - window:
            recent.popleft()
        for _ in range(per_day):
            weight = 1.0 if window is None else PAIR_WEIGHTS[len(recent)] if len(recent) < len(PAIR_WEIGHTS) else 0.0
            farmer, partner = game(farmer, partner, True, weight)
            recent.append(day)
    return farmer.ordinal


def honest(games: int, every: int) -> float:
    """Rating after `games` games against fresh opponents, winning one in `every`."""
    player = fresh()
    for n in range(games):
        player, _ = game(player, fresh(), n % every == 0, 1.0)
    return player.ordinal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-day", type=int, nargs="+", default=[1, 2, 4, 8, 20, 100])
    parser.add_argument("--days", type=int, nargs="+", default=[1, 30, 365])
    args = parser.parse_args()
    window = PAIR_WINDOW.days
    print(f"pair weights: {', '.join(f'{w:g}' for w in PAIR_WEIGHTS)}, then 0; a fresh rating is {fresh().ordinal:.2f}")
    heads = [f"{d} days: {w}" for d in args.days for w in (f"{window}-day window", "1-day window", "unweighted")]
    print(f"| wins a day over one partner | {' | '.join(heads)} |")
    print("|---|" + "---|" * len(heads))
    for n in args.per_day:
        cells = [f"{farm(n, d, w):.2f}" for d in args.days for w in (window, 1, None)]
        print(f"| {n} | {' | '.join(cells)} |")
    for games in (20, 100):
        print(f"honest, {games} games against fresh opponents: winning half {honest(games, 2):.2f}, winning all {honest(games, 1):.2f}")


if __name__ == "__main__":
    main()
