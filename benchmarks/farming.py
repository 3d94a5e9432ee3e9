"""Rating farming, measured: one account beating the same second account game after game,
and one account fed by five fresh accounts that lose to it on purpose, in a field of honest
players, under the server's rules.

Run: `python benchmarks/farming.py [--per-day 1 2 4 8 20 100] [--days 1 30 365] [--seeds 5]`.
No server and no dice: every game is rated as `web/players/ratings.py` rates it (openskill's
Plackett-Luce update, weighted by `PAIR_WEIGHTS` as the pair's k-th rated game within
`PAIR_WINDOW` and by the trust its opponents deserve, `players.scale.trust`), on the scale
people read (`players.scale.shown`).

1. A pair: the farmer beats one partner `--per-day` times a day for `--days` days, weighted
   by a 30-day window, a 1-day one (tried first), or not at all (before accounts); its rating.
2. Fresh accounts: a field of 40 honest players (strengths drawn around 1500, sd 200 on Elo's
   scale) plays `--field-days` days, a game a day each against a random player or, one time
   in ten, one of seven bots (1000 to 2000); each day the farmer (strength 1500) beats each
   of five fresh feeders once. Where the farmer ends on the leaderboard (only ratings no
   longer provisional are listed), with today's rules and with those before trust (every
   game counting in full, nobody provisional, ranked by mu - 3 sigma as then): fed alone, and
   fed and then, from half-way, playing the bots until it leaves provisional. For scale,
   where the same player ends without feeders. Medians over `--seeds` fields.
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections import deque
from dataclasses import dataclass, field, replace

from openskill.models import PlackettLuce

from cantstop.web.db.values import Rating, RatingKind
from cantstop.web.players import scale
from cantstop.web.players.ratings import PAIR_WEIGHTS, PAIR_WINDOW, trusted, weighted

MODEL = PlackettLuce()
BOT_STRENGTHS = (1000, 1200, 1450, 1600, 1750, 1900, 2000)


def fresh(kind: RatingKind = RatingKind.PERSON) -> Rating:
    return Rating(kind, "", MODEL.mu, MODEL.sigma, 0, 0)


def pair_weight(games_in_window: int) -> float:
    return PAIR_WEIGHTS[games_in_window] if games_in_window < len(PAIR_WEIGHTS) else 0.0


def game(a: Rating, b: Rating, a_wins: bool, weight: float) -> tuple[Rating, Rating]:
    """Two ratings after one game between them that counts `weight` for each (as before trust)."""
    return game_weighted(a, b, a_wins, weight, weight)


def game_weighted(a: Rating, b: Rating, a_wins: bool, weight_a: float, weight_b: float) -> tuple[Rating, Rating]:
    teams = [[MODEL.create_rating([a.mu, a.sigma])], [MODEL.create_rating([b.mu, b.sigma])]]
    (na,), (nb,) = MODEL.rate(teams, ranks=[1.0, 2.0] if a_wins else [2.0, 1.0])
    return weighted(a, na.mu, na.sigma, weight_a, a_wins), weighted(b, nb.mu, nb.sigma, weight_b, not a_wins)


def farm(per_day: int, days: int, window: int | None) -> int:
    """The farmer's rating after `days` days of `per_day` wins a day over one partner, each
    game weighted by the pair's games within `window` days before it and, both being
    newcomers, by a quarter (`scale.PROVISIONAL_SHARE`); None: in full, as before accounts."""
    farmer, partner = fresh(), fresh()
    recent: deque[int] = deque()  # the day of each game within the window
    for day in range(days):
        while window is not None and recent and recent[0] <= day - window:
            recent.popleft()
        for _ in range(per_day):
            weight = 1.0 if window is None else pair_weight(len(recent)) * scale.PROVISIONAL_SHARE
            farmer, partner = game(farmer, partner, True, weight)
            recent.append(day)
    return scale.shown(farmer.mu)


@dataclass
class Player:
    name: str
    strength: float  # on Elo's scale: what decides its games
    rating: Rating
    met: set[str] = field(default_factory=set)  # trusted opponents met in counted games

    @property
    def bot(self) -> bool:
        return self.rating.kind is RatingKind.BOT

    def listed(self, trust: bool) -> bool:
        return trusted(self.rating) if trust else True


@dataclass
class Field:
    """A site's rated two-player games: its players, and each pair's recent games."""

    trust: bool  # today's rules (trust and provisional ratings), or those before them
    pairs: dict[frozenset[str], list[int]] = field(default_factory=dict)

    def play(self, a: Player, b: Player, a_wins: bool, day: int) -> None:
        key = frozenset((a.name, b.name))
        recent = [d for d in self.pairs.get(key, []) if d > day - PAIR_WINDOW.days]
        self.pairs[key] = [*recent, day]
        pair = pair_weight(len(recent))
        sure = [trusted(p.rating) for p in (a, b)]
        weights = [pair * scale.trust(sure[i], [sure[1 - i]]) if self.trust else pair for i in range(2)]
        a.rating, b.rating = game_weighted(a.rating, b.rating, a_wins, *weights)
        for me, other, weight, other_sure in ((a, b, weights[0], sure[1]), (b, a, weights[1], sure[0])):
            if weight > 0 and other_sure and self.trust and other.name not in me.met:
                me.met.add(other.name)
                me.rating = replace(me.rating, opponents=me.rating.opponents + 1)


def wins(rng: random.Random, a: Player, b: Player) -> bool:
    return rng.random() < 1 / (1 + 10 ** (-(a.strength - b.strength) / 400))


def season(seed: int, trust: bool, feeders: int, bots_after: int | None, days: int = 60, size: int = 40) -> tuple[int | None, int, int, int | None]:
    """One field: the farmer's place on the leaderboard (None: not listed), how many are
    listed, the farmer's rating and the leader's (None: nobody is listed yet)."""
    rng = random.Random(seed)
    bots = [Player(f"bot{i}", s, fresh(RatingKind.BOT)) for i, s in enumerate(BOT_STRENGTHS)]
    honest = [Player(f"p{i}", rng.gauss(1500, 200), fresh()) for i in range(size)]
    farmer = Player("farmer", 1500, fresh())
    fed = [Player(f"feeder{i}", 1000, fresh()) for i in range(feeders)]
    site = Field(trust)
    for day in range(days):
        for p in honest:
            other = rng.choice(bots) if rng.random() < 0.1 else rng.choice([q for q in honest if q is not p])
            site.play(p, other, wins(rng, p, other), day)
        for feeder in fed:
            site.play(farmer, feeder, True, day)
        if not fed:  # the same player, honest: a game a day like the others
            other = rng.choice(bots) if rng.random() < 0.1 else rng.choice(honest)
            site.play(farmer, other, wins(rng, farmer, other), day)
        if bots_after is not None and day >= bots_after:
            for bot in bots * 3:  # at most three rounds of the bots
                if farmer.listed(trust):
                    break
                site.play(farmer, bot, wins(rng, farmer, bot), day)
    key = (lambda p: -p.rating.mu) if trust else (lambda p: -p.rating.ordinal)
    board = sorted((p for p in [*honest, farmer] if p.listed(trust)), key=key)
    place = board.index(farmer) + 1 if farmer in board else None
    return place, len(board), scale.shown(farmer.rating.mu), scale.shown(board[0].rating.mu) if board else None


def median_season(seeds: int, trust: bool, feeders: int, bots_after: int | None, days: int) -> str:
    runs = [season(seed, trust, feeders, bots_after, days) for seed in range(1, seeds + 1)]
    listed = [place for place, *_ in runs if place is not None]
    where = f"{statistics.median(listed):g}" if listed else "not listed"
    if listed and len(listed) < len(runs):
        where += f" ({len(listed)} of {len(runs)} fields)"
    tops = [top for *_, top in runs if top is not None]
    leader = f"{statistics.median(tops):g}" if tops else "nobody listed"
    return f"{where}, {statistics.median(n for _, n, _, _ in runs):g} listed | {statistics.median(r for _, _, r, _ in runs):g} | {leader}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-day", type=int, nargs="+", default=[1, 2, 4, 8, 20, 100])
    parser.add_argument("--days", type=int, nargs="+", default=[1, 30, 365])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--field-days", type=int, nargs="+", default=[10, 60], help="how long the field plays (a game a day each)")
    args = parser.parse_args()
    window = PAIR_WINDOW.days
    print(f"pair weights: {', '.join(f'{w:g}' for w in PAIR_WEIGHTS)}, then 0; a new rating reads {scale.shown(MODEL.mu)}")
    heads = [f"{d} days: {w}" for d in args.days for w in (f"{window}-day window", "1-day window", "unweighted")]
    print(f"| wins a day over one partner | {' | '.join(heads)} |")
    print("|---|" + "---|" * len(heads))
    for n in args.per_day:
        cells = [f"{farm(n, d, w)}" for d in args.days for w in (window, 1, None)]
        print(f"| {n} | {' | '.join(cells)} |")
    for days in args.field_days:
        print()
        print(f"| the farmer (strength 1500), in a field of 40 playing {days} days | rules | place on the leaderboard | its rating | the leader's |")
        print("|---|---|---|---|---|")
        cases = (("fed by five fresh accounts", 5, None), ("fed, then plays the bots", 5, days // 2),
                 ("no feeders, plays like the others", 0, None))
        for words, feeders, bots_after in cases:
            for trust, rules in ((True, "today's"), (False, "before trust")):
                print(f"| {words} | {rules} | {median_season(args.seeds, trust, feeders, bots_after, days)} |")


if __name__ == "__main__":
    main()
