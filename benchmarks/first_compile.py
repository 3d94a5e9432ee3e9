"""The first-use compile time of numba code: a fresh process with an empty numba cache.

Shared by the benchmarks that time a first compile (`fast.py`, `envs.py`).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile


def first_compile(code: str) -> tuple[float, float]:
    """Wall and CPU seconds that a fresh Python, its numba cache empty, needs to run `code`."""
    timed = (
        "import time\nwall, cpu = time.perf_counter(), time.process_time()\n"
        f"{code}\n"
        "print(time.perf_counter() - wall, time.process_time() - cpu)\n"
    )
    with tempfile.TemporaryDirectory() as cache:
        done = subprocess.run([sys.executable, "-c", timed], capture_output=True, text=True, check=True,
                              env={**os.environ, "NUMBA_CACHE_DIR": cache})
    wall, cpu = done.stdout.split()[-2:]
    return float(wall), float(cpu)
