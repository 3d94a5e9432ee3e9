"""A position as a fixed-shape `numpy.float32` vector, seen from one seat.

Every entry lies in [0, 1]. With C columns (11 for classic), P players, F dice faces
and the observer's seat `s`, seats are rotated so that the observer comes first
(rival k is seat `(s + k) % P`). The vector is, in order:

| slice            | size  | entry                                                             |
|------------------|-------|-------------------------------------------------------------------|
| pieces           | P * C | seat `(s + k) % P`'s piece in each column / the column's height,    |
|                  |       | k = 0..P-1 (k = 0: the observer's own pieces)                     |
| runners          | C     | the runner of the player to move in each column / height (0: none)|
| claimed by me    | C     | 1 where the observer has claimed the column                       |
| claimed by rival | C     | 1 where another seat has claimed the column                       |
| to move          | P     | one-hot: k = 0 when the observer is to move, k when seat s+k is    |
| phase            | 4     | one-hot: roll, choose, decide, over                               |
| runners left     | 1     | runners still in the box / runners per turn                       |
| steps            | 1     | steps taken this turn / the total of the column heights           |
| steps left       | 1     | steps the step limit still allows / the limit (1 without a limit) |
| dice             | 4 * F | in the choose phase, one-hot per die (die i, face f at i * F + f-1); |
|                  |       | dice in the variant's roll catalog order (wild-carrying dice first) |

Columns run from 2 upwards. Classic with two players: 5 * 11 + 2 + 4 + 3 + 24 = 88.
`observation_size(variant, num_players)` gives the length, `encode(state, seat)` the vector
and `observation_fields(variant, num_players)` each field's name, slice and shape.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from cantstop.core.state import State
from cantstop.core.variant import Variant

Observation = NDArray[np.float32]


@lru_cache(maxsize=64)
def _scale(variant: Variant) -> NDArray[np.float32]:
    """1 / height per column, with the two slots before column 2 (no columns) at 0."""
    return np.array((0.0, 0.0, *(1 / h for h in variant.heights)), dtype=np.float32)


def observation_size(variant: Variant, num_players: int) -> int:
    columns = len(variant.heights)
    return (num_players + 3) * columns + num_players + 4 + 3 + 4 * variant.faces


@dataclass(frozen=True)
class Field:
    """One field of the observation: `obs[where].reshape(shape)` reads it."""

    name: str
    where: slice
    shape: tuple[int, ...]


def observation_fields(variant: Variant, num_players: int) -> tuple[Field, ...]:
    """The fields of the observation in order, as the module docstring's table lists them."""
    columns, faces = len(variant.heights), variant.faces
    shapes = (
        ("pieces", (num_players, columns)),
        ("runners", (columns,)),
        ("claimed_by_me", (columns,)),
        ("claimed_by_rival", (columns,)),
        ("to_move", (num_players,)),
        ("phase", (4,)),
        ("runners_left", (1,)),
        ("steps", (1,)),
        ("steps_left", (1,)),
        ("dice", (4, faces)),
    )
    fields, at = [], 0
    for name, shape in shapes:
        size = int(np.prod(shape))
        fields.append(Field(name, slice(at, at + size), shape))
        at += size
    return tuple(fields)


def encode(state: State, seat: int) -> Observation:
    """The observation vector of `state` for `seat` (see the module docstring for its layout)."""
    variant = state.variant
    num_players = state.num_players
    if not 0 <= seat < num_players:
        raise ValueError(f"seat must be 0..{num_players - 1} for this {num_players}-player game, not {seat}")
    columns = len(variant.heights)
    obs = np.zeros(observation_size(variant, num_players), dtype=np.float32)
    pieces = state.pieces
    rows = (*pieces[seat:], *pieces[:seat], state.runners)  # rotated: the observer first
    end = (num_players + 1) * columns
    obs[:end] = (np.array(rows, dtype=np.float32) * _scale(variant))[:, 2:].ravel()
    claimed = np.array(state.claimed[2:])
    obs[end : end + columns] = claimed == seat
    end += columns
    obs[end : end + columns] = (claimed >= 0) & (claimed != seat)
    end += columns
    obs[end + (state.seat - seat) % num_players] = 1
    end += num_players
    obs[end + state.phase] = 1
    end += 4
    obs[end] = state.runners_left / variant.runners
    obs[end + 1] = state.steps / sum(variant.heights)
    limit = variant.step_limit
    obs[end + 2] = 1.0 if limit is None else (limit - state.steps) / limit
    end += 3
    if state.dice is not None:
        catalog = variant.catalog
        faces = variant.faces
        for i, face in enumerate(catalog.outcomes[catalog.index[state.dice]]):
            obs[end + i * faces + face - 1] = 1
    return obs
