"""The server's knobs, in one immutable value (`cantstop serve` fills it from the environment)."""

from __future__ import annotations

from dataclasses import dataclass

MAX_BODY = 8 * 1024  # bytes of an HTTP request body
MAX_MESSAGE = 2 * 1024  # bytes of one WebSocket message
RATE = 20.0  # WebSocket messages per second a connection may send on average
BURST = 40.0  # ... and at once


@dataclass(frozen=True)
class Settings:
    bot_delay: float = 0.8  # seconds a bot waits before each move, so people can follow
    origins: tuple[str, ...] = ()  # extra origins allowed to open WebSockets
