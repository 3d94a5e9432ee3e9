"""The operations room of one app: its connection guard, request log and metrics, and the
database probe behind /readyz."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from sqlalchemy import text
from sqlalchemy.engine import Engine

from cantstop.web.ops.guard import STATE_KEY, ConnectionGuard
from cantstop.web.ops.metrics import Metrics, Reading
from cantstop.web.ops.requests import RequestLog, Tally
from cantstop.web.settings import Settings

PROBE_TIMEOUT = 2.0  # seconds /readyz waits for the database before saying it is not ready


class Operations:
    """`readings`: what the game service reports at each scrape (`GameService.readings`);
    `database_errors`: its failed database calls, to which the probe's own are added;
    `listening`, on PostgreSQL: set while the server hears the other processes' notices."""

    def __init__(self, settings: Settings, engine: Engine, readings: list[Reading], database_errors: Callable[[], int],
                 listening: asyncio.Event | None = None) -> None:
        self.settings = settings
        self.engine = engine
        self.listening = listening
        self.guard = ConnectionGuard(settings)
        self.sockets = Tally()
        self.probe_errors = 0
        self.metrics = Metrics([
            Reading("cantstop_open_sockets", "WebSockets open", lambda: self.sockets.value),
            *readings,
            Reading("cantstop_database_errors", "Database calls that failed (readiness probes included)",
                    lambda: database_errors() + self.probe_errors, counter=True),
            Reading("cantstop_open_connections", "Connections the guard counts (HTTP and WebSocket)", lambda: self.guard.open),
            Reading("cantstop_connections_refused", "Connections refused or shed: over an address's cap or for room",
                    lambda: self.guard.refused, counter=True),
            Reading("cantstop_requests_timed_out", "Requests dropped for not finishing their headers or body in time",
                    lambda: self.guard.dropped, counter=True),
            Reading("cantstop_listening", "1 while the server hears other processes' news (PostgreSQL's LISTEN; always 1 on SQLite)",
                    lambda: int(self.hearing)),
        ])

    @property
    def hearing(self) -> bool:
        """Whether the server hears what other server processes store: always on SQLite (there
        are none); on PostgreSQL, while its LISTEN connection is up."""
        return self.listening is None or self.listening.is_set()

    @property
    def lifespan_state(self) -> dict[str, Any]:
        """What the app's lifespan hands uvicorn: its protocols find the guard there."""
        return {STATE_KEY: self.guard}

    def install(self, app: FastAPI) -> None:
        """The request log as the outermost middleware (every response gets its id); the
        routes (ops/routes.py) find this room in the app's state."""
        app.state.ops = self
        app.add_middleware(RequestLog, sockets=self.sockets, trusted_proxies=self.settings.trusted_proxies)

    async def database_reachable(self) -> bool:
        """One trivial query on a connection of its own, off the recorder's threads (a hung
        probe must not hold up actions), within PROBE_TIMEOUT."""
        engine = self.engine

        def probe() -> None:
            with engine.connect() as conn:
                conn.execute(text("SELECT 1"))

        try:
            async with asyncio.timeout(PROBE_TIMEOUT):
                await asyncio.to_thread(probe)
        except Exception:
            self.probe_errors += 1
            return False
        return True
