"""Each account's "your turn" webhook in storage, and what this process remembers of it.

"Your turn" asks for a seat's hook at every turn; most accounts have none, and a query per
turn was a good part of a signed-in game's cost on PostgreSQL, so a hook read is trusted for
`HOOK_FRESH` seconds. Every method is a plain blocking call (the server runs them off the event loop).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from sqlalchemy import select, update

from cantstop.web.db.storage import Storage
from cantstop.web.identity.rows import AccountRow

# How long a process trusts the webhook it read for an account: a change made through this
# process is seen at once; one made through another server process, within this time.
HOOK_FRESH = 60.0
Hook = tuple[str, str]  # a webhook's address and the secret its deliveries are signed with


class Hooks:
    """`clock`: seconds, monotonic (tests move it on)."""

    def __init__(self, storage: Storage, clock: Callable[[], float] = time.monotonic) -> None:
        self.storage = storage
        self.clock = clock
        self._hooks: dict[int, tuple[float, Hook | None]] = {}
        self._changes = 0  # a lookup that overlapped a change does not keep what it read

    def set(self, account_id: int, url: str | None, secret: str | None) -> None:
        """Where the account's "your turn" is POSTed, and the secret that signs it (None: no hook)."""
        with self.storage.session() as s:
            s.execute(update(AccountRow).where(AccountRow.id == account_id).values(webhook_url=url, webhook_secret=secret))
        self.forget(account_id)

    def of(self, account_id: int) -> Hook | None:
        """The account's hook address and secret, if it set one (and is not deleted)."""
        with self.storage.session() as s:
            found = s.execute(
                select(AccountRow.webhook_url, AccountRow.webhook_secret).where(AccountRow.id == account_id, AccountRow.deleted.is_(None))
            ).first()
            return None if found is None or not found[0] or not found[1] else (found[0], found[1])

    def known(self, account_id: int) -> tuple[bool, Hook | None]:
        """(True, the hook) when this process read the account's hook less than `HOOK_FRESH`
        seconds ago and nothing changed it here since; (False, None) when it must be read."""
        found = self._hooks.get(account_id)
        if found is None or self.clock() - found[0] > HOOK_FRESH:
            return False, None
        return True, found[1]

    def for_turn(self, account_id: int) -> Hook | None:
        """`of`, remembered for `HOOK_FRESH` seconds (the "your turn" path)."""
        changes, read_at = self._changes, self.clock()
        hook = self.of(account_id)
        if changes == self._changes:
            if len(self._hooks) >= 100_000:  # a bound, not a policy: the next reads fill it again
                self._hooks.clear()
            self._hooks[account_id] = (read_at, hook)
        return hook

    def forget(self, account_id: int) -> None:
        """The account's hook changed here (or the account went): read it again next time."""
        self._changes += 1
        self._hooks.pop(account_id, None)
