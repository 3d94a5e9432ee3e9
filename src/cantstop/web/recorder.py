"""Record writing: every storage call runs off the event loop, and events are group-committed.

Many games act at the same moment; one transaction for all the events waiting at that
moment is what lets one SQLite file (one writer) keep up with hundreds of players.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from cantstop.web.storage import Append, StaleError, Storage


class Recorder:
    """The one way this process reaches the database."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._executor = ThreadPoolExecutor(storage.threads, thread_name_prefix="cantstop-db")
        self._pending: list[tuple[Append, asyncio.Future[None]]] = []
        self._wake = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None

    async def db(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run a (blocking) storage call off the event loop."""
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    async def append(self, append: Append) -> None:
        """Commit one event, batched with whatever other games commit at the same moment;
        StaleError if another process stored that version first."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((append, done))
        self._wake.set()
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write())
        await done

    async def _write(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._pending:
                batch, self._pending = self._pending, []
                try:
                    stored = await self.db(self.storage.append_many, [a for a, _ in batch])
                except Exception as error:  # the database is down: every waiting action fails alike
                    for _, done in batch:
                        if not done.done():  # a cancelled waiter must not stop the writer
                            done.set_exception(error)
                    continue
                for (a, done), ok in zip(batch, stored):
                    if done.done():
                        continue
                    if ok:
                        done.set_result(None)
                    else:
                        done.set_exception(StaleError(f"version {a.seq} of game {a.game_id} is taken"))

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.cancel()
            await asyncio.gather(self._writer, return_exceptions=True)
        self._executor.shutdown(wait=False)
