"""The rivals bot's learned value: each player's chance to win a position between turns.

A conditional logit over the players: each scores a weighted sum of a few numbers of
its progress (`FEATURES`), and the chances are the scores' softmax. The first numbers
are the turns the player still needs alone (`Turns`): on a board the solitaire solver
has solved, its exact expected turns; elsewhere `expert2`'s fitted curve of the expert's
progress measure. The others say what that number cannot see (claims, no way left to
win, turns to wait before moving). Every board has its own weights (`Model`), learned by
self-play (`examples/train_rivals.py`) and shipped in one file read with numpy alone.
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

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

WEIGHTS = "rivals.npz"
# One weight per feature, in this order (see `player_features`). Not the columns others
# claimed: with the claims, their total, the same for every player, cancels in the softmax.
FEATURES = ("turns", "turns squared", "root of turns", "claims", "cannot win", "waits 1", "waits 2", "waits 3")
MOST_PLAYERS = 4  # waits 1..3: the one-hot features above


@dataclass(frozen=True, eq=False)
class Turns:
    """One player's expected turns to finish alone, from its progress on a board.

    Exact: `solved[i]` is the solitaire solver's value of the anchor of index i (progress
    of column c times the product of (height + 1) of the columns before it; a claimed
    column at its height). Fitted: the expert's measure (each column's fraction climbed to
    the power ALPHA, 1 when claimed; the `to_win` largest in full, the rest by SPARE)
    mapped through the curve `knots` (measures, turns). Exactly one of them is non-empty.
    A column a rival claimed holds no progress of the player's (the claim wiped it).
    """

    heights: tuple[int, ...]
    to_win: int
    solved: FloatArray
    knots: FloatArray

    @property
    def exact(self) -> bool:
        return len(self.solved) > 0

    @property
    def strides(self) -> IntArray:
        return np.cumprod([1, *(h + 1 for h in self.heights[:-1])]).astype(np.int64)

    @property
    def worth(self) -> FloatArray:
        """worth[i, p]: column i's worth at progress p (the expert's measure), 1 at the top."""
        table = np.zeros((len(self.heights), max(self.heights) + 1))
        for i, h in enumerate(self.heights):
            table[i, : h + 1] = [(space / h) ** ALPHA for space in range(h + 1)]
        return table

    def of(self, progress: IntArray) -> FloatArray:
        """Expected turns for each row of `progress` (rows: positions; columns: board columns)."""
        if self.exact:
            return np.asarray(self.solved[progress @ self.strides])
        worth = _worth(self)[np.arange(len(self.heights)), progress]
        ranked = -np.sort(-worth, axis=1)
        measure = ranked[:, : self.to_win].sum(axis=1) + SPARE * ranked[:, self.to_win :].sum(axis=1)
        won = np.count_nonzero(worth >= 1.0, axis=1) >= self.to_win
        return np.where(won, 0.0, np.interp(measure, self.knots[0], self.knots[1]))


@cache
def _worth(turns: Turns) -> FloatArray:
    return turns.worth


@dataclass(frozen=True, eq=False)
class Model:
    """A learned value of one board: the weights of `FEATURES` and the board's `Turns`."""

    key: str  # the board: the solver's key of the variant (`cantstop.solve.board.solver_key`)
    coef: FloatArray
    turns: Turns
    players: tuple[int, ...]  # the player counts it was trained for

    def score(self, progress: IntArray, mine: Any, others: Any, waits: int) -> FloatArray:
        """One player's score in each position (see `player_features`); chances are their softmax."""
        return np.asarray(player_features(self.turns, progress, mine, others, waits) @ self.coef)

    def chances(self, progress: IntArray, owner: IntArray) -> FloatArray:
        """Each player's chance to win (rows: positions; columns: players, the one to move first).

        `progress[s, p, i]` is player p's progress in column i of position s (a claimed
        column at its height for its owner, 0 for the others); `owner[s, i]` the player
        (same order) who claimed column i, or -1.
        """
        return softmax(features(self.turns, progress, owner) @ self.coef)

    def with_coef(self, coef: FloatArray) -> Model:
        return Model(self.key, np.asarray(coef, dtype=np.float64), self.turns, self.players)


def softmax(scores: FloatArray) -> FloatArray:
    """Rows of scores -> rows of chances."""
    shifted = scores - scores.max(axis=1, keepdims=True)
    odds = np.exp(shifted)
    return np.asarray(odds / odds.sum(axis=1, keepdims=True))


def features(turns: Turns, progress: IntArray, owner: IntArray) -> FloatArray:
    """Every player's `FEATURES`, shape (positions, players, features); players from the one to move."""
    players = progress.shape[1]
    claimed = owner >= 0
    return np.stack(
        [player_features(turns, progress[:, p], owner == p, claimed & (owner != p), p) for p in range(players)],
        axis=1,
    )


def player_features(turns: Turns, progress: IntArray, mine: Any, others: Any, waits: int) -> FloatArray:
    """One player's `FEATURES` in each position (rows), shape (positions, features).

    `mine`/`others`: the columns this player / someone else claimed (the player's progress
    there is its height / 0); `waits`: the turns of others before this player moves (0: to move).
    """
    columns = progress.shape[1]
    others = np.broadcast_to(others, progress.shape)
    t = turns.of(progress)
    out = np.zeros((len(progress), len(FEATURES)))
    out[:, 0] = t
    out[:, 1] = t * t / 10
    out[:, 2] = np.sqrt(t)
    out[:, 3] = np.count_nonzero(np.broadcast_to(mine, progress.shape), axis=1)
    out[:, 4] = columns - np.count_nonzero(others, axis=1) < turns.to_win  # too few columns left to win
    if waits:
        out[:, 4 + waits] = 1.0
    return out


def _resource(source: str | Path) -> Any:
    return source if isinstance(source, Path) else resources.files("cantstop.bots").joinpath("weights", source)


@cache
def load_models(source: str | Path = WEIGHTS) -> dict[str, Model]:
    """Every board's learned value by the board's key: the shipped file (`weights/NAME`) or a path; loaded once."""
    with _resource(source).open("rb") as file, np.load(file) as data:
        names = tuple(str(name) for name in data["features"])
        if names != FEATURES:
            raise ValueError(f"{source} holds weights of features {names}, this bot reads {FEATURES}")
        models = {}
        for i, key in enumerate(str(k) for k in data["keys"]):
            heights = tuple(int(h) for h in data[f"heights_{i}"])
            solved = data[f"solved_{i}"] if f"solved_{i}" in data else data[f"table_{i}"]  # its name before value files
            turns = Turns(heights, int(data[f"to_win_{i}"]), solved.astype(np.float64), data[f"knots_{i}"])
            players = tuple(int(p) for p in data[f"players_{i}"])
            models[key] = Model(key, data[f"coef_{i}"].astype(np.float64), turns, players)
        return models


def save_models(models: list[Model], path: Path) -> None:
    """Write boards' learned values to one file (`load_models` reads it); exact turns as float32."""
    arrays: dict[str, Any] = {"features": np.array(FEATURES), "keys": np.array([m.key for m in models])}
    for i, m in enumerate(models):
        arrays[f"heights_{i}"] = np.array(m.turns.heights, dtype=np.int64)
        arrays[f"to_win_{i}"] = np.array(m.turns.to_win)
        arrays[f"solved_{i}"] = m.turns.solved.astype(np.float32)
        arrays[f"knots_{i}"] = m.turns.knots
        arrays[f"players_{i}"] = np.array(m.players, dtype=np.int64)
        arrays[f"coef_{i}"] = m.coef
    np.savez_compressed(path, **arrays)
