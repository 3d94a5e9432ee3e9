"""Seeing numba compile: which kernels it compiles while a bot is made ready, so that a
front end can say "compiling … (first run only)" instead of seeming to hang.

numba announces a compile only when its disk cache has no copy of the kernel, so a
watch hears nothing on every run after the first (and nothing without the fast extra).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def watch_compiling(on_compile: Callable[[str], None]) -> Iterator[None]:
    """While the block runs, call `on_compile(name)` each time numba starts compiling a
    function (from whichever thread compiles it): `name` is qualified by its module
    (`cantstop.solve.kernels.layout`; numba's own helpers are in numba's modules)."""
    try:  # cantstop.fast first: it names numba's cache folder, which numba reads on import
        import cantstop.fast  # noqa: F401
    except ImportError:  # no numba: nothing will compile
        yield
        return
    from numba.core import event

    class Listener(event.Listener):
        def on_start(self, happened: Any) -> None:
            function = getattr(happened.data["dispatcher"], "py_func", None)
            module = getattr(function, "__module__", None) or "numba"
            on_compile(f"{module}.{getattr(function, '__qualname__', 'function')}")

        def on_end(self, happened: Any) -> None:
            pass

    with event.install_listener("numba:compile", Listener()):
        yield


def cache_folder() -> str:
    """Where numba keeps what it compiled (set by `cantstop.fast` unless NUMBA_CACHE_DIR was)."""
    return os.environ.get("NUMBA_CACHE_DIR", "numba's default cache folder")
