"""The compiled fast path: core's rules as numba kernels over batches of games.

An optional extra (`pip install -e '.[fast]'`). Core stays the reference; this
package is proven equal to it by tests (same legal actions, same next states,
same bot decisions). Everything a player needs keeps working without it.

Kernels are compiled on first use and cached in a per-user folder (the platform's
user cache directory, `cantstop/numba/<digest>`), unless `NUMBA_CACHE_DIR` is already
set. The digest is of the source of every file with compiled functions (this package's
and `COMPILED_ELSEWHERE`): numba checks a cached kernel against its own file only, so a
kernel that compiled in a changed helper from another file would otherwise be loaded
stale (the rivals bot's stop values call the solver's kernels, for one).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from platformdirs import user_cache_dir

from cantstop.extras import missing_extra


def _require() -> None:
    """Fail at import with the command that installs what is missing."""
    for module in ("numpy", "numba"):
        try:
            __import__(module)
        except ImportError as error:
            raise missing_extra("fast", "cantstop.fast", error) from None


# The files outside this package that hold compiled functions, from the package root
# (tests/fast/test_package.py finds every such file and fails on one missing here).
COMPILED_ELSEWHERE = ("envs/vector_kernels.py", "solve/kernels.py", "solve/rival_stops.py")


def compiled_files() -> list[Path]:
    """Every source file with compiled functions: the cache's digest is of these."""
    root = Path(__file__).parent.parent
    return sorted(Path(__file__).parent.glob("*.py")) + [root / name for name in COMPILED_ELSEWHERE]


def _source_digest() -> str:
    digest = hashlib.blake2b(digest_size=8)
    for path in compiled_files():
        digest.update(path.read_bytes())
    return digest.hexdigest()


# numba reads its cache folder when it is first imported: set ours before that.
CACHE_ROOT = os.path.join(user_cache_dir("cantstop"), "numba")
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(CACHE_ROOT, _source_digest()))
_require()

from cantstop.fast.batch import Batch, from_arrays, legal_masks, new_batch, roll, step, to_arrays  # noqa: E402
from cantstop.fast.counter import CounterDice, CounterRandom, counter_dice, counter_uniform  # noqa: E402
from cantstop.fast.simulate import Simulation, simulate  # noqa: E402
from cantstop.fast.tables import compile_variant  # noqa: E402

__all__ = [
    "Batch",
    "CounterDice",
    "CounterRandom",
    "Simulation",
    "compile_variant",
    "counter_dice",
    "counter_uniform",
    "from_arrays",
    "legal_masks",
    "new_batch",
    "roll",
    "simulate",
    "step",
    "to_arrays",
]
