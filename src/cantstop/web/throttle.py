"""Rate limits per client address: a client past one gets a 429 with Retry-After over HTTP,
an error frame over a WebSocket. The limits are written as the `limits` package reads them
("20/minute", "5 per 10 seconds"); the counting is done here."""

from __future__ import annotations

import math
import time

from limits import RateLimitItem, parse

from cantstop.web.errors import ApiError
from cantstop.web.settings import Settings

WHAT = {"create": "new games", "join": "seat joins", "action": "actions", "chat": "chat messages"}
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
    return items


class Throttle:
    """Fixed windows, as the `limits` package's fixed-window strategy counts them: a client's
    window opens at its first hit and lasts the limit's period; past `amount` hits in it
    each is refused until it ends, and its end is when to retry.

    Counted in a plain dict on the event loop rather than in that package's in-memory
    storage: a check is on every action's path, and that storage starts a timer thread
    every 10 ms of use, and waits for each thread to start while holding up the event
    loop (milliseconds at a time on a busy machine)."""

    def __init__(self, settings: Settings) -> None:
        self.items = limit_items(settings)
        self._windows: dict[tuple[str, str], list[float]] = {}  # (what, client) -> [window end, hits]
        self._next_sweep = time.monotonic() + SWEEP_EVERY

    async def check(self, what: str, client: str) -> None:
        """Count one `what` for `client`; ApiError 429 (nothing done) when it is one too many."""
        item = self.items.get(what)
        if item is None:
            return
        now = time.monotonic()
        if now >= self._next_sweep:
            self._sweep(now)
        key = (what, client)
        window = self._windows.get(key)
        if window is None or window[0] <= now:
            window = self._windows[key] = [now + item.get_expiry(), 0]
        window[1] += 1
        if window[1] <= item.amount:
            return
        wait = max(1, math.ceil(window[0] - now))
        raise ApiError(
            429, "too_many", f"too many {WHAT[what]} from this address: at most {item}; try again in {wait} s",
            headers={"Retry-After": str(wait)}, retry_after=wait,
        )

    def _sweep(self, now: float) -> None:
        self._windows = {key: window for key, window in self._windows.items() if window[0] > now}
        self._next_sweep = now + SWEEP_EVERY
