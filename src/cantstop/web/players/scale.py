"""The rating people read, and when it can be trusted: plain functions of openskill's numbers,
with no web imports (the ratings, the pairing queue and the benchmarks use them alike).

**The scale.** A rating is shown as `1500 + POINTS_PER_MU * (mu - 25)`: 1500 for a new
player (openskill's mu starts at 25), and 400 points between two players whose ratings are
certain mean the stronger wins ten games to one, as in Elo. In openskill's Plackett-Luce
model two players win with the odds `exp(mu / c)` each, where `c` is at least `beta * sqrt(2)`
(beta = 25/6, the spread of one game's performance, and sigma adds to it while a rating is
uncertain); Elo's odds are `10 ** (rating / 400)`. Equal odds give 400 / (beta * sqrt(2) * ln 10)
= 29.5 points for each unit of mu. The uncertainty sigma is shown on the same scale (x 29.5).

**Provisional.** A rating is provisional, shown with a "?" and kept off the leaderboard,
until it has counted `PROVISIONAL_GAMES` rated games against `TRUSTED_OPPONENTS` distinct
trusted opponents: bots (which cannot lose on purpose for someone) and accounts whose
own rating was no longer provisional when they met. A fresh account is nobody's trusted
opponent, so accounts made to lose on purpose cannot make another account's rating.

**Trust.** A game moves a rating by its share of trust (`trust`): in full against trusted
opponents; against a provisional account by `PROVISIONAL_SHARE` for a rating that is itself
provisional, and not at all for one that is not (until a newcomer's rating is known, a win
over them says little). With several opponents the share is their mean.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

BASE = 1500  # a new player's rating
MU0 = 25.0  # openskill's starting mean (PlackettLuce's default)
BETA = 25.0 / 6  # openskill's beta: the spread of one game's performance
POINTS_PER_MU = 400 / (BETA * math.sqrt(2) * math.log(10))  # 29.48: Elo's odds for certain ratings

PROVISIONAL_GAMES = 10  # rated games counted (a game that counted for nothing does not count)
TRUSTED_OPPONENTS = 5  # distinct trusted opponents among them
PROVISIONAL_SHARE = 0.25  # what a game against a provisional account counts for a provisional rating


def shown(mu: float) -> int:
    """The rating people read for an openskill mean: 1500 for a new player."""
    return round(BASE + POINTS_PER_MU * (mu - MU0))


def shown_spread(sigma: float) -> int:
    """An openskill uncertainty on the shown scale (points either side of the rating)."""
    return round(POINTS_PER_MU * sigma)


def provisional(games: int, trusted: int) -> bool:
    """Whether a person's rating is still provisional after `games` counted rated games
    against `trusted` distinct trusted opponents. A bot's never is (`established`)."""
    return games < PROVISIONAL_GAMES or trusted < TRUSTED_OPPONENTS


def established(bot: bool, games: int, trusted: int) -> bool:
    """Whether a rating counts as trusted for its opponents: a bot's always, a person's once
    it is no longer provisional."""
    return bot or not provisional(games, trusted)


def trust(own_established: bool, opponents_established: Sequence[bool]) -> float:
    """The share of a full game's move a seat's rating takes: the mean over its opponents of
    1 for a trusted one, else PROVISIONAL_SHARE for a provisional rating and 0 for an
    established one. 1 with no opponents (nothing to weigh)."""
    if not opponents_established:
        return 1.0
    untrusted = 0.0 if own_established else PROVISIONAL_SHARE
    return sum(1.0 if other else untrusted for other in opponents_established) / len(opponents_established)


def mark(rating: int, is_provisional: bool) -> str:
    """A rating as text: '1523', or '1523?' while provisional."""
    return f"{rating}?" if is_provisional else str(rating)
