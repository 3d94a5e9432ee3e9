"""Quick pairing's matching: from the requests waiting and the time, the tables to make. Plain
functions with no web imports, tested on their own with hypothesis (`tests/web/test_pairing_match.py`).

**The window.** A request is paired only with requests near it in rating (the rating each had
when it asked): `window(waited)` points either side, WINDOW_START at once, WINDOW_STEP more for
every WINDOW_EVERY seconds waited, WINDOW_MOST at the widest. Two requests may meet when their
ratings differ by no more than the narrower of their two windows: each accepts the other, so a
newcomer's request is not thrown at someone far off just because that one has waited long.

**The tables.** Requests are taken oldest first. Each one not yet seated starts a table and
takes, one at a time, the request of the same kind (rules, players, clock, rated) nearest to it
in rating that everyone already at the table accepts, that is no account seated already, and
that neither blocks nor is blocked by anyone there; the older request first between two as
near. A table that fills is made; one that cannot leaves its requests waiting for the next look,
when the windows are wider.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

WINDOW_START = 100  # rating points either side, at once
WINDOW_STEP = 50  # points more ...
WINDOW_EVERY = 10.0  # ... for every this many seconds waited
WINDOW_MOST = 400  # the widest


@dataclass(frozen=True)
class Kind:
    """What a request asks for: only requests of one kind are paired together."""

    variant: str
    players: int
    clock: int
    rated: bool


@dataclass(frozen=True)
class Request:
    id: str
    kind: Kind
    rating: int  # as shown (1500 for a newcomer and for a guest), when it asked
    asked: float  # seconds since the epoch
    account: int | None = None  # None: a guest's


def window(waited: float) -> int:
    """The points either side of its rating a request accepts after `waited` seconds."""
    steps = int(max(waited, 0.0) // WINDOW_EVERY)
    return min(WINDOW_START + WINDOW_STEP * steps, WINDOW_MOST)


def accepts(a: Request, b: Request, now: float, blocked: Collection[frozenset[int]]) -> bool:
    """Whether `a` and `b` may sit at one table: two requests of different people (never one
    account twice), neither account blocking the other, their ratings within both windows."""
    if a.id == b.id or (a.account is not None and a.account == b.account):
        return False
    if a.account is not None and b.account is not None and frozenset((a.account, b.account)) in blocked:
        return False
    return abs(a.rating - b.rating) <= min(window(now - a.asked), window(now - b.asked))


def tables(waiting: Iterable[Request], now: float, blocks: Iterable[tuple[int, int]] = ()) -> list[tuple[Request, ...]]:
    """The tables to make now from the `waiting` requests, each of its kind's number of
    players, in the order they were filled, each table's requests in the order they were
    taken (the oldest first). `blocks`: (blocker, blocked) pairs of accounts."""
    blocked = {frozenset(pair) for pair in blocks}
    order = sorted({r.id: r for r in waiting}.values(), key=lambda r: (r.asked, r.id))
    seated: set[str] = set()
    accounts: set[int] = set()
    made: list[tuple[Request, ...]] = []
    for first in order:
        if first.id in seated or (first.account is not None and first.account in accounts):
            continue
        table = [first]
        while len(table) < first.kind.players:
            fits = [r for r in order if r.kind == first.kind and r.id not in seated and r.account not in accounts
                    and all(accepts(r, sitting, now, blocked) for sitting in table)]
            if not fits:
                break
            table.append(min(fits, key=lambda r: (abs(r.rating - first.rating), r.asked, r.id)))
        if len(table) == first.kind.players:
            made.append(tuple(table))
            seated.update(r.id for r in table)
            accounts.update(r.account for r in table if r.account is not None)
    return made
