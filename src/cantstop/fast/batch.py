"""A batch of positions as arrays, with exact round trips to and from core `State`s.

`to_arrays` and `from_arrays` are the bridge the equality proof walks over; `legal_masks`,
`step` and `roll` check their input in Python (naming the game and what is legal) and only
then hand whole arrays to the kernels, so a refused call changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cantstop.core.actions import action_numbering
from cantstop.core.errors import IllegalActionError, InvalidDiceError
from cantstop.core.state import Phase, State, describe_action, make_state
from cantstop.core.variant import Variant
from cantstop.fast import kernels
from cantstop.fast.kernels import StateArrays
from cantstop.fast.memory import check_count, check_fits
from cantstop.fast.tables import compile_variant


@dataclass(frozen=True)
class Batch:
    """Positions of one variant and player count; `arrays` holds them (see `StateArrays`)."""

    variant: Variant
    arrays: StateArrays

    @property
    def size(self) -> int:
        return len(self.arrays.phase)

    @property
    def players(self) -> int:
        return int(self.arrays.pieces.shape[1])

    def copy(self) -> Batch:
        return Batch(self.variant, StateArrays(*(a.copy() for a in self.arrays)))


def bytes_per_game(variant: Variant, players: int) -> int:
    """Memory one position takes in a batch."""
    columns = len(variant.heights)
    return players * columns + 2 * columns + 1 + 1 + 4 + 2 + 4


def new_batch(variant: Variant, players: int, size: int) -> Batch:
    """`size` opening positions (seat 0 to roll); refused before allocating if too big."""
    check_count(size, "a batch's size")
    if not variant.min_players <= players <= variant.max_players:
        raise ValueError(
            f"{variant.name} is for {variant.min_players}..{variant.max_players} players, not {players}"
        )
    return _allocate(variant, players, size)


def _allocate(variant: Variant, players: int, size: int) -> Batch:
    check_count(size, "a batch's size")
    check_fits(size, bytes_per_game(variant, players), "positions")
    columns = len(variant.heights)
    arrays = StateArrays(
        pieces=np.zeros((size, players, columns), np.int8),
        runners=np.zeros((size, columns), np.int8),
        claimed=np.full((size, columns), -1, np.int8),
        player=np.zeros(size, np.int8),
        phase=np.zeros(size, np.int8),
        dice=np.zeros((size, 4), np.int8),
        steps=np.zeros(size, np.int16),
        turn=np.zeros(size, np.int32),
    )
    return Batch(variant, arrays)


def to_arrays(states: Sequence[State]) -> Batch:
    """Core states (one variant, one player count) as a batch."""
    if not states:
        raise ValueError("to_arrays needs at least one state")
    first = states[0]
    for i, state in enumerate(states):
        if state.variant != first.variant or state.players != first.players:
            raise ValueError(
                f"state {i} is {state.variant.name} with {state.players} players, but state 0 is "
                f"{first.variant.name} with {first.players}: a batch holds one variant and player count"
            )
    batch = _allocate(first.variant, first.players, len(states))
    a = batch.arrays
    for b, state in enumerate(states):
        a.pieces[b] = [row[2:] for row in state.pieces]
        a.runners[b] = state.runners[2:]
        a.claimed[b] = state.claimed[2:]
        a.player[b] = state.player
        a.phase[b] = int(state.phase)
        a.dice[b] = state.dice if state.dice is not None else (0, 0, 0, 0)
        a.steps[b] = state.steps
        a.turn[b] = state.turn
    return Batch(first.variant, a)


def from_arrays(batch: Batch) -> list[State]:
    """The core states of a batch, equal (`==`) to the ones it was made from."""
    variant = batch.variant
    a = batch.arrays
    pad = [0, 0]
    states = []
    for b in range(batch.size):
        phase = Phase(int(a.phase[b]))
        # Claims are not read back: make_state derives them from the pieces on top spaces,
        # which the kernels keep in step (the round trip test compares them).
        states.append(
            make_state(
                variant,
                tuple(tuple(pad + row.tolist()) for row in a.pieces[b]),
                tuple(pad + a.runners[b].tolist()),
                int(a.player[b]),
                phase,
                tuple(a.dice[b].tolist()) if phase is Phase.CHOOSE else None,
                int(a.steps[b]),
                int(a.turn[b]),
            )
        )
    return states


def legal_masks(batch: Batch) -> np.ndarray:
    """bool[games, actions]: the legal actions of every game over the one numbering."""
    t = compile_variant(batch.variant)
    out = np.zeros((batch.size, len(t.action_len)), np.bool_)
    kernels.batch_masks(t, batch.arrays, out)
    return out


def describe_legal(variant: Variant, row: np.ndarray) -> str:
    """'3 (5), 77 (roll)': the legal action numbers of one mask row with what they stand for."""
    numbering = action_numbering(variant)
    legal = [f"{i} ({describe_action(numbering[i])})" for i in np.flatnonzero(row)]
    return ", ".join(legal) or "none"


def check_actions(batch: Batch, actions: np.ndarray) -> np.ndarray:
    """The actions as int64, or an error naming the first game whose action is not legal."""
    actions = np.asarray(actions)
    if actions.shape != (batch.size,) or not np.issubdtype(actions.dtype, np.integer):
        raise IllegalActionError(
            f"actions must be {batch.size} integers, one per game, not an array of shape "
            f"{actions.shape} and type {actions.dtype}"
        )
    actions = actions.astype(np.int64)
    masks = legal_masks(batch)
    size = masks.shape[1]
    inside = (actions >= 0) & (actions < size)
    ok = inside.copy()
    ok[inside] = masks[np.flatnonzero(inside), actions[inside]]
    if not ok.all():
        b = int(np.flatnonzero(~ok)[0])
        what = (
            f"action {actions[b]} is outside the numbering 0..{size - 1}"
            if not inside[b]
            else f"action {actions[b]} ({describe_action(action_numbering(batch.variant)[actions[b]])}) is not legal"
        )
        phase = Phase(int(batch.arrays.phase[b])).name
        raise IllegalActionError(
            f"game {b}: {what} in the {phase} phase; legal: {describe_legal(batch.variant, masks[b])}"
        )
    return actions


def step(batch: Batch, actions: np.ndarray) -> Batch:
    """A new batch with `actions[b]` played in game b (core: `State.play`); all or nothing."""
    checked = check_actions(batch, actions)
    after = batch.copy()
    kernels.batch_apply(compile_variant(batch.variant), after.arrays, checked)
    return after


def roll(batch: Batch, dice: np.ndarray) -> tuple[Batch, np.ndarray]:
    """A new batch with `dice[b]` rolled in game b (core: `State.roll`), and which games busted."""
    faces = batch.variant.faces
    dice = np.asarray(dice)
    if dice.shape != (batch.size, 4) or not np.issubdtype(dice.dtype, np.integer):
        raise InvalidDiceError(f"dice must be {batch.size} rolls of 4 dice, not shape {dice.shape}")
    bad = np.flatnonzero(((dice < 1) | (dice > faces)).any(axis=1))
    if len(bad):
        raise InvalidDiceError(
            f"game {bad[0]}: bad dice {tuple(dice[bad[0]].tolist())}: each die is 1..{faces}"
        )
    waiting = batch.arrays.phase == int(Phase.ROLL)
    if not waiting.all():
        b = int(np.flatnonzero(~waiting)[0])
        raise IllegalActionError(
            f"game {b}: cannot roll in the {Phase(int(batch.arrays.phase[b])).name} phase; legal: "
            f"{describe_legal(batch.variant, legal_masks(batch)[b])}"
        )
    after = batch.copy()
    busts = np.zeros(batch.size, np.bool_)
    kernels.batch_roll(compile_variant(batch.variant), after.arrays, dice.astype(np.int8), busts)
    return after, busts
