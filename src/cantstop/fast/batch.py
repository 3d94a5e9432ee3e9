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
from cantstop.fast.memory import check_count, check_fits
from cantstop.fast.tables import H_ACTIONS, as_variant, compile_variant


class _Slot:
    """A field kept in one slot of every row: reading it gives the [games] view of that slot."""

    def __init__(self, slot: int, doc: str) -> None:
        self.slot = slot
        self.__doc__ = f"[games]: {doc}."

    def __get__(self, batch: Batch, owner: object) -> np.ndarray:
        return batch.rows[:, self.slot]


@dataclass(frozen=True)
class Batch:
    """Positions of one variant and player count, one int32 row per game (see `kernels`).

    The named fields are views with a leading game axis, columns indexed from 0 (column
    number c is index c - 2); writing to them writes the batch.
    """

    variant: Variant
    rows: np.ndarray  # int32[games, row_length]

    @property
    def size(self) -> int:
        return len(self.rows)

    @property
    def columns(self) -> int:
        return len(self.variant.heights)

    @property
    def num_players(self) -> int:
        return int((self.rows.shape[1] - kernels.R_RUNNERS) // self.columns - 2)

    # One int32 slot of each row, as a [games] view.
    seat = _Slot(kernels.R_PLAYER, "the seat to move (the winner once over)")
    phase = _Slot(kernels.R_PHASE, "core's `Phase` numbers")
    steps = _Slot(kernels.R_STEPS, "steps taken this turn")
    turn = _Slot(kernels.R_TURN, "finished turns")

    @property
    def dice(self) -> np.ndarray:
        """[games, 4]: the roll in CHOOSE, else zeros."""
        return self.rows[:, kernels.R_DICE : kernels.R_DICE + 4]

    @property
    def runners(self) -> np.ndarray:
        """[games, columns]: a runner's space, or 0."""
        return self.rows[:, kernels.R_RUNNERS : kernels.R_RUNNERS + self.columns]

    @property
    def claimed(self) -> np.ndarray:
        """[games, columns]: the owner, or -1."""
        start = kernels.R_RUNNERS + self.columns
        return self.rows[:, start : start + self.columns]

    @property
    def pieces(self) -> np.ndarray:
        """[games, players, columns]: each player's piece, 0 meaning off the board."""
        start = kernels.R_RUNNERS + 2 * self.columns
        return self.rows[:, start:].reshape(self.size, self.num_players, self.columns)

    def copy(self) -> Batch:
        return Batch(self.variant, self.rows.copy())


def bytes_per_game(variant: Variant, players: int) -> int:
    """Memory one position takes in a batch."""
    return 4 * kernels.row_length(len(variant.heights), players)


def new_batch(variant: Variant | str, players: int, size: int) -> Batch:
    """`size` opening positions (seat 0 to roll) of a variant or preset name; refused
    before allocating if too big."""
    variant = as_variant(variant)
    check_count(size, "a batch's size")
    if why := variant.players_text(players):
        raise ValueError(why)
    return _allocate(variant, players, size)


def _allocate(variant: Variant, players: int, size: int) -> Batch:
    check_count(size, "a batch's size")
    check_fits(size, bytes_per_game(variant, players), "positions")
    batch = Batch(variant, np.zeros((size, kernels.row_length(len(variant.heights), players)), np.int32))
    batch.claimed[:] = -1
    return batch


def to_arrays(states: Sequence[State]) -> Batch:
    """Core states (one variant, one player count) as a batch."""
    if not states:
        raise ValueError("to_arrays needs at least one state")
    first = states[0]
    for i, state in enumerate(states):
        if state.variant != first.variant or state.num_players != first.num_players:
            raise ValueError(
                f"state {i} is {state.variant.name} with {state.num_players} players, but state 0 is "
                f"{first.variant.name} with {first.num_players}: a batch holds one variant and player count"
            )
    batch = _allocate(first.variant, first.num_players, len(states))
    pieces = batch.pieces  # a view: reshaping rows of a 2-d array needs no copy
    for b, state in enumerate(states):
        pieces[b] = [row[2:] for row in state.pieces]
        batch.runners[b] = state.runners[2:]
        batch.claimed[b] = state.claimed[2:]
        batch.seat[b] = state.seat
        batch.phase[b] = int(state.phase)
        batch.dice[b] = state.dice if state.dice is not None else (0, 0, 0, 0)
        batch.steps[b] = state.steps
        batch.turn[b] = state.turn
    return batch


def from_arrays(batch: Batch) -> list[State]:
    """The core states of a batch, equal (`==`) to the ones it was made from."""
    variant = batch.variant
    pad = [0, 0]
    pieces, runners, phases, dice = batch.pieces, batch.runners, batch.phase, batch.dice
    seat, steps, turn = batch.seat, batch.steps, batch.turn
    states = []
    for b in range(batch.size):
        phase = Phase(int(phases[b]))
        # Claims are not read back: make_state derives them from the pieces on top spaces,
        # which the kernels keep in step (the round trip test compares them).
        states.append(
            make_state(
                variant,
                tuple(tuple(pad + row.tolist()) for row in pieces[b]),
                tuple(pad + runners[b].tolist()),
                int(seat[b]),
                phase,
                tuple(dice[b].tolist()) if phase is Phase.CHOOSE else None,
                int(steps[b]),
                int(turn[b]),
            )
        )
    return states


def legal_masks(batch: Batch) -> np.ndarray:
    """bool[games, actions]: the legal actions of every game over the one numbering."""
    tab = compile_variant(batch.variant)
    out = np.zeros((batch.size, tab[H_ACTIONS]), np.bool_)
    kernels.batch_masks(tab, batch.rows, out)
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
        phase = Phase(int(batch.phase[b])).name
        raise IllegalActionError(
            f"game {b}: {what} in the {phase} phase; legal: {describe_legal(batch.variant, masks[b])}"
        )
    return actions


def step(batch: Batch, actions: np.ndarray) -> Batch:
    """A new batch with `actions[b]` played in game b (core: `State.play`); all or nothing."""
    checked = check_actions(batch, actions)
    after = batch.copy()
    kernels.batch_apply(compile_variant(batch.variant), after.rows, checked)
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
    waiting = batch.phase == int(Phase.ROLL)
    if not waiting.all():
        b = int(np.flatnonzero(~waiting)[0])
        raise IllegalActionError(
            f"game {b}: cannot roll in the {Phase(int(batch.phase[b])).name} phase; legal: "
            f"{describe_legal(batch.variant, legal_masks(batch)[b])}"
        )
    after = batch.copy()
    busts = np.zeros(batch.size, np.bool_)
    kernels.batch_roll(compile_variant(batch.variant), after.rows, dice.astype(np.int32), busts)
    return after, busts
