"""A finished game's analysis for the terminal: worked out once, off the event loop.

The first analysis or roll map in a process loads the value model and compiles its
kernels (seconds); later ones take a second or two a classic game. So the screens run
`Analysed.compute` and `Analysed.roll_map` in worker threads, and keep one `Analysed` per
game so that closing and reopening the analysis costs nothing.
"""

from __future__ import annotations

import dataclasses
import threading

from cantstop.analysis import GameAnalysis, analyse
from cantstop.analysis.game import DecisionNote
from cantstop.analysis.rollmap import RollMap, roll_map
from cantstop.core.errors import CantStopError
from cantstop.core.record import Record
from cantstop.core.state import Phase, State

ROLLING = (Phase.ROLL, Phase.DECIDE)


class Analysed:
    """One finished game, its analysis (or why there is none) and the roll maps asked of it."""

    def __init__(self, record: Record) -> None:
        # A copy: the analysis runs in a thread while the game's own record stays with its table.
        self.record = dataclasses.replace(record, events=list(record.events), tags=dict(record.tags))
        self.states = list(self.record.states())
        self.analysis: GameAnalysis | None = None
        self.refusal: str | None = None  # why the game cannot be analysed, in one line
        self._lock = threading.Lock()  # one analysis at a time: a second caller waits for the first's
        self._maps: dict[int, RollMap | str] = {}

    @property
    def done(self) -> bool:
        return self.analysis is not None or self.refusal is not None

    def compute(self) -> None:
        """Analyse the game, once (blocks: run it in a thread). A refusal is kept as its reason."""
        with self._lock:
            if self.done:
                return
            try:
                self.analysis = analyse(self.record)
            except CantStopError as error:  # no value model, the fast extra missing, ...
                self.refusal = str(error)

    def rolling_position(self, note: DecisionNote) -> State | None:
        """The position the decision's roll map is of: roll on or stop is decided in it; a choice
        is made after a roll, so it is the position before that roll. None: no roll was due."""
        state = self.states[note.ply - 1]
        if state.phase is Phase.CHOOSE:  # only a roll leads to a choice: the state before it rolled
            state = self.states[note.ply - 2]
        return state if state.phase in ROLLING else None

    def cached_roll_map(self, note: DecisionNote) -> RollMap | str | None:
        """The roll map of the decision's position if worked out already, or why it cannot be."""
        return self._maps.get(note.ply)

    def roll_map(self, note: DecisionNote) -> RollMap | str | None:
        """The roll map of `rolling_position(note)` (blocks: run it in a thread), or the reason
        there is none in one line; None where the decision had no roll before it."""
        found = self._maps.get(note.ply)
        if found is not None:
            return found
        state = self.rolling_position(note)
        if state is None:
            return None
        try:
            found = roll_map(state)
        except CantStopError as error:
            found = str(error)
        self._maps[note.ply] = found
        return found
