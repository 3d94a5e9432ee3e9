"""Record writing: every storage call runs off the event loop, and events are group-committed.

Many games act at the same moment; one transaction for all the events waiting at that
moment is what lets one SQLite file (one writer) keep up with hundreds of players. On
SQLite the write-ahead log is checkpointed on a thread of its own, never inside a commit.
The group commit has a thread of its own too, beside the one (SQLite) or two (PostgreSQL)
that every other storage call runs on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import ParamSpec, TypeVar

from cantstop.table import StaleMoveError
from cantstop.web.db.storage import Storage
from cantstop.web.db.values import Append

P = ParamSpec("P")
R = TypeVar("R")
CHECKPOINT_EVERY = 1.0  # seconds between SQLite checkpoints while events are being written
DRAIN = 3.0  # seconds closing waits for the events already handed in to be committed


class Recorder:
    """The one way this process reaches the database."""

    def __init__(self, storage: Storage, checkpoint_every: float = CHECKPOINT_EVERY) -> None:
        self.storage = storage
        self._executor = ThreadPoolExecutor(storage.threads, thread_name_prefix="cantstop-db")
        # The group commits have a thread of their own: a burst of reads (a wave of games
        # being set up) never queues ahead of the moves. On SQLite the other thread writes
        # too (a game created, a seat taken); when both write at once, SQLite's busy timeout
        # makes one wait the millisecond or two the other's transaction takes.
        self._commit_thread = ThreadPoolExecutor(1, thread_name_prefix="cantstop-commit")
        self._pending: list[tuple[Append, asyncio.Future[None]]] = []
        self._wake = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None
        self.checkpoint_every = checkpoint_every
        self.checkpoints = 0
        self._written = asyncio.Event()  # set by each commit, cleared by each checkpoint
        self._checkpointer: asyncio.Task[None] | None = None
        self._checkpoint_thread = ThreadPoolExecutor(1, thread_name_prefix="cantstop-checkpoint")
        self.errors = 0  # storage calls that raised something other than a refusal (the metrics read it)
        self._committing = False

    async def db(self, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """Run a (blocking) storage call off the event loop; typed as `fn` is."""
        # Without keywords the call goes as it is: a partial costs the event loop a few
        # introspection calls each time (it checks that it is handed no coroutine function).
        call = partial(fn, *args, **kwargs) if kwargs else fn
        return await self._on(self._executor, call, *(() if kwargs else args))

    async def _on(self, executor: ThreadPoolExecutor, fn: Callable[..., R], *args: object) -> R:
        try:
            return await asyncio.get_running_loop().run_in_executor(executor, fn, *args)
        except StaleMoveError:
            raise
        except Exception:
            self.errors += 1
            raise

    async def append(self, append: Append) -> None:
        """Commit one event, batched with whatever other games commit at the same moment;
        StaleMoveError if another process stored that version first."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((append, done))
        self._wake.set()
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write())
        if self.storage.sqlite and (self._checkpointer is None or self._checkpointer.done()):
            self._checkpointer = asyncio.create_task(self._checkpoint())
        await done

    async def _write(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._pending:
                batch, self._pending = self._pending, []
                self._committing = True
                try:
                    stored = await self._on(self._commit_thread, self.storage.append_many, [a for a, _ in batch])
                except Exception as error:  # the database is down: every waiting action fails alike
                    self._committing = False
                    for _, done in batch:
                        if not done.done():  # a cancelled waiter must not stop the writer
                            done.set_exception(error)
                    continue
                self._committing = False
                self._written.set()
                for (a, done), ok in zip(batch, stored):
                    if done.done():
                        continue
                    if ok:
                        done.set_result(None)
                    else:
                        done.set_exception(StaleMoveError(a.seq - 1))

    async def _checkpoint(self) -> None:
        """Now and then, while events are being written, a checkpoint on its own thread: the
        writer goes on committing meanwhile, and the log does not grow without end."""
        loop = asyncio.get_running_loop()
        while True:
            await self._written.wait()
            await asyncio.sleep(self.checkpoint_every)
            self._written.clear()
            try:
                await loop.run_in_executor(self._checkpoint_thread, self.storage.checkpoint)
            except Exception:  # the database is busy or down: the next round tries again
                continue
            self.checkpoints += 1

    async def close(self, drain: float = DRAIN) -> None:
        """Stop, once what was handed in is committed (up to `drain` seconds): a move made
        as the server stops is stored even if nobody waits for it any more."""
        writer = self._writer
        deadline = asyncio.get_running_loop().time() + drain
        while writer is not None and not writer.done() and (self._pending or self._committing):
            if asyncio.get_running_loop().time() >= deadline:
                break
            await asyncio.sleep(0.01)
        for task in (self._writer, self._checkpointer):
            if task is not None:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        self._executor.shutdown(wait=False)
        self._commit_thread.shutdown(wait=False)
        self._checkpoint_thread.shutdown(wait=False)
