"""The social room's service: following, blocking and reporting, each a whole job, with the
accounts named checked first (one that exists and is open, not oneself)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from cantstop.web.db.recorder import Recorder
from cantstop.web.db.rows import now
from cantstop.web.db.values import RatingKind
from cantstop.web.errors import Invalid, NotAllowed, NotFound
from cantstop.web.identity.accounts import Account, Accounts
from cantstop.web.names import refused_character
from cantstop.web.players.profiles import Profiles, profile_url
from cantstop.web.social.blocks import Blocks
from cantstop.web.social.follows import ONLINE_WITHIN, Follows
from cantstop.web.social.reports import Reports


class Social:
    """`clock`: the time as stored, to tell who is online."""

    def __init__(self, recorder: Recorder, profiles: Profiles, blocks: Blocks, clock: Callable[[], datetime] = now) -> None:
        storage = recorder.storage
        self.clock = clock
        # What hears that an account's blocks changed, and what they are now: the chat of the
        # games held here (`GameService`), which keeps the account's connections from its blocked.
        self.on_blocks: list[Callable[[int, frozenset[int]], None]] = []
        # What must follow a block made here, once it is stored: (blocker, blocked) — the
        # challenges between the two close.
        self.on_block: list[Callable[[int, int], Awaitable[None]]] = []
        self.run = recorder.db
        self.accounts = Accounts(storage)
        self.follows, self.blocks, self.reports, self.profiles = Follows(storage), blocks, Reports(storage), profiles

    async def account(self, name: str, field: str = "name", me: Account | None = None) -> Account:
        """The open account called `name`: NotFound `no_account` (naming `field`) for a name
        no open account has (never had, deleted, closed); Invalid `bad_name` for `me` itself."""
        wrong = refused_character(name)
        found: Account | None = None if wrong is not None else await self.run(self.accounts.open_account, name)
        if found is None:
            raise NotFound("no_account", f"{field}: no account is called {name!r}")
        if me is not None and found.id == me.id:
            raise Invalid("bad_name", f"{field}: {found.name} is you")
        return found

    async def follow(self, me: Account, name: str) -> Account:
        """`me` follows the account `name`. NotAllowed `blocked` when either blocks the other."""
        other = await self.account(name, me=me)
        if await self.run(self.blocks.between, me.id, other.id):
            raise NotAllowed("blocked", f"name: you cannot follow {other.name} (one of you blocks the other)")
        await self.run(self.follows.follow, me.id, other.id)
        return other

    async def unfollow(self, me: Account, name: str) -> None:
        other = await self.account(name, me=me)
        await self.run(self.follows.unfollow, me.id, other.id)

    async def block(self, me: Account, name: str) -> Account:
        """`me` blocks the account `name`: it is not seen in the chat of `me`'s games, and
        neither follows the other any more."""
        other = await self.account(name, me=me)
        await self.run(self.blocks.block, me.id, other.id)
        for then in self.on_block:
            await then(me.id, other.id)
        await self.blocks_changed(me.id)
        return other

    async def unblock(self, me: Account, name: str) -> None:
        other = await self.account(name, me=me)
        await self.run(self.blocks.unblock, me.id, other.id)
        await self.blocks_changed(me.id)

    async def blocked_by(self, account_id: int) -> frozenset[int]:
        """The accounts `account_id` blocks (the chat keeps their lines from it)."""
        found: frozenset[int] = await self.run(self.blocks.blocked_by, account_id)
        return found

    async def blocks_changed(self, account_id: int) -> None:
        """The account's blocks changed (here, or in another process): whoever keeps them hears them as they are now."""
        if self.on_blocks:
            blocked = await self.blocked_by(account_id)
            for hear in self.on_blocks:
                hear(account_id, blocked)

    async def between(self, first: int, second: int) -> bool:
        found: bool = await self.run(self.blocks.between, first, second)
        return found

    async def report(self, me: Account, reason: str, message: int | None, player: str | None) -> int:
        """Report a chat line (`message`) or a player (`player`) to the moderators, for
        `reason`; the report's number. Exactly one of the two."""
        if (message is None) == (player is None):
            raise Invalid("bad_report", "a report is about one chat line (message) or one player (player), not both or neither")
        if message is not None:
            number: int = await self.run(self.reports.of_message, me.id, message, reason)
            return number
        assert player is not None
        other = await self.account(player, "player")
        number = await self.run(self.reports.of_player, me.id, other.id, other.name, reason)
        return number

    async def with_(self, me: Account, name: str) -> dict[str, Any]:
        """How `me` stands with the account `name`: whether it follows and blocks it."""
        other = await self.account(name)
        following = await self.run(self.follows.follows, me.id, other.id)
        blocking = other.id in await self.blocked_by(me.id)
        return {"name": other.name, "you": other.id == me.id, "following": following, "blocking": blocking}

    async def friends(self, me: Account) -> dict[str, Any]:
        """The accounts `me` follows, those online first, each with its games under way (to
        watch); and those `me` blocks."""
        stamp = self.clock()
        following = await self.run(self.follows.following, me.id)
        listed = []
        for number, name, seen in following:
            online = seen is not None and stamp - seen <= ONLINE_WITHIN
            games = await self.run(self.profiles.playing, None, number)
            listed.append({"name": name, "url": profile_url(name, RatingKind.PERSON), "online": online,
                           "seen": None if seen is None else seen.isoformat(timespec="minutes"), "playing": games})
        listed.sort(key=lambda f: (not f["online"], not f["playing"], str(f["name"]).casefold()))
        blocked = await self.run(self.blocks.listed, me.id)
        return {"following": listed, "blocked": [{"name": name, "url": profile_url(name, RatingKind.PERSON)} for _, name in blocked],
                "online_within": int(ONLINE_WITHIN.total_seconds())}
