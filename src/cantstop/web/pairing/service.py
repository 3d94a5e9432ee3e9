"""The pairing room's service: asking for a quick game, looking at one's request (and being
told at once when it is paired), cancelling it, playing a bot instead, and the looks that pair
the queue, in whichever process makes them.

The queue is the `pairing_requests` table. Every process that has heard of a waiting request
(asked or looked at through it, or told by another process) looks at the whole queue every
`every` seconds while any request waits: it ends the requests whose holders stopped looking
(`expire_after`), works out the tables (`match.tables`) and claims each in one transaction
(`store.claim`), which a second process claiming the same requests cannot also do. The holders
of the requests paired are told at once: here by an event, in the other processes by the
database's notice (`PAIRING_TOPIC`), which wakes the look their browser is waiting on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from cantstop.core.variant import PRESET_TITLES, PRESETS, preset
from cantstop.web.db.recorder import Recorder
from cantstop.web.db.tokens import hash_token, new_token
from cantstop.web.db.values import GameStatus, RatingKind, Taker
from cantstop.web.errors import Conflict, Invalid, NotAllowed, NotFound
from cantstop.web.games.clock import CLOCKS, REAL_TIME, TURN_BASED, duration_text
from cantstop.web.games.live import LiveGames
from cantstop.web.games.sweeper import stamp
from cantstop.web.identity.accounts import Account
from cantstop.web.lobby.service import GUESTS_UNRATED, Lobby, bot_spec
from cantstop.web.names import MAX_NAME, checked_name, same_name
from cantstop.web.pairing import match
from cantstop.web.pairing.store import PairingStore, RequestState, Stored
from cantstop.web.players import scale
from cantstop.web.players import standings as ratings_store
from cantstop.web.players.ratings import rated_variant

log = logging.getLogger("cantstop.web")

PAIRING_CLOCKS = tuple(c for c in CLOCKS if c)  # a paired game always has a move clock: strangers' games end
LOOKED_AT = 1000  # the most waiting requests one look reads
LONGEST_WAIT = 25.0  # seconds a look at one's request may wait for news
BOT_LEVELS = ("medium", "easy", "hard", "expert")  # the bot offered: the first that plays the rules
EVENT = "Quick pairing"  # a paired game's Event in its record


def seconds(at: datetime) -> float:
    """A stored time (UTC, no zone) in seconds since the epoch."""
    return at.replace(tzinfo=UTC).timestamp()


def iso(at: datetime) -> str:
    return at.replace(tzinfo=UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def seat_names(names: Sequence[str]) -> list[str]:
    """The names the seats take: two guests of one name are told apart by a number (accounts'
    names are their own, and no guest takes one)."""
    taken: list[str] = []
    for name in names:
        shown, number = name, 1
        while any(same_name(shown, other) for other in taken):
            number += 1
            suffix = f" {number}"
            shown = name[:MAX_NAME - len(suffix)] + suffix
        taken.append(shown)
    return taken


class Pairing:
    def __init__(
        self, games: LiveGames, lobby: Lobby, may_play: Callable[[int | None], Awaitable[None]], *,
        every: float = 2.0, expire_after: float = 60.0, bot_after: float = 60.0,
    ) -> None:
        """`may_play`: refuses a suspended account; `every`: seconds between looks at the queue
        while a request waits; `expire_after`: seconds a waiting request lasts without its
        holder looking; `bot_after`: seconds waited before the bot is offered."""
        self.games, self.lobby, self.may_play = games, lobby, may_play
        self.every, self.expire_after, self.bot_after = every, expire_after, bot_after
        self.recorder: Recorder = games.recorder
        self.store = PairingStore(games.storage)
        self.paired = 0  # tables this process made
        self.lost = 0  # tables another process claimed first (one of their requests, at least)
        self._wake = asyncio.Event()
        self._idle = True  # the last look here found nobody waiting: a look at a request starts them again
        self._loop: asyncio.Task[None] | None = None
        self._looking = asyncio.Lock()  # one look at a time here: a process does not race itself
        self._news: dict[str, asyncio.Event] = {}  # a waiting request's holder waiting for news, by its id

    def _now(self) -> datetime:
        return stamp(self.games.now())

    # ------------------------------------------------------------ asking
    async def ask(
        self, account: Account | None, held: str | None, name: str | None, variant: str, players: int, clock: int, rated: bool,
    ) -> tuple[dict[str, Any], str]:
        """A new request of the signed-in `account`, or of a guest called `name` whose browser
        holds the request secret `held` (if any); its state and its new secret. Refused, naming
        the field and storing nothing: rules that are no preset or not for `players` (or not
        rated, for a rated game), a clock that is none of PAIRING_CLOCKS, a rated game for a
        guest (NotAllowed), a guest with no name or a bad one, or one asking while its request
        waits (Conflict `asking_already`)."""
        rules = self._rules(variant, players, rated)
        if clock not in PAIRING_CLOCKS:
            raise Invalid("bad_clock", f"clock: {clock} is no move clock of a quick game: real time"
                          f" ({', '.join(map(str, REAL_TIME))} seconds) or turn-based ({', '.join(map(str, TURN_BASED))})")
        if account is None:
            if rated:
                raise NotAllowed("rated_needs_account", f"rated: {GUESTS_UNRATED}")
            if name is None:
                raise Invalid("bad_name", "name: a guest is paired under a name, 1..40 characters")
            name = checked_name(name)
        elif name is not None and not same_name(name, account.name):
            raise Invalid("bad_name", f"name: signed in as {account.name}, you are paired under that name")
        if account is not None or held is not None:  # (two asks at once: the account's is refused by its key)
            mine = await self.recorder.db(self.store.mine, None if account is None else account.id, held)
            if mine is not None and mine.state is RequestState.WAITING:
                raise Conflict("asking_already", "you are waiting to be paired already: cancel that request first")
        who = account.name if account is not None else name
        assert who is not None
        rating = await self._rating(account, players)
        token = new_token()
        await self.recorder.db(self.store.ask, token, None if account is None else account.id, who, rules, players, clock, rated,
                               rating, self._now())
        self.wake()
        found = await self.recorder.db(self.store.mine, None, token)
        assert found is not None
        return self.json(found), token

    @staticmethod
    def _rules(variant: str, players: int, rated: bool) -> str:
        name = variant.strip()
        offered = [n for n, v in PRESETS.items() if v.most_players >= 2]
        if name not in offered:
            raise Invalid("bad_variant", f"variant: {variant[:40]!r} is no rules a quick game is played on; they are"
                          f" {', '.join(offered)}")
        rules = preset(name)
        if not max(2, rules.min_players) <= players <= rules.most_players:
            raise Invalid("bad_players", f"players: {name} is played by {max(2, rules.min_players)}..{rules.most_players} in a quick"
                          f" game, not {players}")
        if rated:
            why = rated_variant(rules, players)
            if why is not None:
                raise Invalid("not_rated_variant", f"rated: {why}")
        return name

    async def _rating(self, account: Account | None, players: int) -> int:
        """The account's rating for games of `players`, as shown (1500 for a newcomer, and for a guest)."""
        if account is None:
            return scale.BASE
        holder: ratings_store.Holder = (RatingKind.PERSON, account.id)
        found = await self.recorder.db(ratings_store.ratings, self.games.storage, [holder], players)
        return scale.shown(found[holder].mu) if holder in found else scale.BASE

    # ------------------------------------------------------------ the holder's look
    async def _mine(self, account: Account | None, held: str | None) -> Stored:
        found = await self.recorder.db(self.store.mine, None if account is None else account.id, held)
        if found is None:
            raise NotFound("no_request", "you have not asked to be paired (or your request was made in another browser, as a guest)")
        return found

    async def look(self, account: Account | None, held: str | None, wait: float = 0.0) -> tuple[dict[str, Any], str | None]:
        """The holder's request as it stands (NotFound `no_request` for none), and the game
        whose seat the secret `held` holds (the request's, once paired). A waiting one is kept
        from expiring, and with `wait` the answer waits up to that many seconds for it to be
        paired (or to end). A paired one whose game has not started yet (the process that
        paired it stopped first) starts it."""
        found = await self._mine(account, held)
        if found.state is RequestState.WAITING:
            await self.recorder.db(self.store.saw, found.id, self._now())
            if self._idle:  # a request waits that no look here knew of (asked through another process, which stopped?)
                self.wake()
            if wait > 0:
                news = self._news.setdefault(found.id, asyncio.Event())
                try:
                    await asyncio.wait_for(news.wait(), min(wait, LONGEST_WAIT))
                except TimeoutError:
                    pass
                finally:
                    if self._news.get(found.id) is news:
                        del self._news[found.id]
                found = await self._mine(account, held)
        if found.state is RequestState.PAIRED and found.game_id is not None:
            game = await self.games.live(found.game_id)
            if game.meta.status is GameStatus.WAITING:
                await self.lobby.start_seated(found.game_id)
        seated = found.game_id if held is not None and hash_token(held) == found.token_hash else None
        return self.json(found), seated

    async def cancel(self, account: Account | None, held: str | None) -> dict[str, Any]:
        """The holder's waiting request is cancelled: Conflict `not_waiting` once it was paired
        (or had ended)."""
        found = await self._mine(account, held)
        ended = await self.recorder.db(self.store.end, [found.id], RequestState.CANCELLED, self._now())
        if not ended:
            raise self._not_waiting(await self._mine(account, held))
        self._tell([found.id])
        return self.json(await self._mine(account, held))

    @staticmethod
    def _not_waiting(found: Stored) -> Conflict:
        if found.state is RequestState.PAIRED:
            return Conflict("not_waiting", f"your request was paired already: your game is /game/{found.game_id}",
                            game=found.game_id, url=f"/game/{found.game_id}")
        return Conflict("not_waiting", f"your request is no longer waiting: it {found.state.value}")

    async def bot(self, account: Account | None, held: str | None) -> tuple[str, int, str]:
        """Instead of waiting on: the holder's request is cancelled and a friendly game of its
        rules, players and clock is made against bots, its first seat the holder's. The game,
        the seat and the seat's secret. Conflict `not_waiting` if the request was paired meanwhile."""
        found = await self._mine(account, held)
        rules = preset(found.variant)
        bot = None
        for level in BOT_LEVELS:
            try:
                bot = bot_spec(level, rules, found.players)
                break
            except Invalid:
                continue
        if bot is None:
            raise Conflict("no_bot", f"no bot plays {found.variant} with {found.players} players: keep waiting")
        ended = await self.recorder.db(self.store.end, [found.id], RequestState.CANCELLED, self._now())
        if not ended:
            raise self._not_waiting(await self._mine(account, held))
        self._tell([found.id])
        taker = Taker(found.name, new_token(), found.account_id)
        seats = ["open", *[f"bot:{bot}"] * (found.players - 1)]
        game_id = await self.lobby.create(found.variant, seats, {0: taker}, clock=found.clock, rated=False)
        return game_id, 0, taker.token

    def json(self, found: Stored) -> dict[str, Any]:
        """A request as its holder's page reads it: what it asks for, how long it has waited,
        the window of ratings it accepts now, whether the bot is offered, and its game once paired."""
        waited = max(0.0, seconds(self._now()) - seconds(found.asked))  # both as stored: a whole 30 s is 30 s
        waiting = found.state is RequestState.WAITING
        return {
            "id": found.id, "state": found.state.value, "variant": found.variant, "title": PRESET_TITLES.get(found.variant, found.variant),
            "players": found.players, "clock": found.clock, "clock_text": duration_text(found.clock), "rated": found.rated,
            "name": found.name, "rating": found.rating, "asked": iso(found.asked), "waited": int(waited),
            "window": match.window(waited), "offer_bot": waiting and waited >= self.bot_after, "bot_after": self.bot_after,
            "expires_after": self.expire_after,
            "game": found.game_id, "seat": found.seat, "url": None if found.game_id is None else f"/game/{found.game_id}",
        }

    # ------------------------------------------------------------ pairing the queue
    def wake(self) -> None:
        """Look at the queue now (and keep looking while a request waits)."""
        self._idle = False
        self._wake.set()
        if self._loop is None or self._loop.done():
            self._loop = asyncio.create_task(self._keep_looking())

    async def _keep_looking(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            try:
                left = await self.pair()
            except Exception as error:  # the database is down: try again at the next look
                log.warning("the pairing look failed: %s", error)
                left = 1
            self._idle = not left
            if left:
                try:
                    await asyncio.wait_for(self._wake.wait(), self.every)
                except TimeoutError:
                    self._wake.set()

    async def pair(self) -> int:
        """One look at the queue: the requests unseen for too long expire, the tables that can be
        made are claimed, and their games start. Returns how many requests still wait."""
        async with self._looking:
            return await self._pair()

    async def _pair(self) -> int:
        at = self._now()
        now = seconds(at)  # as stored, as the requests' times are
        stale = await self.recorder.db(self.store.unseen_since, stamp(now - self.expire_after))
        self._tell(await self.recorder.db(self.store.end, stale, RequestState.EXPIRED, at))
        queue = await self.recorder.db(self.store.waiting, LOOKED_AT)
        # The queue as of this look's time: a request asked since (while this look waited for
        # the database) is the next look's, which also knows whether the older ones expired.
        waiting = [r for r in queue if seconds(r.asked) <= now]
        by_id = {r.id: r for r in waiting}
        accounts = [r.account_id for r in waiting if r.account_id is not None]
        blocks = await self.recorder.db(self.store.blocks_among, accounts)
        requests = [match.Request(r.id, match.Kind(r.variant, r.players, r.clock, r.rated), r.rating, seconds(r.asked), r.account_id)
                    for r in waiting]
        left = len(queue)
        for table in match.tables(requests, now, blocks):
            stored = [by_id[r.id] for r in table]
            if not await self._may_all_play(stored, at):
                continue
            game_id = await self.recorder.db(self.store.claim, stored, seat_names([r.name for r in stored]), {"Event": EVENT}, at)
            if game_id is None:  # another process claimed one of them first
                self.lost += 1
                continue
            self.paired += 1
            left -= len(stored)
            await self.lobby.start_seated(game_id)
            self._tell([r.id for r in stored])
        return left

    async def _may_all_play(self, table: Sequence[Stored], at: datetime) -> bool:
        """Whether every account of the table may still play: a request of an account suspended
        since it asked is cancelled (its holder's page says so) and the table is not made."""
        fine = True
        for r in table:
            try:
                await self.may_play(r.account_id)
            except NotAllowed:
                self._tell(await self.recorder.db(self.store.end, [r.id], RequestState.CANCELLED, at))
                fine = False
        return fine

    def _tell(self, request_ids: Sequence[str]) -> None:
        """The holders of these requests, waiting for news here, hear it."""
        for request_id in request_ids:
            news = self._news.get(request_id)
            if news is not None:
                news.set()

    async def news(self, text: str) -> None:
        """Another process (or this one) paired these requests (their ids, space-separated)."""
        self._tell(text.split())

    async def close(self) -> None:
        if self._loop is not None:
            self._loop.cancel()
            await asyncio.gather(self._loop, return_exceptions=True)
        for news in self._news.values():
            news.set()
