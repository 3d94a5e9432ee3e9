"""Solving a board layer by layer into its value file, with resume, progress and a plan first."""

from __future__ import annotations

import os
import shutil
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from cantstop.solve.board import Board
from cantstop.solve.errors import SolveError
from cantstop.solve.layer import Layer
from cantstop.solve.value_file import ValueFile

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from cantstop.solve.parts import Workers


def free_disk(path: Path) -> int:
    folder = path.parent
    while not folder.exists():
        folder = folder.parent
    return shutil.disk_usage(folder).free


def mib(count: int) -> str:
    return f"{count / 2**20:,.1f} MiB"


@dataclass(frozen=True)
class Plan:
    """What a solve of `board` into `path` takes, and whether this machine has it."""

    board: Board
    path: Path
    threads: int
    memory: int
    disk: int
    memory_free: int
    disk_free: int

    @staticmethod
    def make(board: Board, path: Path, threads: int, layers: tuple[int, int] | None = None) -> Plan:
        """The plan of solving `layers` (first, stop) of `board`, all of them by default."""
        from cantstop.fast.memory import available_bytes  # the kernels need the fast extra anyway

        existing = path.stat().st_size if path.exists() else 0
        return Plan(
            board,
            path,
            threads,
            board.memory_bytes(threads, layers or (0, board.layers)),
            board.disk_bytes(),
            available_bytes(),
            free_disk(path) + existing,
        )

    def describe(self) -> str:
        b = self.board
        players, unit = ("", "anchors") if b.players == 1 else (f" for {b.players} players", "positions")
        return (
            f"{b.key}{players}: {b.anchors:,} {unit} ({b.live_anchors:,} with the game still on) "
            f"in {b.layers} layers, {b.states:,} in-turn states\n"
            f"needs {mib(self.memory)} of memory ({mib(self.memory_free)} available) and "
            f"{mib(self.disk)} of disk ({mib(self.disk_free)} free); value file: {self.path}"
        )

    def refusal(self) -> str | None:
        """Why this machine cannot solve it, or None."""
        if self.memory > self.memory_free:
            return f"not enough memory: the solve needs {mib(self.memory)}, {mib(self.memory_free)} is available"
        if self.disk > self.disk_free:
            return f"not enough disk: the value file needs {mib(self.disk)}, {mib(self.disk_free)} is free"
        return None


CHUNK_SECONDS = 1.0  # work per kernel call when solving in place: the grain of progress and Ctrl-C
CHECKPOINT_SHARE = 0.1  # most of the time saving resume points may take (checksumming the value file)

Progress = Callable[[float, float], None]  # (work done, total work)


def solve(
    board: Board,
    path: Path,
    threads: int | None = None,
    restart: bool = False,
    progress: Progress | None = None,
    layers: tuple[int, int] | None = None,
    workers: Workers | None = None,
) -> ValueFile:
    """Solve `board` into the value file at `path`, resuming one already there.

    `layers` (first, stop) solves only those layers, counted from the most advanced,
    once the ones above are in the file. `workers` hands each layer out in
    independent parts (`LocalParts`, or `RayParts` for a cluster) instead of solving
    it in place; the values come out the same to the bit.

    Checks the machine first (SolveError, nothing written, when it falls short).
    Ctrl-C (KeyboardInterrupt) saves the resume point before it propagates.
    """
    cores = os.cpu_count() or 1
    threads = min(threads or cores, cores)  # numba starts one thread per core at most
    first, stop = layers or (0, board.layers)
    if not 0 <= first < stop <= board.layers:
        raise SolveError(
            f"layers {first}:{stop} are not a slice of {board.key}'s {board.layers} layers "
            f"(0:{board.layers}, the most advanced first)"
        )
    plan = Plan.make(board, path, threads, (first, stop))
    reason = plan.refusal()
    if reason:
        raise SolveError(f"cannot solve {board.key}: {reason}")
    target = ValueFile.create(path, board, board.layers) if restart or not path.exists() else ValueFile.open(path, board, True)
    done = target.header.layers_done
    if done < first:
        raise SolveError(
            f"layers {first}:{stop} of {board.key} need the {first} layers above them, but the "
            f"value file at {path} has {done}: solve layers {done}:{first} first"
        )
    if done >= stop:
        return target
    import numba

    numba.set_num_threads(threads)
    with _terminate_as_interrupt():
        _run(board, target, stop, threads, progress, workers)
    return target


@contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM ends a solve as Ctrl-C does: with the resume point saved."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _run(
    board: Board, target: ValueFile, stop: int, threads: int, progress: Progress | None, workers: Workers | None
) -> None:
    """Solve from the value file's resume point through layer `stop` - 1."""
    import numpy as np

    values = np.asarray(target.values)
    first = target.header.layers_done
    layer_work = [work for _, work in board.layer_sizes]
    total = float(sum(layer_work[first:stop]))
    before = 0.0  # work of the layers finished in this run
    number, position = first, target.header.anchors_done
    now = time.monotonic()
    clock = _Clock(now, now, target.checksum_seconds)
    target.begin_writing()
    try:
        while number < stop:
            layer = board.layer(number)
            cumulative = np.concatenate(([0.0], np.cumsum(layer.work)))
            steps = (
                _in_place(board, layer, values, threads, position, cumulative)
                if workers is None
                else workers.solve(board, target, layer, position, threads)
            )
            for position in steps:
                if progress is not None:
                    progress(before + float(cumulative[position]), total)
            layer.copy_mirrors(values)
            number, position, before = number + 1, 0, before + layer_work[layer.number]
            if number < board.layers:
                clock = _between_layers(target, number, clock, workers is not None)
    finally:
        _checkpoint(target, number, position, clock)


def _in_place(
    board: Board, layer: Layer, values: npt.NDArray[np.float64], threads: int, position: int,
    cumulative: npt.NDArray[np.float64],
) -> Iterator[int]:
    """Solve the layer from `position` into the value file, about a second of work per kernel call."""
    import numpy as np

    rules = board.rules()
    end = len(layer.order)
    rate = 1e5  # in-turn states per second, measured as the solve goes
    while position < end:
        wanted = cumulative[position] + rate * CHUNK_SECONDS
        stop = int(min(end, max(position + 1, np.searchsorted(cumulative, wanted))))
        tick = time.monotonic()
        layer.store(values, position, stop, board.solve_chunk(layer, position, stop, values, rules, threads))
        spent = time.monotonic() - tick
        if cumulative[stop] > cumulative[position] and spent > 0.01:
            rate = (cumulative[stop] - cumulative[position]) / spent
        position = stop
        yield position


@dataclass(frozen=True)
class _Clock:
    started: float  # when the solving time not yet in the header began
    saved: float  # when the last resume point was saved
    checksum_seconds: float  # how long saving it took


def _between_layers(target: ValueFile, layers_done: int, clock: _Clock, parts: bool) -> _Clock:
    """A layer is done: save a resume point unless that would take too large a share of the time.

    Saving checksums the whole file (a minute and a half on the full board's 55 GiB),
    so big ones save one only every so often. Solving in parts, the values are
    flushed to the file every layer all the same, for workers that read it.
    """
    now = time.monotonic()
    if clock.checksum_seconds <= CHECKPOINT_SHARE * (now - clock.saved):
        clock = _checkpoint(target, layers_done, 0, clock)
        target.begin_writing()
    elif parts:
        target.flush()
    return clock


def _checkpoint(target: ValueFile, layers_done: int, anchors_done: int, clock: _Clock) -> _Clock:
    """Save the resume point and the time spent; returns the clock restarted."""
    now = time.monotonic()
    header = replace(
        target.header,
        layers_done=layers_done,
        anchors_done=anchors_done,
        seconds=target.header.seconds + now - clock.started,
    )
    target.save(header)
    saved = time.monotonic()
    return _Clock(saved, saved, target.checksum_seconds)
