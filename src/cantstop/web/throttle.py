"""Rate limits per client address (the `limits` package): a client past one gets a 429
with Retry-After over HTTP, an error frame over a WebSocket."""

from __future__ import annotations

import math
import time

from limits import RateLimitItem, parse
from limits.storage import MemoryStorage
from limits.strategies import FixedWindowRateLimiter

from cantstop.web.errors import ApiError
from cantstop.web.settings import Settings

WHAT = {"create": "new games", "join": "seat joins", "action": "actions", "chat": "chat messages"}


def limit_items(settings: Settings) -> dict[str, RateLimitItem]:
    """The limits the settings ask for; ValueError naming the setting that does not parse."""
    items = {}
    for what in WHAT:
        text = getattr(settings, f"rate_{what}").strip()
        if text.lower() == "off":
            continue
        try:
            items[what] = parse(text)
        except ValueError:
            raise ValueError(f"rate_{what}: {text!r} is not a rate such as '20/minute', '5 per 10 seconds' or 'off'") from None
    return items


class Throttle:
    # Fixed windows, counted in the package's in-memory storage: the cheapest of its
    # strategies (a check is on every action's path), and a window's end is when to retry.
    def __init__(self, settings: Settings) -> None:
        self.items = limit_items(settings)
        self._limiter = FixedWindowRateLimiter(MemoryStorage())

    async def check(self, what: str, client: str) -> None:
        """Count one `what` for `client`; ApiError 429 (nothing done) when it is one too many."""
        item = self.items.get(what)
        if item is None or self._limiter.hit(item, what, client):
            return
        reset = self._limiter.get_window_stats(item, what, client).reset_time
        wait = max(1, math.ceil(reset - time.time()))
        raise ApiError(
            429, "too_many", f"too many {WHAT[what]} from this address: at most {item}; try again in {wait} s",
            headers={"Retry-After": str(wait)}, retry_after=wait,
        )
