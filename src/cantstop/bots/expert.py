"""The expert bot: exact one-roll expectations over a value of positions.

**Value of a position.** A column is worth its progress fraction raised to a power,
`(space / height) ** ALPHA`, 1 when claimed: the fraction is a fair common currency,
since every column needs about the same number of useful rolls to climb
(height / chance to make the sum is 20 to 23 for every column of 4d6), and the
power rewards concentrating on few columns, as only `to_win` of them count. The
`to_win` best columns count fully, the rest by `SPARE`. Against opponents, each
column's worth is shaded by how far a rival leads in it, and the best rival's value
counts against ours, so claiming a column a rival climbed is worth more.

**Stop or roll.** A one-step look-ahead, exact over the 126 distinct rolls: roll if
the expected value after one more roll (every roll weighed; the best choice of
each; a bust falls back to the turn's start) beats stopping now. Once all runners
are out this is the optimal rule for a monotone stopping problem (the risk only
grows with the progress at stake while the chance of a bust stays the same); with
runners still to place it slightly under-values rolling, when busts are rare anyway.

**Race.** Against rivals the value is a chance to win: a logistic curve of our lead
in column-units (so a player behind takes risks and one ahead plays safe), times the
chance that no rival wins on their next turn (`threat`, from how much they still
need). A won game is worth 1. A rival about to win makes every turn that does not win
nearly worthless, so the bot rolls for the win exactly when the race demands it.
Stopping when it wins is always taken.

**Choices** are scored by the same value: the better of stopping or rolling after it.
"""

from __future__ import annotations

import math
import random
from functools import lru_cache

from cantstop.bots.base import Budget, Level, register
from cantstop.bots.heuristic import stop_wins
from cantstop.core.choices import Choice
from cantstop.core.state import ROLL, STOP, Action, Phase, State
from cantstop.core.variant import Variant

ALPHA = 1.5  # convexity of a column's worth in its progress fraction
SPARE = 0.3  # worth of a column beyond the `to_win` best ones
RIVAL = 1.0  # how much the best rival's value counts against ours
LEAD = 0.5  # shading of our column by a rival's lead in it
THREAT_SCALE = 0.25  # a rival needing `x` more column-units wins next turn with ~exp(-x/scale)
WIN_BONUS = 0.5  # alone, a won game is worth `to_win` claimed columns plus this
LOOKAHEAD = 12  # most choices of one roll that get the look-ahead (see choose)
SHARPNESS = 2.0  # against rivals: chance to win = logistic(SHARPNESS * (ours - RIVAL * theirs))


@lru_cache(maxsize=64)
def _fractions(variant: Variant) -> tuple[tuple[float, ...], ...]:
    """`table[c][space]`: a column's worth at a space (by column number)."""
    return ((), ()) + tuple(
        tuple((space / h) ** ALPHA for space in range(h + 1)) for h in variant.heights
    )


def _total(values: list[float], count: int) -> float:
    values.sort(reverse=True)
    return sum(values[:count]) + SPARE * sum(values[count:])


class _Judge:
    """Values of end-of-turn positions for the player to move, from one turn's start."""

    def __init__(
        self, variant: Variant, pieces: tuple[tuple[int, ...], ...], claimed: tuple[int, ...], me: int
    ) -> None:
        table = _fractions(variant)
        self.count = variant.to_win
        rivals = [p for p in range(len(pieces)) if p != me]
        self.open = tuple(c for c in variant.columns if claimed[c] < 0)
        self.heights = variant.heights
        self.mine_claimed = sum(1 for c in variant.columns if claimed[c] == me)
        # Our worth of each open column by space, shaded by the best rival's lead there.
        self.worth: dict[int, tuple[float, ...]] = {}
        for c in self.open:
            lead = max((table[c][pieces[p][c]] for p in rivals), default=0.0)
            self.worth[c] = tuple(v * (1.0 - LEAD * max(0.0, lead - v)) for v in table[c])
        # Rivals' column worths: a column we claim is wiped for them.
        self.rivals = [
            {
                c: 1.0 if claimed[c] == p else table[c][pieces[p][c]]
                for c in variant.columns
                if claimed[c] < 0 or claimed[c] == p
            }
            for p in rivals
        ]
        self.standing = self._rivals(())
        own = pieces[me]
        self.base = self.value({c: own[c] for c in self.open}, ())

    def _rivals(self, tops: tuple[int, ...]) -> tuple[float, float]:
        """(best rival total, chance some rival wins next turn) once we claim `tops`."""
        best = 0.0
        none_wins = 1.0
        for columns in self.rivals:
            total = _total([v for c, v in columns.items() if c not in tops], self.count)
            best = max(best, total)
            none_wins *= 1.0 - math.exp(-max(0.0, self.count - total) / THREAT_SCALE)
        return best, 1.0 - none_wins

    def value(self, spaces: dict[int, int], tops: tuple[int, ...]) -> float:
        """Our value if the turn ends with our pieces on `spaces` (open columns) claiming `tops`."""
        claims = self.mine_claimed + len(tops)
        if claims >= self.count:
            return 1.0 if self.rivals else self.count + WIN_BONUS
        worth = self.worth
        ours = [worth[c][spaces[c]] for c in self.open if c not in tops]
        ours.extend([1.0] * claims)
        mine = _total(ours, self.count)
        if not self.rivals:
            return mine
        # Against rivals, a chance to win: logistic in our lead, and only if no rival wins first.
        rival, threat = self._rivals(tops) if tops else self.standing
        return (1.0 - threat) / (1.0 + math.exp(-SHARPNESS * (mine - RIVAL * rival)))


def _spaces(state: State) -> tuple[dict[int, int], tuple[int, ...]]:
    own = state.pieces[state.seat]
    heights = state.variant.heights
    spaces = {}
    tops = []
    for c in state.variant.columns:
        r = state.runners[c]
        if r and r == heights[c - 2]:
            tops.append(c)
        spaces[c] = r or own[c]
    return spaces, tuple(tops)


def _stop_after(
    judge: _Judge, base: dict[int, int], tops: tuple[int, ...], choice: Choice
) -> float:
    """Value of stopping right after playing `choice` with pieces on `base`, runners on `tops`."""
    spaces = base.copy()
    heights = judge.heights
    for c in choice:
        spaces[c] += 1
        if spaces[c] == heights[c - 2]:
            tops = (*tops, c)
    return judge.value(spaces, tops)


@lru_cache(maxsize=256)
def _judge(
    variant: Variant, pieces: tuple[tuple[int, ...], ...], claimed: tuple[int, ...], me: int
) -> _Judge:
    """The judge of a turn: every decision of the turn shares it."""
    return _Judge(variant, pieces, claimed, me)


def judge_of(state: State) -> _Judge:
    return _judge(state.variant, state.pieces, state.claimed, state.seat)


@lru_cache(maxsize=4096)
def roll_value(state: State) -> float:
    """Expected value of rolling once more from DECIDE `state`, then stopping (memoised:
    a choice's look-ahead is the next decision's)."""
    return _roll_value(judge_of(state), state)


def _roll_value(judge: _Judge, state: State) -> float:
    """Expected value of rolling once more from DECIDE `state`, then stopping."""
    catalog = state.variant.catalog
    spaces, tops = _spaces(state)
    base = {c: spaces[c] for c in judge.open}
    total = 0.0
    bust = 0
    seen: dict[Choice, float] = {}  # many rolls offer the same choices
    skip = state.variant.skip
    for outcome, weight in enumerate(catalog.weights):
        options = state.outcome_choices(outcome)
        if not options:
            bust += weight
            continue
        if skip:  # runners hop over rivals' pieces: let the engine place them
            rolled = state.play(ROLL).roll(catalog.outcomes[outcome])
            best = max(judge.value(*_spaces(rolled.play(c))) for c in options)
        else:
            best = -math.inf
            for choice in options:
                value = seen.get(choice)
                if value is None:
                    value = seen[choice] = _stop_after(judge, base, tops, choice)
                if value > best:
                    best = value
        total += weight * best
    return (total + bust * judge.base) / catalog.total


def decide(judge: _Judge, state: State) -> Action:
    if not state.may_stop():
        return ROLL
    if stop_wins(state):
        return STOP
    stop = judge.value(*_spaces(state))
    return ROLL if roll_value(state) > stop else STOP


def choose(judge: _Judge, state: State) -> Choice:
    options = state.options
    if len(options) == 1:
        return options[0]
    afters = [(choice, state.play(choice)) for choice in options]
    for choice, after in afters:
        if stop_wins(after):
            return choice
    if len(afters) > LOOKAHEAD:
        # Relay dice can offer fifty choices, and a look-ahead for each took over a second:
        # look ahead from the ones whose stop is worth most, kept in their given order.
        worth = [judge.value(*_spaces(after)) for _, after in afters]
        ranked = sorted(range(len(afters)), key=lambda i: -worth[i])[:LOOKAHEAD]
        afters = [afters[i] for i in sorted(ranked)]
    best = options[0]
    best_value = -math.inf
    for choice, after in afters:
        value = roll_value(after)
        if after.may_stop():
            value = max(value, judge.value(*_spaces(after)))
        if value > best_value:
            best, best_value = choice, value
    return best


@register(
    "expert",
    Level.EXPERT,
    "Exact one-roll look-ahead over a value of progress, aware of the race.",
    "Expert bot",
)
def play_expert(state: State, rng: random.Random, budget: Budget) -> Action:
    judge = judge_of(state)
    if state.phase is Phase.CHOOSE:
        return choose(judge, state)
    return decide(judge, state)
