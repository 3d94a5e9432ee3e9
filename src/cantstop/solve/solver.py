"""Solving a board layer by layer into its table, with resume, progress and a plan first."""

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

from cantstop.solve.board import Board, RollClasses, SolveError
from cantstop.solve.table import Table

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt


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
    def make(board: Board, path: Path, threads: int) -> Plan:
        from cantstop.fast.memory import available_bytes  # the kernels need the fast extra anyway

        existing = path.stat().st_size if path.exists() else 0
        return Plan(
            board,
            path,
            threads,
            board.memory_bytes(threads),
            board.disk_bytes(),
            available_bytes(),
            free_disk(path) + existing,
        )

    def describe(self) -> str:
        b = self.board
        return (
            f"{b.key}: {b.anchors:,} anchors ({b.live_anchors:,} with the game still on) "
            f"in {b.layers} layers, {b.states:,} in-turn states\n"
            f"needs {mib(self.memory)} of memory ({mib(self.memory_free)} available) and "
            f"{mib(self.disk)} of disk ({mib(self.disk_free)} free); table: {self.path}"
        )

    def refusal(self) -> str | None:
        """Why this machine cannot solve it, or None."""
        if self.memory > self.memory_free:
            return f"not enough memory: the solve needs {mib(self.memory)}, {mib(self.memory_free)} is available"
        if self.disk > self.disk_free:
            return f"not enough disk: the table needs {mib(self.disk)}, {mib(self.disk_free)} is free"
        return None


@dataclass(frozen=True)
class Layers:
    """Every anchor in solving order (most advanced layer first) with its bookkeeping.

    On a symmetric board only one anchor of each mirror pair is solved; the other
    (`kind` MIRRORED) is copied from it when its layer is done.
    """

    order: npt.NDArray[np.int64]  # anchor indices
    starts: tuple[int, ...]  # where each layer begins in `order`; layer 0 is the most advanced
    kind: npt.NDArray[np.int8]  # by position in `order`: FINISHED, SOLVED or MIRRORED
    mirror: npt.NDArray[np.int64]  # by position in `order`: the mirror image's anchor index
    work: npt.NDArray[np.float64]  # by position in `order`: in-turn states to evaluate

    @staticmethod
    def of(board: Board) -> Layers:
        import numpy as np

        from cantstop.solve.kernels import FINISHED, MIRRORED, SOLVED

        index = np.arange(board.anchors, dtype=np.int64)
        total = np.zeros(board.anchors, dtype=np.int64)
        claims = np.zeros(board.anchors, dtype=np.int64)
        mirror = np.zeros(board.anchors, dtype=np.int64)
        sums = [np.ones(board.anchors)] + [np.zeros(board.anchors) for _ in range(board.runners)]
        for stride, h, opposite in zip(board.strides, board.heights, board.strides[::-1], strict=True):
            digit = index // stride % (h + 1)
            total += digit
            claims += digit == h
            mirror += digit * opposite
            room = (h - digit).astype(np.float64)
            for k in range(board.runners, 0, -1):  # elementary symmetric sums of the rooms
                sums[k] += sums[k - 1] * room
        order = np.argsort(-total, kind="stable")
        counts = np.bincount(board.layers - 1 - total, minlength=board.layers)
        starts = tuple(int(s) for s in np.concatenate(([0], np.cumsum(counts))))
        kind = np.where(claims < board.to_win, SOLVED, FINISHED).astype(np.int8)
        if board.symmetric:
            kind[(kind == SOLVED) & (mirror < index)] = MIRRORED
        kind, mirror = kind[order], mirror[order]
        work = np.where(kind == SOLVED, np.sum(sums, axis=0)[order], 0.0)
        return Layers(order, starts, kind, mirror, work)

    def copy_mirrors(self, layer: int, values: npt.NDArray[np.float64]) -> None:
        """Fill the layer's mirrored anchors from their solved images."""
        from cantstop.solve.kernels import MIRRORED

        span = slice(self.starts[layer], self.starts[layer + 1])
        copies = self.kind[span] == MIRRORED
        values[self.order[span][copies]] = values[self.mirror[span][copies]]


CHUNK_SECONDS = 1.0

Progress = Callable[[float, float], None]  # (work done, total work)


def solve(
    board: Board,
    path: Path,
    threads: int | None = None,
    restart: bool = False,
    progress: Progress | None = None,
) -> Table:
    """Solve `board` into the table at `path`, resuming a table already there.

    Checks the machine first (SolveError, nothing written, when it falls short).
    Ctrl-C (KeyboardInterrupt) saves the resume point before it propagates.
    """
    cores = os.cpu_count() or 1
    threads = min(threads or cores, cores)  # numba starts one thread per core at most
    plan = Plan.make(board, path, threads)
    reason = plan.refusal()
    if reason:
        raise SolveError(f"cannot solve {board.key}: {reason}")
    table = Table.create(path, board) if restart or not path.exists() else Table.open(path, board, True)
    if table.header.complete:
        return table
    import numba

    numba.set_num_threads(threads)
    with _terminate_as_interrupt():
        _run(board, table, Layers.of(board), threads, progress)
    return table


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


def _run(board: Board, table: Table, layers: Layers, threads: int, progress: Progress | None) -> None:
    import numpy as np

    from cantstop.solve import kernels

    rules = RollClasses.build(board).rules(board)
    values = np.asarray(table.values)
    done_work = np.concatenate(([0.0], np.cumsum(layers.work)))
    layer = table.header.layers_done
    position = layers.starts[layer] + table.header.anchors_done
    rate = 1e5  # in-turn states per second, measured as the solve goes
    started = time.monotonic()
    table.begin_writing()
    try:
        while layer < board.layers:
            end = layers.starts[layer + 1]
            while position < end:
                # About a second of work per chunk: the grain of progress and of Ctrl-C.
                wanted = done_work[position] + rate * CHUNK_SECONDS
                stop = int(min(end, max(position + 1, np.searchsorted(done_work, wanted))))
                tick = time.monotonic()
                kernels.solve_chunk(
                    layers.order[position:stop], layers.kind[position:stop], values, rules,
                    board.most_local, threads,
                )
                spent = time.monotonic() - tick
                if done_work[stop] > done_work[position] and spent > 0.01:
                    rate = (done_work[stop] - done_work[position]) / spent
                position = stop
                if progress is not None:
                    progress(float(done_work[position]), float(done_work[-1]))
            layers.copy_mirrors(layer, values)
            layer += 1
            if layer < board.layers:  # a layer done: a resume point (the last one is below)
                started = _checkpoint(table, layer, 0, started)
                table.begin_writing()
    finally:
        _checkpoint(table, layer, position - layers.starts[layer], started)


def _checkpoint(table: Table, layers_done: int, anchors_done: int, started: float) -> float:
    """Save the resume point and the time spent; returns the new start of the clock."""
    now = time.monotonic()
    header = replace(
        table.header,
        layers_done=layers_done,
        anchors_done=anchors_done,
        seconds=table.header.seconds + now - started,
    )
    table.save(header)
    return now
