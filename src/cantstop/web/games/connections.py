"""Who has one game open in this process: each WebSocket's queue, the ones that hold a seat,
how many connections each seat has here, how many times seats moved since, and each
signed-in connection's account and the accounts it blocks (whose chat lines it is not sent).

The socket route opens and closes its connection here; the live game broadcasts through
`send`; nothing else reaches into the sets. Transport stays apart from the game itself
(`live.LiveGame`), which only holds a `Connections`.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field

QUEUE_LIMIT = 1000  # updates a client that reads nothing may fall behind by; it misses later ones
Queue = asyncio.Queue[str]  # JSON text to send to one client


@dataclass
class Connections:
    listeners: set[Queue] = field(default_factory=set)  # every client's queue
    seated: set[Queue] = field(default_factory=set)  # the queues of the connections that hold a seat
    present: Counter[int] = field(default_factory=Counter)  # seat -> its connections here
    epoch: int = 0  # counts seat changes heard of (a seat moved by a link): sockets check their seat again
    # The seats with a connection here, kept as connections come and go (rarely) rather than
    # worked out at every update, which each carries it.
    connected: list[int] = field(default_factory=list)
    accounts: dict[Queue, int] = field(default_factory=dict)  # a signed-in connection's account
    blocking: dict[Queue, frozenset[int]] = field(default_factory=dict)  # the accounts it blocks, if any

    def open(self, queue: Queue, seated: bool, account: int | None = None, blocked: frozenset[int] = frozenset()) -> None:
        """A client connected: it hears every update; a seated one's, players' messages too; a
        signed-in one's (of `account`) no chat line of an account it blocks (`blocked`)."""
        self.listeners.add(queue)
        if seated:
            self.seated.add(queue)
        if account is not None:
            self.accounts[queue] = account
            self.reblock(account, blocked)

    def reblock(self, account: int, blocked: frozenset[int]) -> None:
        """The accounts `account` blocks are `blocked` now: its connections here follow."""
        for queue, whose in self.accounts.items():
            if whose == account:
                if blocked:
                    self.blocking[queue] = blocked
                else:
                    self.blocking.pop(queue, None)

    def blind_to(self, author: int | None) -> set[Queue]:
        """The connections whose account blocks `author` (none for a line of no account)."""
        if author is None or not self.blocking:
            return set()
        return {queue for queue, blocked in self.blocking.items() if author in blocked}

    def by_blocks(self, queues: set[Queue]) -> dict[frozenset[int], set[Queue]]:
        """`queues` grouped by the accounts they block (most block nobody: one group)."""
        groups: dict[frozenset[int], set[Queue]] = {}
        for queue in queues:
            groups.setdefault(self.blocking.get(queue, frozenset()), set()).add(queue)
        return groups

    def seat_held(self, queue: Queue, held: bool) -> None:
        """The client now holds a seat (people at its screen spoke up) or no longer does (its seat moved)."""
        if held:
            self.seated.add(queue)
        else:
            self.seated.discard(queue)

    def close(self, queue: Queue) -> None:
        self.listeners.discard(queue)
        self.seated.discard(queue)
        self.accounts.pop(queue, None)
        self.blocking.pop(queue, None)

    def arrived(self, seat: int, joined: bool) -> None:
        """One connection of `seat` more here (`joined`), or one fewer."""
        self.present[seat] += 1 if joined else -1
        self.connected = sorted(s for s, n in self.present.items() if n > 0)

    @property
    def people_here(self) -> bool:
        """Whether a player (not a spectator) has the game open here."""
        return any(n > 0 for n in self.present.values())

    @property
    def spectators(self) -> set[Queue]:
        return self.listeners - self.seated

    def seats_moved(self) -> None:
        self.epoch += 1

    def send(self, message: str, to: set[Queue] | None = None) -> None:
        """`message` to every client (or to those of `to` still connected). A client that
        reads nothing misses updates past `QUEUE_LIMIT`; nobody waits for it."""
        for queue in list(self.listeners if to is None else to & self.listeners):
            if queue.qsize() < QUEUE_LIMIT:
                queue.put_nowait(message)
