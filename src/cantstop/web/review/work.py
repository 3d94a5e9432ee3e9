"""What the analysis processes run (`analysts`), and what they hand back: plain values, each
job a function of text (a record, a position's notation), so nothing but strings and
numbers crosses between processes.

Every value comes from `cantstop.analysis`; this module only asks it and shapes the answer.
It imports nothing of the server, so a worker process starts with the analysis alone.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import threading
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Any

from cantstop.analysis import analyse, decision_options
from cantstop.analysis.judges import Units
from cantstop.analysis.rollmap import roll_map
from cantstop.analysis.warm import warm_up
from cantstop.analysis.wording import decision_text, roll_text, turn_rows, warning_text
from cantstop.core.notation import from_notation
from cantstop.core.record import read_record

log = logging.getLogger("cantstop.web")

# The loss from which a decision is one practice asks again: points of chance to win, or
# alone turns (at the grades' own rate, 0.05 turns a point: docs/analysis.md).
PRACTICE_LOSS = {Units.CHANCE: 5.0, Units.TURNS: 0.25}
# Where the tutor's threshold (in points) is read alone: what a point is worth in turns.
POINT = {Units.CHANCE: 1.0, Units.TURNS: 0.05}


@dataclass(frozen=True)
class Figures:
    """One player's figures in an analysed game."""

    seat: int
    units: str
    accuracy: float | None
    luck: float
    loss: float
    decisions: int


@dataclass(frozen=True)
class Costly:
    """A decision that cost its player at least PRACTICE_LOSS: practice asks it again."""

    ply: int
    seat: int
    units: str
    position: str
    options: str  # JSON: [[action, value], ...], best first
    chosen: str
    loss: float


@dataclass(frozen=True)
class Computed:
    """A game's analysis as its JSON text, its players' figures and its costly decisions."""

    data: str
    figures: tuple[Figures, ...]
    costly: tuple[Costly, ...]


def analysed(record_text: str) -> Computed:
    """The analysis of the finished game in `record_text` (the record format): its JSON, with
    `said`, each decision's and each roll's sentence by event and each turn's row of the
    table (as the command line says them).

    Raises `AnalysisError` (a game not over, no value model for it) and `RecordError` (a
    record that does not replay), as `cantstop.analysis.analyse` does."""
    analysis = analyse(read_record(record_text))
    units = analysis.units
    figures = tuple(Figures(r.seat, units.value, r.accuracy, r.luck, r.loss, r.decisions) for r in analysis.reports)
    costly = tuple(
        Costly(d.ply, d.seat, units.value, d.position, json.dumps([[o.action, o.value] for o in d.options]), d.chosen, d.loss)
        for d in analysis.decisions
        if len(d.options) > 1 and d.loss >= PRACTICE_LOSS[units]
    )
    data = analysis.to_json()
    data["said"] = {
        "decisions": {str(d.ply): decision_text(d, units) for d in analysis.decisions},
        "rolls": {str(r.ply): roll_text(r, units) for r in analysis.rolls},
        "turns": [{"turn": t.turn, "seat": t.seat, "words": t.words, "last": t.last} for t in turn_rows(analysis)],
    }
    return Computed(json.dumps(data, separators=(",", ":")), figures, costly)


def roll_map_of(position: str) -> dict[str, Any]:
    """The roll map of a position (notation) about to roll or deciding whether to.

    Raises `AnalysisError` as `roll_map` does."""
    return roll_map(from_notation(position)).to_json()


def options_of(position: str) -> dict[str, Any]:
    """The tutor's view of a position's decision: each option's value, what it gives up
    against the best, its grade and the sentence that says so; `point` is what a point of
    the player's threshold is in the game's units.

    Raises `AnalysisError` as `decision_options` does."""
    found = decision_options(from_notation(position))
    options = [
        {"action": o.action, "value": o.value, "loss": found.loss(o.action), "grade": found.grade(o.action).value,
         "warning": warning_text(found, o.action)}
        for o in found.options
    ]
    return {"position": found.position, "seat": found.seat, "turn": found.turn, "units": found.units.value,
            "point": POINT[found.units], "options": options}


def warm(niceness: int) -> None:
    """Each analysis process's start: it ends with the server, yields the CPU to it
    (`niceness`), then loads the classic value model and compiles (or loads from numba's
    cache) the kernels, so that the first request does not wait for them. A failure here is
    only logged: the first job that needs what failed says why."""
    follow_parent()
    try:
        os.nice(niceness)
    except OSError as error:  # not allowed here: the processes run at the server's priority
        log.warning("analysis process: could not lower its priority (%s)", error)
    try:
        warm_up()
    except Exception as error:
        log.warning("analysis process: the warm-up failed (%s); the first analysis pays for it", error)


def follow_parent() -> None:
    """End this process as soon as the one that started it ends, however it ends: a server
    killed outright (SIGKILL, the out-of-memory killer) never shuts its pool down, and its
    analysis processes would otherwise wait for work forever (their queue's pipe stays
    open, as each holds both of its ends)."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        wait([parent.sentinel])
        os._exit(0)

    threading.Thread(target=watch, name="cantstop-parent", daemon=True).start()
