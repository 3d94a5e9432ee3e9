"""The sign-in throttle: failed sign-ins counted in storage, against a name and an address
(or an account), each failure past a few free ones doubling the wait before the next try.

Counted in the database, so every server process sees the same counts. A try is counted as
failed before its password is checked, and forgiven once it succeeds: a burst of tries at
once counts in full. Every method is a plain blocking call (the server runs them off the event loop).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import delete
from sqlalchemy.exc import IntegrityError

from cantstop.web.db.rows import now
from cantstop.web.db.storage import Storage
from cantstop.web.identity.accounts import digest
from cantstop.web.identity.rows import FailureRow
from cantstop.web.names import name_key

FREE_PER_NAME, FREE_PER_ADDRESS = 5, 20  # failed sign-ins before each further one waits
FORGET = timedelta(days=1)  # failures this old no longer count
Keys = dict[str, int]  # what a try counts against -> its free tries


def by_name(name: str) -> str:
    return f"name {name_key(name)}"


def by_address(address: str) -> str:
    return f"address {address}"


def by_account(account_id: int) -> str:
    return f"account {account_id}"


def sign_in_keys(name: str, address: str) -> Keys:
    """What a sign-in with a password counts against: the name and the address."""
    return {by_name(name): FREE_PER_NAME, by_address(address): FREE_PER_ADDRESS}


def backoff(over: int, base: float, forget: timedelta) -> timedelta:
    """The wait after `over` failures beyond the free ones: none, then base, 2 base, 4 base..."""
    return timedelta(seconds=min(base * 2.0 ** min(over - 1, 40), forget.total_seconds())) if over > 0 else timedelta(0)


class Throttle:
    """`base`: the first wait, in seconds; `clock`: the time as stored (UTC, no zone), which
    tests move on."""

    def __init__(self, storage: Storage, base: float, clock: Callable[[], datetime] = now, forget: timedelta = FORGET) -> None:
        self.storage, self.base, self.clock, self.forget = storage, base, clock, forget

    def attempt(self, keys: Keys) -> float:
        """Start a sign-in: the seconds to wait first if any of `keys` must (nothing counted
        then), else 0 with the attempt counted as failed against each key until `succeeded`
        says otherwise. A key quiet for `forget` starts over."""
        try:
            return self._attempt(keys)
        except IntegrityError:  # another try made the same key's first row at once: now it exists
            return self._attempt(keys)

    def _attempt(self, keys: Keys) -> float:
        stamp = self.clock()
        with self.storage.session() as s:
            s.execute(delete(FailureRow).where(FailureRow.last < stamp - self.forget, FailureRow.until < stamp))
            rows = {key: s.get(FailureRow, digest(key), with_for_update=True) for key in keys}
            wait = max((r.until - stamp).total_seconds() for r in rows.values() if r is not None) if any(rows.values()) else 0.0
            if wait > 0:
                return wait
            for key, free in keys.items():
                row = rows[key]
                if row is None:
                    row = FailureRow(key_hash=digest(key), failures=0, last=stamp, until=stamp)
                    s.add(row)
                elif stamp - row.last > self.forget:
                    row.failures = 0
                row.failures += 1
                row.last = stamp
                row.until = stamp + backoff(row.failures - free, self.base, self.forget)
            return 0.0

    def failed(self, keys: Keys) -> None:
        """The sign-in counted by `attempt` failed: each key's wait starts again from now, as
        checking the password may have taken a while."""
        stamp = self.clock()
        with self.storage.session() as s:
            for key, free in keys.items():
                row = s.get(FailureRow, digest(key), with_for_update=True)
                if row is not None:
                    row.until = stamp + backoff(row.failures - free, self.base, self.forget)

    def succeeded(self, keys: Keys, forgiven: str | None) -> None:
        """The sign-in counted by `attempt` succeeded: the key `forgiven` (its name, if any)
        starts over, and the others (its address) no longer count it, so that many people
        signing in from one address do not add up to a wait."""
        with self.storage.session() as s:
            if forgiven is not None:
                s.execute(delete(FailureRow).where(FailureRow.key_hash == digest(forgiven)))
            for key, free in keys.items():
                row = s.get(FailureRow, digest(key), with_for_update=True)
                if key != forgiven and row is not None:
                    row.failures = max(0, row.failures - 1)
                    if row.failures <= free:
                        row.until = min(row.until, self.clock())
