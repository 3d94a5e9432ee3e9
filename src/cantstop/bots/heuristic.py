"""Michael Keller's Rule of 28 and Glenn & Aloi's tuned generalisation of it.

Both are one family of scores, written as data (`Weights`):

* **progress** (when to stop): each runner scores (spaces it moved this turn + 1) ×
  the progress weight of its column; once every runner is out, add `odd` if all
  runner columns are odd, subtract `even` if all are even, add `high` if all are
  ≥ 7 and `low` if all are ≤ 7 (a column set the dice rarely fit is worth
  leaving). Keep rolling while a runner is unused and a column is free for it;
  otherwise stop as soon as the progress score reaches the threshold.
* **move** (which choice): a choice scores the move weight of every step it takes,
  plus the weight once more for each runner it newly places, minus `marker` per
  runner it places; if all runners are out afterwards the same odd/even/high/low
  terms count with the opposite sign. The highest score wins; among equal scores the
  last in the engine's order (the lexicographically greatest column tuple). Ties
  matter: with the first instead, the rule averages 10.53 solitaire turns, not the
  published 10.70 (see docs/bots.md for the measurements).
* **a win is banked**: whenever stopping now would win the game, stop. Every
  published figure for the rule assumes this (without it the rule keeps rolling
  with its third column at the top, and needs about 14 solitaire turns, not 10.7).

Weights are indexed by a column's distance from the middle column (7 on 4d6):
`(w_middle, ..., w_edge)`. Further out than the table reaches uses its last entry.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from cantstop.bots.base import Bot, Budget, Level, register
from cantstop.core.choices import Choice
from cantstop.core.state import ROLL, STOP, Action, Phase, State


@dataclass(frozen=True)
class Weights:
    progress: tuple[int, ...]  # by distance from the middle column: middle first
    move: tuple[int, ...]
    odd: int
    even: int
    high: int
    low: int
    marker: int
    threshold: int


# The two published weightings, one row each, in the order of `Weights`' fields: progress,
# move, odd, even, high, low, marker, threshold. Keller's Rule of 28: progress 1..6 and move
# 6..1 from 7 outwards, 2 for odd or even, 4 for high or low. Glenn & Aloi (FLAIRS 2009): the
# same score with weights a genetic algorithm tuned, published from column 2 inwards
# (progress 7,7,3,2,2,1; move 7,0,2,0,4,3).
RULE_OF_28 = Weights((1, 2, 3, 4, 5, 6), (6, 5, 4, 3, 2, 1), 2, 2, 4, 4, 6, 28)
GLENN_ALOI = Weights((1, 2, 2, 3, 7, 7), (3, 4, 0, 2, 0, 7), 7, 1, 6, 5, 6, 29)


def _weight(table: tuple[int, ...], state: State, column: int) -> int:
    distance = abs(column - (state.variant.faces + 1))
    return table[min(distance, len(table) - 1)]


def _shape(weights: Weights, state: State, columns: Sequence[int]) -> int:
    """The odd/even/high/low terms of a full set of runner columns."""
    # One count and min/max instead of four generator passes: this runs for every choice.
    # The defaults keep an empty list scoring as the all()/not any() tests would.
    middle = state.variant.faces + 1
    odd = sum(c & 1 for c in columns)
    score = 0
    if odd == len(columns):
        score += weights.odd
    if not odd:
        score -= weights.even
    if min(columns, default=middle) >= middle:
        score += weights.high
    if max(columns, default=middle) <= middle:
        score += weights.low
    return score


def progress_score(weights: Weights, state: State) -> int:
    """The stopping score of the runners on the board this turn."""
    own = state.pieces[state.seat]
    columns = state.runner_columns
    score = sum(
        (state.runners[c] - own[c] + 1) * _weight(weights.progress, state, c) for c in columns
    )
    if columns and len(columns) >= state.variant.runners:
        score += _shape(weights, state, columns)
    return score


def move_score(weights: Weights, state: State, choice: Choice) -> int:
    """The score of playing `choice` in CHOOSE phase (higher is better)."""
    runners = state.runners
    score = 0
    placed: set[int] = set()
    for c in choice:
        w = _weight(weights.move, state, c)
        score += w
        if not runners[c] and c not in placed:
            placed.add(c)
            score += w - weights.marker
    columns = [*state.runner_columns, *placed]
    if len(columns) >= state.variant.runners:
        score -= _shape(weights, state, columns)
    return score


def stop_wins(state: State) -> bool:
    """Would stopping now claim the columns that win the game?"""
    me = state.seat
    tops = sum(
        1 for c in state.runner_columns if state.runners[c] == state.variant.heights[c - 2]
    )
    return tops > 0 and state.claimed.count(me) + tops >= state.variant.to_win


def heuristic_play(weights: Weights, state: State) -> Action:
    if state.phase is Phase.CHOOSE:
        return max(reversed(state.options), key=lambda choice: move_score(weights, state, choice))
    if not state.may_stop():
        return ROLL
    if stop_wins(state):
        return STOP
    if state.may_place():
        return ROLL
    return STOP if progress_score(weights, state) >= weights.threshold else ROLL


def _bot(weights: Weights) -> Bot:
    def play(state: State, rng: random.Random, budget: Budget) -> Action:
        return heuristic_play(weights, state)

    return play


# The registered heuristic bots: the same play with each published weighting.
for _name, _level, _weights, _description, _display in (
    ("rule28", Level.MEDIUM, RULE_OF_28,
     "Michael Keller's Rule of 28: rolls until its progress score reaches 28.", "Rule-of-28 bot"),
    ("ga", Level.HARD, GLENN_ALOI,
     "Glenn & Aloi's tuned Rule of 28 (2009): threshold 29, weights found by evolution.", "Glenn–Aloi bot"),
):
    register(_name, _level, _description, _display)(_bot(_weights))
