"""The one rate limiter: per client address for creating, joining, acting, chatting and
asking for analysis, and per WebSocket connection for its messages of any kind.

A client past a limit gets a 429 with Retry-After over HTTP, an error frame over a
WebSocket (a connection past its message limit is closed). The limits are written as the
`limits` package reads them ("20/minute", "5 per 10 seconds"); the counting is done here.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from limits import RateLimitItem, RateLimitItemPerSecond, parse

from cantstop.web.errors import TooMany
from cantstop.web.settings import Settings

WHAT = {"create": "new games", "join": "seat joins", "action": "actions", "chat": "chat messages", "analysis": "analysis requests"}
MESSAGE = "message"  # a WebSocket message, counted per connection
MESSAGE_WINDOW = 2  # seconds: a connection may send `socket_rate` messages a second, twice that at once
SWEEP_EVERY = 60.0  # seconds between sweeps of ended windows, which bound the counters' memory


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
    if settings.socket_rate > 0:
        items[MESSAGE] = RateLimitItemPerSecond(math.ceil(settings.socket_rate * MESSAGE_WINDOW), MESSAGE_WINDOW)
    return items


class RateLimiter:
    """Fixed windows, as the `limits` package's fixed-window strategy counts them: a client's
    window opens at its first hit and lasts the limit's period; past `amount` hits in it
    each is refused until it ends, and its end is when to retry.

    Counted in a plain dict on the event loop rather than in that package's in-memory
    storage: a check is on every action's path, and that storage starts a timer thread
    every 10 ms of use, and waits for each thread to start while holding up the event
    loop (milliseconds at a time on a busy machine)."""

    def __init__(self, settings: Settings, clock: Callable[[], float] = time.monotonic) -> None:
        self.items = limit_items(settings)
        self.clock = clock
        self._windows: dict[tuple[str, str], list[float]] = {}  # (what, client) -> [window end, hits]
        self._next_sweep = clock() + SWEEP_EVERY

    @property
    def counted(self) -> list[tuple[str, str]]:
        """The (what, client) pairs whose window is still kept."""
        return list(self._windows)

    def wait(self, what: str, client: str) -> int | None:
        """Count one `what` for `client`: None if it is allowed, else the seconds until its window ends."""
        item = self.items.get(what)
        if item is None:
            return None
        now = self.clock()
        if now >= self._next_sweep:
            self._sweep(now)
        key = (what, client)
        window = self._windows.get(key)
        if window is None or window[0] <= now:
            window = self._windows[key] = [now + item.get_expiry(), 0]
        window[1] += 1
        if window[1] <= item.amount:
            return None
        return max(1, math.ceil(window[0] - now))

    def check(self, what: str, client: str) -> None:
        """Count one `what` (a key of WHAT) for `client`; TooMany (nothing done) when it is one too many."""
        wait = self.wait(what, client)
        if wait is not None:
            raise TooMany(f"too many {WHAT[what]} from this address: at most {self.items[what]}; try again in {wait} s", wait)

    def _sweep(self, now: float) -> None:
        self._windows = {key: window for key, window in self._windows.items() if window[0] > now}
        self._next_sweep = now + SWEEP_EVERY
