"""The operations room of one app: its connection guard, request log and metrics, and the
database probe behind /readyz."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import FastAPI
from sqlalchemy import text

from cantstop.web.ops.guard import STATE_KEY, ConnectionGuard
from cantstop.web.ops.metrics import Metrics, Reading
from cantstop.web.ops.requests import RequestLog, Tally
from cantstop.web.service import GameService
from cantstop.web.settings import Settings

PROBE_TIMEOUT = 2.0  # seconds /readyz waits for the database before saying it is not ready


class Operations:
    def __init__(self, service: GameService, settings: Settings) -> None:
        self.service = service
        self.settings = settings
        self.guard = ConnectionGuard(settings)
        self.sockets = Tally()
        self.probe_errors = 0
        games = service.games
        self.metrics = Metrics([
            Reading("cantstop_open_sockets", "WebSockets open", lambda: self.sockets.value),
            Reading("cantstop_live_games", "Games in progress held in memory",
                    lambda: sum(1 for g in list(games.held.values()) if g.table is not None and not g.table.over)),
            Reading("cantstop_held_games", "Games held in memory (waiting, playing, or watched after the end)", lambda: len(games.held)),
            Reading("cantstop_clock_timeouts", "Moves the move clock made for people out of time", lambda: service.clock.timeouts, counter=True),
            Reading("cantstop_seats_forfeited", "Seats that forfeited on the clock (timeouts in a row)", lambda: games.forfeited, counter=True),
            Reading("cantstop_games_abandoned", "Games this process ended as abandoned (left alone)", lambda: service.sweeper.abandoned, counter=True),
            Reading("cantstop_games_rated_late", "Rated games this process's sweep rated: their own process stopped first",
                    lambda: service.sweeper.rated, counter=True),
            Reading("cantstop_database_errors", "Database calls that failed (readiness probes included)",
                    lambda: service.recorder.errors + self.probe_errors, counter=True),
            Reading("cantstop_open_connections", "Connections the guard counts (HTTP and WebSocket)", lambda: self.guard.open),
            Reading("cantstop_connections_refused", "Connections refused or shed: over an address's cap or for room",
                    lambda: self.guard.refused, counter=True),
            Reading("cantstop_requests_timed_out", "Requests dropped for not finishing their headers or body in time",
                    lambda: self.guard.dropped, counter=True),
        ])
        games.on_act.append(self.metrics.acted)

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
        engine = self.service.storage.engine

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
