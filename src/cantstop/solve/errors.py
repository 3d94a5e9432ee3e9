"""The solver's one refusal: a variant, a board or a value file it cannot use."""

from __future__ import annotations

from cantstop.core.errors import CantStopError


class SolveError(CantStopError):
    """A variant, board or value file the solver cannot use; the message says why and what works."""
