"""How much memory an allocation may take: checked before allocating, never after."""

from __future__ import annotations

import os

from cantstop.core.errors import SetupError


def available_bytes() -> int:
    """Memory the system can still give (Linux's MemAvailable; else physical memory)."""
    try:
        with open("/proc/meminfo") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def check_count(count: int, what: str) -> None:
    """A clear error for a batch or run of no games."""
    if isinstance(count, bool) or not isinstance(count, int):
        raise TypeError(f"{what} must be a whole number, not {count!r}")
    if count < 1:
        raise SetupError(f"{what} must be at least 1, not {count}")


def check_fits(count: int, bytes_each: int, what: str) -> None:
    """Refuse `count` items of `bytes_each` bytes when they would not fit in memory."""
    needed = count * bytes_each
    free = available_bytes()
    if needed > free:
        raise MemoryError(
            f"{count:,} {what} need {needed / 2**30:.2f} GiB ({bytes_each} bytes each) but only "
            f"{free / 2**30:.2f} GiB is available; use fewer"
        )
