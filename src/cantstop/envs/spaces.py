"""The action space the environments hand out: a `Discrete` that samples legal actions.

Checkers and simple agents call `action_space.sample()` without a mask; drawing from
the legal actions of the current position keeps them from stepping illegal moves.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from cantstop.encoding.actions import Mask


class LegalDiscrete(spaces.Discrete):
    """A `Discrete` space whose `sample()` without a mask draws a legal action of the
    environment's current position (the environment keeps `legal` up to date)."""

    def __init__(self, n: int, seed: int | None = None) -> None:
        super().__init__(n, seed=seed)
        self.legal: Mask | None = None

    def sample(
        self, mask: Mask | None = None, probability: Mask | None = None
    ) -> np.int64:
        if mask is None and probability is None and self.legal is not None and self.legal.any():
            mask = self.legal
        return super().sample(mask=mask, probability=probability)
