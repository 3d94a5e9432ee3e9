"""The FastAPI application: JSON API under /api, live updates on /ws, the client's files at /.

`create_app` only wires: the service, its start and stop, the middleware, and each room's
routers (its `routes.py`). A new room is one more entry in `routers` here.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from cantstop.web.challenges import routes as challenges
from cantstop.web.db.notify import listen
from cantstop.web.db.storage import Storage
from cantstop.web.games import routes as games
from cantstop.web.games import socket
from cantstop.web.http import BodyGuard, HeadAsGet, SecurityHeaders, install_error_handlers
from cantstop.web.identity import routes as identity
from cantstop.web.lobby import routes as lobby
from cantstop.web.ops import Operations
from cantstop.web.ops import routes as ops_routes
from cantstop.web.pages import STATIC
from cantstop.web.pairing import routes as pairing
from cantstop.web.players import routes as players
from cantstop.web.rate_limit import RateLimiter
from cantstop.web.review import routes as review
from cantstop.web.service import GameService
from cantstop.web.settings import Settings
from cantstop.web.social import routes as social
from cantstop.web.tournaments import routes as tournaments


def create_app(storage: Storage, settings: Settings | None = None, now: Callable[[], float] = time.time, **knobs: Any) -> FastAPI:
    """The whole server around one storage, with `settings` (if None, read from the
    environment) and any of its fields given by name (`bot_delay=0`); `now` is its clock
    (seconds since the epoch), which tests move on to see a week pass."""
    settings = (settings or Settings()).model_copy(update=knobs)
    service = GameService(
        storage, settings.bot_delay, clock_scale=settings.clock_scale, forfeit_after=settings.timeouts_to_forfeit,
        abandon_after=settings.abandon_after, sweep_every=settings.sweep_every, now=now, settings=settings,
    )
    # PostgreSQL: other processes may serve the same games; the server is ready once it hears their news.
    listening = asyncio.Event() if storage.shared else None
    ops = Operations(settings, storage.engine, service.readings(), lambda: service.recorder.errors, listening)
    service.games.on_act.append(ops.metrics.acted)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[dict[str, Any]]:
        await service.resume()
        listener = None
        if listening is not None:
            listener = asyncio.create_task(listen(storage.url, service.games.notified, service.catch_up_all, service.chat_notified, service.news, listening))
        yield ops.lifespan_state
        if listener is not None:
            listener.cancel()
            await asyncio.gather(listener, return_exceptions=True)
        await service.close()

    docs = settings.api_docs  # off by default: the pages load their scripts from a CDN
    app = FastAPI(
        title="Can't Stop", version="1", lifespan=lifespan, description="Play Can't Stop: create games, join seats, act, watch.",
        docs_url="/docs" if docs else None, redoc_url="/redoc" if docs else None,
    )
    app.state.service = service
    app.state.settings = settings
    app.state.limiter = RateLimiter(settings)
    app.add_middleware(BodyGuard)
    app.add_middleware(HeadAsGet)
    app.add_middleware(SecurityHeaders)
    ops.install(app)
    install_error_handlers(app)
    routers = (
        lobby.router, lobby.pages, games.router, games.pages, socket.router, players.router, review.router, ops_routes.router, identity.router,
        social.router, social.pages, tournaments.router, tournaments.pages,
        challenges.router,
        pairing.router, pairing.pages,
    )
    for router in routers:
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
