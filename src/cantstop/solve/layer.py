"""One layer of a solve: its positions in solving order, and what the solver does with each.

A layer's positions depend only on the layers solved before it, never on each other
(alone) or only on their own mirror image (with a rival), so a layer is spread over
threads, processes or machines in any split of its order.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

# What the kernels do with a position (`Layer.kind`).
FINISHED = 0  # a finished game: 0 (no turns left alone; lost with a rival: the other player won)
SOLVED = 1  # solved: alone by Newton on its turn, with a rival together with its mirror `Layer.mirror`
MIRRORED = 2  # alone on a symmetric board: copied from its mirror image once the layer is done
WON = 3  # with a rival: the player to move has already won (1); reached only as a stop's target
ALONE = 4  # with a rival: a position that is its own mirror (both players' progress alike)


@dataclass(frozen=True)
class Layer:
    """The positions of one layer in solving order, with their bookkeeping.

    Alone, `order` is every anchor of the layer and `mirror` its mirror image across
    the board. With a rival, `order` holds one position of each pair and `mirror` the
    other (the same position with the players' roles swapped): a solve writes both.
    """

    number: int
    order: npt.NDArray[np.int64]  # position indices
    kind: npt.NDArray[np.int8]  # FINISHED, SOLVED, MIRRORED, WON or ALONE
    mirror: npt.NDArray[np.int64]
    work: npt.NDArray[np.float64]  # in-turn states to evaluate (0 for finished games)
    pairs: bool = False  # a solve's values come in pairs: `order`'s, then `mirror`'s

    def slice(self, start: int, stop: int) -> Layer:
        """Positions `start:stop` of the order alone (what a worker elsewhere needs of the layer)."""
        span = slice(start, stop)
        return replace(
            self, order=self.order[span], kind=self.kind[span], mirror=self.mirror[span], work=self.work[span]
        )

    def store(self, values: npt.NDArray[np.float64], start: int, stop: int, found: npt.NDArray[np.float64]) -> None:
        """Write the values a kernel found for positions `start:stop` of the order."""
        count = stop - start
        values[self.order[start:stop]] = found[:count]
        if self.pairs:
            values[self.mirror[start:stop]] = found[count:]

    def copy_mirrors(self, values: npt.NDArray[np.float64]) -> None:
        """Fill the layer's MIRRORED anchors from their solved images."""
        copies = self.kind == MIRRORED
        values[self.order[copies]] = values[self.mirror[copies]]
