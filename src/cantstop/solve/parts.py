"""A layer handed out in independent parts, in this process or as Ray tasks.

The anchors of one layer depend only on the layers above, so a layer splits into
parts (contiguous runs of its solving order, of about equal work) that any process
can solve from the value file alone: `solve_part` opens the file read-only,
solves its anchors and returns their values; the solver writes them into the
file. In this process (`LocalParts`) that proves the parts independent; on a Ray
cluster (`RayParts`) every node must read the same value file at the same path (a
shared file system), which the solver flushes after every layer.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from cantstop.cluster import connect
from cantstop.solve.board import Board
from cantstop.solve.layer import Layer
from cantstop.solve.value_file import ValueFile

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Span = tuple[int, int]


class Workers(Protocol):
    def solve(self, board: Board, target: ValueFile, layer: Layer, position: int, threads: int) -> Iterator[int]:
        """Solve `layer` from `position` into the value file `target`; yields how far it is done without a gap."""
        ...


def solve_part(board: Board, path: Path, layer: Layer, span: Span, threads: int) -> npt.NDArray[np.float64]:
    """The values of positions `span` of the layer (for `Layer.store`), read from the file at `path` alone."""
    import numba

    numba.set_num_threads(threads)
    view = ValueFile.open_view(path, board)
    return board.solve_chunk(layer, span[0], span[1], view.values, board.rules(), threads)


def spans(layer: Layer, position: int, count: int) -> list[Span]:
    """The layer from `position` in at most `count` runs of about equal work."""
    import numpy as np

    work = np.concatenate(([0.0], np.cumsum(layer.work[position:])))
    cuts = np.searchsorted(work, np.linspace(0.0, work[-1], count + 1)[1:-1])
    bounds = sorted({position, *(position + int(c) for c in cuts), len(layer.order)})
    return [(a, b) for a, b in pairwise(bounds) if a < b]


def collect(
    target: ValueFile, layer: Layer, parts: list[Span], results: Iterable[tuple[int, npt.NDArray[np.float64]]]
) -> Iterator[int]:
    """Write each finished part's values; yields the end of the run of parts done from the start."""
    finished = [False] * len(parts)
    ready = 0
    for i, found in results:
        start, stop = parts[i]
        layer.store(target.values, start, stop, found)
        finished[i] = True
        while ready < len(parts) and finished[ready]:
            ready += 1
        if ready:
            yield parts[ready - 1][1]


@dataclass(frozen=True)
class LocalParts:
    """Every layer in `count` parts, solved one after another in this process."""

    count: int

    def solve(self, board: Board, target: ValueFile, layer: Layer, position: int, threads: int) -> Iterator[int]:
        parts = spans(layer, position, self.count)
        results = (
            (i, solve_part(board, target.path, layer, span, threads)) for i, span in enumerate(parts)
        )
        return collect(target, layer, parts, results)


@dataclass(frozen=True)
class RayParts:
    """Every layer in `count` parts, one Ray task (one CPU) each, on the cluster at `address`."""

    address: str
    count: int

    def solve(self, board: Board, target: ValueFile, layer: Layer, position: int, threads: int) -> Iterator[int]:
        ray = connect(self.address, threads, "cantstop solve --ray")
        task: Any = ray.remote(num_cpus=1)(solve_part)
        parts = spans(layer, position, self.count)
        path = target.path.resolve()
        pending = {task.remote(board, path, layer.slice(*span), (0, span[1] - span[0]), 1): i for i, span in enumerate(parts)}
        return collect(target, layer, parts, _as_done(ray, pending))


def _as_done(ray: Any, pending: dict[Any, int]) -> Iterator[tuple[int, npt.NDArray[np.float64]]]:
    """Results as the tasks finish; the rest cancelled when the caller stops (Ctrl-C)."""
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                yield pending.pop(ref), ray.get(ref)
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
