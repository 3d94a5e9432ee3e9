"""The server's knobs, in one immutable value; `cantstop serve` fills it from the environment."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields

MAX_BODY = 8 * 1024  # bytes of an HTTP request body
MAX_MESSAGE = 2 * 1024  # bytes of one WebSocket message
MAX_DEPTH = 8  # nesting of JSON arrays and objects in a body or message (the API needs 3)


@dataclass(frozen=True)
class Settings:
    bot_delay: float = 0.8  # seconds a bot waits before each move, so people can follow
    origins: tuple[str, ...] = ()  # extra origins allowed to open WebSockets
    # Addresses of reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are believed;
    # from anyone else those headers are ignored (they are a client's to forge).
    trusted_proxies: tuple[str, ...] = ()
    # Per client address, as the `limits` package writes them ("20/minute", "5 per 10 seconds"),
    # or "off". Actions count over HTTP and WebSocket alike.
    rate_create: str = "20/minute"  # new games and rematches
    rate_join: str = "60/minute"
    rate_action: str = "30/second"
    rate_chat: str = "10/minute"
    # WebSocket messages (of any kind) one connection may send a second on average, and twice
    # that at once; past it the socket is closed (1008). 0 turns the cut-off off.
    socket_rate: float = 20.0
    # A game's move clock (30 s, 2 min) lasts its seconds times this: tests make it tiny.
    clock_scale: float = 1.0
    api_docs: bool = False  # /docs and /redoc (they load Swagger UI and ReDoc from a CDN)
    # Operations (web/ops): a request must finish its headers this many seconds after it
    # began (or the connection opened), and its body this many seconds after its headers.
    header_timeout: float = 10.0
    body_timeout: float = 15.0
    # Open connections (WebSockets included) one client address may hold; 0: no cap. A trusted
    # proxy's connections are not capped: they carry many clients.
    connections_per_address: int = 100
    # /metrics answers only a request bearing this token (Authorization: Bearer ...); empty: off.
    metrics_token: str = ""
    # On SIGTERM, seconds the requests in flight get to finish before they are cancelled.
    shutdown_grace: int = 5

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Settings:
        """CANTSTOP_<FIELD> for each field given: numbers, space-separated lists, 1/0 for yes/no."""
        given: dict[str, object] = {}
        for f in fields(cls):
            raw = env.get(f"CANTSTOP_{f.name.upper()}")
            if raw is None:
                continue
            if f.type == "float":
                given[f.name] = float(raw)
            elif f.type == "int":
                given[f.name] = int(raw)
            elif f.type == "bool":
                given[f.name] = raw.strip().lower() in ("1", "yes", "true", "on")
            elif f.type.startswith("tuple"):
                given[f.name] = tuple(raw.split())
            else:
                given[f.name] = raw.strip()
        return cls(**given)  # type: ignore[arg-type]
