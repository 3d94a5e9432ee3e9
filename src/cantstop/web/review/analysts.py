"""The analysis processes of one server process: a pool of worker processes that compute
every value the review room serves, off the event loop and out of its process.

The analysis's compiled kernels and the Python around them hold the interpreter lock for
a second of CPU per game: in a thread they would hold up every game this process serves.
In processes of their own, started with a lower priority (`work.warm`), the operating
system gives the game server the CPU first. Each is warmed up as it starts (the value
model loaded, the kernels compiled or read from numba's cache), so the first request
does not pay for that either.

Whole analyses take their turn (at most one per process at a time), so a roll map or the
tutor's values wait behind one analysis at most, never behind a queue of them.
"""

from __future__ import annotations

import asyncio
import gc
import importlib.util
import logging
import multiprocessing
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from typing import TypeVar

from cantstop.web.errors import NotOffered, Unavailable
from cantstop.web.review import work

log = logging.getLogger("cantstop.web")
R = TypeVar("R")
NICENESS = 10  # how much lower the analysis processes run than the server (Unix `nice`)
EXTRA = ("numba", "numpy")


def stopping() -> Unavailable:
    return Unavailable("analysis_stopping", "the server is stopping: ask again in a moment", retry_after=5)


def fast_missing() -> str | None:
    """Why this installation cannot analyse (the `fast` extra is missing), or None."""
    missing = [name for name in EXTRA if importlib.util.find_spec(name) is None]
    if not missing:
        return None
    return f"this server cannot analyse games: it lacks {' and '.join(missing)} (install the fast extra: pip install 'cantstop[fast]')"


class Analysts:
    """`size` analysis processes (0: none, and every request for a value is refused)."""

    def __init__(self, size: int, niceness: int = NICENESS) -> None:
        self.size = size
        self.niceness = niceness
        self.off: str | None = None  # why values are refused here, if they are
        if size == 0:
            self.off = "this server does not analyse games (its analysis processes are set to 0: CANTSTOP_ANALYSIS_WORKERS)"
        else:
            self.off = fast_missing()
        self._pool: ProcessPoolExecutor | None = None
        self._closed = False
        self._turns = asyncio.Semaphore(max(1, size))  # whole analyses, one per process at a time
        self.waiting = 0  # whole analyses waiting for their turn
        self.running = 0  # jobs handed to the processes and not yet done
        self.failures = 0  # jobs lost because a process died

    def start(self) -> None:
        """Start the processes and warm each up (in the background: this returns at once)."""
        if self.off is None and self._pool is None and not self._closed:
            self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        # Spawned, not forked: a fork of a server with threads and an event loop running
        # would inherit their locks in whatever state they were.
        pool = ProcessPoolExecutor(
            self.size, mp_context=multiprocessing.get_context("spawn"), initializer=work.warm, initargs=(self.niceness,),
        )
        # One task per process starts them all now: a pool starts its processes as tasks come,
        # and each runs the warm-up before its first task.
        for _ in range(self.size):
            pool.submit(int).add_done_callback(_quietly)
        return pool

    async def run(self, job: Callable[..., R], *args: object, whole: bool = False) -> R:
        """`job(*args)` in an analysis process; `whole` for a game's analysis, which waits its turn.

        Raises NotOffered where this server does not analyse (`off`), Unavailable when the
        process died under the job (it is replaced: try again), and what the job raises."""
        if self.off is not None:
            raise NotOffered("analysis_off", self.off)
        if not whole:
            return await self._submit(job, *args)
        self.waiting += 1
        try:
            await self._turns.acquire()
        finally:
            self.waiting -= 1
        try:
            return await self._submit(job, *args)
        finally:
            self._turns.release()

    async def _submit(self, job: Callable[..., R], *args: object) -> R:
        self.start()
        pool = self._pool
        if pool is None:
            raise stopping()
        self.running += 1
        try:
            future: Future[R] = pool.submit(partial(job, *args))
            return await asyncio.wrap_future(future)
        except BrokenProcessPool:
            if self._closed:  # stopped by `close`, not dead
                raise stopping() from None
            self.failures += 1
            if self._pool is pool and not self._closed:  # the first to hear of it replaces the pool
                pool.shutdown(wait=False, cancel_futures=True)
                self._pool = self._new_pool()
            log.error("an analysis process died under a job (%s); it is replaced", job.__name__)
            raise Unavailable("analysis_failed", "the analysis process stopped under this request: try again", retry_after=5) from None
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if self._closed and task is not None and not task.cancelling():  # the job, not its waiter, was stopped
                raise stopping() from None
            raise
        finally:
            self.running -= 1

    def close(self) -> None:
        """Stop the processes now, jobs under way or not (what they computed is lost, and
        their claims are released by the caller)."""
        pool, self._pool = self._pool, None
        self._closed = True
        if pool is None:
            return
        # A job under way would keep its process, and the interpreter's exit, waiting for it.
        processes = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        for process in processes:
            process.join(timeout=5)  # gone, not left a zombie
        # With its processes gone the pool's own thread ends at once. The pool and its queues
        # must go now, and their semaphores with them: a server stopped by SIGTERM ends by the
        # signal once shut down, before any later collection, and multiprocessing then reports
        # them as leaked. They sit in reference cycles, hence the collection.
        pool.shutdown(wait=True)
        del pool, processes
        gc.collect()


def _quietly(future: Future[int]) -> None:
    """A warm-up task's end: a pool shut down before it ran is no error."""
    if not future.cancelled() and future.exception() is not None and not isinstance(future.exception(), BrokenProcessPool):
        log.warning("analysis process: %s", future.exception())
