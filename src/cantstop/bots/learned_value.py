"""The rivals bot's learned value: each player's chance to win a position between turns.

A conditional logit over the players: each scores a weighted sum of a few numbers of
its progress (`FEATURES`), and the chances are the scores' softmax. The first number is
the turns the player still needs by `expert2`'s fitted curve, with columns claimed by
others worth nothing to it; the others say what that curve cannot see (claims, no way
left to win, turns to wait before moving). numpy alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from cantstop.bots.expert import ALPHA, SPARE
from cantstop.bots.expert2 import KNOTS
from cantstop.core.variant import preset

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

WEIGHTS = "rivals.npz"
# One weight per feature, in this order (see `player_features`).
# Not the columns others claimed: with the claims, their total, the same for every player.
FEATURES = ("turns", "turns squared", "claims", "cannot win", "waits 1", "waits 2", "waits 3")


@dataclass(frozen=True)
class Model:
    """A learned value: the weights of `FEATURES` for the board `key` (the solver's key)."""

    key: str
    coef: FloatArray

    def score(self, progress: IntArray, mine: Any, others: Any, waits: int, to_win: int) -> FloatArray:
        """One player's score in each position (see `player_features`); chances are their softmax."""
        return np.asarray(player_features(progress, mine, others, waits, to_win, self.key) @ self.coef)

    def chances(self, progress: IntArray, owner: IntArray, to_win: int) -> FloatArray:
        """Each player's chance to win (rows: positions; columns: players, the one to move first).

        `progress[s, p, i]` is player p's progress in column i of position s; `owner[s, i]`
        the player (same order) who claimed column i, or -1.
        """
        return softmax(features(progress, owner, to_win, self.key) @ self.coef)


def softmax(scores: FloatArray) -> FloatArray:
    """Rows of scores -> rows of chances."""
    shifted = scores - scores.max(axis=1, keepdims=True)
    odds = np.exp(shifted)
    return np.asarray(odds / odds.sum(axis=1, keepdims=True))


def features(progress: IntArray, owner: IntArray, to_win: int, key: str) -> FloatArray:
    """Every player's `FEATURES`, shape (positions, players, features); players from the one to move."""
    players = progress.shape[1]
    claimed = owner >= 0
    return np.stack(
        [
            player_features(progress[:, p], owner == p, claimed & (owner != p), p, to_win, key)
            for p in range(players)
        ],
        axis=1,
    )


def player_features(
    progress: IntArray, mine: Any, others: Any, waits: int, to_win: int, key: str
) -> FloatArray:
    """One player's `FEATURES` in each position (rows), shape (positions, features).

    `mine`/`others`: the columns this player / someone else claimed; `waits`: the turns
    of others before this player moves (0: to move).
    """
    xs, ys = _knots(key)
    columns = progress.shape[1]
    mine, others = np.broadcast_to(mine, progress.shape), np.broadcast_to(others, progress.shape)
    worth = _worth_table(key)[np.arange(columns), progress]
    worth = np.where(mine, 1.0, np.where(others, 0.0, worth))
    ranked = -np.sort(-worth, axis=1)
    measure = ranked[:, :to_win].sum(axis=1) + SPARE * ranked[:, to_win:].sum(axis=1)
    turns = np.interp(measure, xs, ys)
    claims = np.count_nonzero(mine, axis=1)
    lost = np.count_nonzero(others, axis=1)
    out = np.zeros((len(progress), len(FEATURES)))
    out[:, 0] = turns
    out[:, 1] = turns * turns / 10
    out[:, 2] = claims
    out[:, 3] = columns - lost < to_win  # too few columns left to win
    if waits:
        out[:, 3 + waits] = 1.0
    return out


@cache
def _knots(key: str) -> tuple[FloatArray, FloatArray]:
    xs, ys = KNOTS[key]
    return np.array(xs, dtype=np.float64), np.array(ys, dtype=np.float64)


@cache
def _worth_table(key: str) -> FloatArray:
    """worth[i, p]: column i's worth at progress p, the expert's measure (see expert2)."""
    heights = preset(key).heights
    table = np.zeros((len(heights), max(heights) + 1))
    for i, h in enumerate(heights):
        table[i, : h + 1] = [(space / h) ** ALPHA for space in range(h + 1)]
    return table


@cache
def load_model(source: str | Path = WEIGHTS) -> Model:
    """The shipped weights by file name (`weights/NAME`), or a file at a path; loaded once."""
    where = source if isinstance(source, Path) else resources.files("cantstop.bots").joinpath("weights", source)
    with where.open("rb") as file, np.load(file) as data:
        names = tuple(str(name) for name in data["features"])
        if names != FEATURES:
            raise ValueError(f"{source} holds weights of features {names}, this bot reads {FEATURES}")
        return Model(str(data["key"]), data["coef"].astype(np.float64))


def save_model(model: Model, path: Path) -> None:
    np.savez(path, key=np.array(model.key), features=np.array(FEATURES), coef=model.coef)
