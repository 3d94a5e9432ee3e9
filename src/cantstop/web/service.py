"""The authoritative game service: validates with the engine, stores, then broadcasts.

One `LiveGame` per game in memory, rebuilt from the stored events whenever it is
needed (after a restart, or when another server process moved it on). Every
action is checked against the engine and committed with its version before any
client hears of it; bots play from an asyncio task per game.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from cantstop.bots import Budget, get_bot
from cantstop.core.choices import parse_choice
from cantstop.core.dice import SecureDice, roll_off
from cantstop.core.errors import CantStopError
from cantstop.core.notation import seat_letter
from cantstop.core.record import Event, Record, Roll, apply_event
from cantstop.core.state import ROLL, STOP, Action, Phase, State, describe_actions
from cantstop.core.variant import preset
from cantstop.web.describe import display_names, game_json, log_lines
from cantstop.web.ratings import rate_game
from cantstop.web.storage import Append, RematchExists, StaleError, Storage, StoredGame, new_token

log = logging.getLogger("cantstop.web")
NAME = re.compile(r"^[^\x00-\x1f;\"\\\[\]{}]{1,40}$")
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")  # what storage's ids (token_urlsafe) are made of


class ApiError(Exception):
    """A refusal the client is told about as JSON: HTTP status, a code and a clear message."""

    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.extra = status, code, message, extra

    def json(self) -> dict[str, Any]:
        return {"error": self.code, "message": self.message, **self.extra}


@dataclass
class LiveGame:
    """A game as the server holds it between actions."""

    meta: StoredGame
    record: Record | None
    state: State | None
    log: list[dict[str, Any]]
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    listeners: set[asyncio.Queue[str]] = field(default_factory=set)  # JSON text to send
    bot_task: asyncio.Task[None] | None = None
    # The version this process brought about (a move or the start), -1 if none: its bots
    # move on from there at once, while other processes only stand by (see GameService._bots).
    driven: int = -1
    _snapshot: tuple[int, StoredGame, dict[str, Any]] | None = None

    @property
    def version(self) -> int:
        return len(self.record.events) if self.record else 0

    @property
    def names(self) -> list[str]:
        return [s.name or seat_letter(s.seat) for s in self.meta.seats]

    def snapshot(self) -> dict[str, Any]:
        """The game's JSON, built once per version and seating (every client gets the same)."""
        cached = self._snapshot
        if cached is None or cached[0] != self.version or cached[1] is not self.meta:
            cached = self._snapshot = (self.version, self.meta, game_json(self.meta, self.state, self.version))
        return cached[2]


def parse_action(raw: str | list[int]) -> Action:
    """'roll', 'stop', a choice as '6+10' or [6, 10]; a clear error otherwise."""
    if isinstance(raw, list):
        return tuple(sorted(raw))
    text = raw.strip().lower()
    if text in ("roll", "stop"):
        return ROLL if text == "roll" else STOP
    try:
        return parse_choice(text)
    except ValueError:
        raise ApiError(
            422, "bad_action", f"unknown action {raw!r}: send 'roll', 'stop' or a choice such as '6+10' or [6, 10]"
        ) from None


def bot_spec(name: str) -> str:
    """Check a bot name or level now, so a game never starts with a bot that cannot play."""
    try:
        return get_bot(name).name
    except ValueError as error:
        raise ApiError(422, "bad_seat", str(error)) from None


def checked_name(name: str, seat: int | None = None) -> str:
    """A person's name, trimmed; refused (naming the seat, if given) unless it fits a record's tags."""
    name = name.strip()
    if not NAME.match(name) or name.lower().startswith("bot:"):
        where = "" if seat is None else f"seat {seat_letter(seat)}: "
        raise ApiError(422, "bad_name", f"{where}a name is 1..40 characters, without ; \" \\ [ ] {{ }} or a 'bot:' prefix")
    return name


class GameService:
    """All games this process serves; safe to share between requests on one event loop."""

    def __init__(self, storage: Storage, bot_delay: float = 0.8, bot_standby: float = 5.0) -> None:
        self.storage = storage
        self.bot_delay = bot_delay
        # How much longer a process that did not make the last move waits before its bot plays
        # in place of the one that did: past the bot's 1 s budget, so it acts only if that
        # process died. Without it every process would compute the same bot move.
        self.bot_standby = bot_standby
        self.dice = SecureDice()
        self.games: dict[str, LiveGame] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self._executor = ThreadPoolExecutor(storage.threads, thread_name_prefix="cantstop-db")
        self._pending: list[tuple[Append, asyncio.Future[None]]] = []
        self._wake = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None

    async def db(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run a (blocking) storage call off the event loop."""
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    async def store(self, append: Append) -> None:
        """Commit one event, batched with whatever other games commit at the same moment."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((append, done))
        self._wake.set()
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write())
        await done

    async def _write(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._pending:
                batch, self._pending = self._pending, []
                try:
                    stored = await self.db(self.storage.append_many, [a for a, _ in batch])
                except Exception as error:  # the database is down: every waiting action fails alike
                    for _, done in batch:
                        if not done.done():  # a cancelled waiter must not stop the writer
                            done.set_exception(error)
                    continue
                for (a, done), ok in zip(batch, stored):
                    if done.done():
                        continue
                    if ok:
                        done.set_result(None)
                    else:
                        done.set_exception(StaleError(f"version {a.seq} of game {a.game_id} is taken"))

    # --------------------------------------------------------------- loading
    async def live(self, game_id: str) -> LiveGame:
        """The game in memory, built from the database on first use."""
        game = self.games.get(game_id)
        if game is not None:
            return game
        if not GAME_ID.fullmatch(game_id):  # not one of ours; PostgreSQL would fail on a NUL in it
            raise ApiError(404, "no_game", f"no game {game_id[:40]!r}: game ids are letters, digits, - and _")
        lock = self._loading.setdefault(game_id, asyncio.Lock())
        async with lock:
            game = self.games.get(game_id)
            if game is None:
                meta = await self.db(self.storage.game, game_id)
                if meta is None:
                    raise ApiError(404, "no_game", f"no game {game_id!r}")
                game = LiveGame(meta, None, None, [])
                await self._catch_up(game, await self.db(self.storage.events, game_id, 0))
                self.games[game_id] = game
        return game

    async def _catch_up(self, game: LiveGame, events: list[Event]) -> list[dict[str, Any]]:
        """Apply stored events this process has not seen; returns their log entries."""
        entries: list[dict[str, Any]] = []
        if game.record is None:
            meta = await self.db(self.storage.game, game.meta.id)
            if meta is None or meta.first is None:
                return []
            game.meta = meta
            game.record = meta.record([])
            game.state = game.record.start()
            entries.append(self._start_line(game))
        assert game.state is not None
        for item in events:
            before = game.state
            game.state = apply_event(before, item)
            game.record.events.append(item)
            for entry in log_lines(before, item, game.state, game.names):
                entries.append({**entry, "version": game.version})
        game.log.extend(entries)
        return entries

    def _start_line(self, game: LiveGame) -> dict[str, Any]:
        assert game.meta.first is not None
        rolloff = game.meta.tags.get("RollOff")
        how = f" (roll-off {rolloff})" if rolloff else ""
        return {"kind": "start", "seat": game.meta.first, "version": 0, "text": f"{display_names(game.names)[game.meta.first]} goes first{how}"}

    async def refresh(self, game: LiveGame, seats: bool = False) -> None:
        """Pick up what other processes stored (with `seats`, seat changes and a rematch too) and tell our clients."""
        over = game.state is not None and game.state.is_over
        if over and not seats:
            return
        changed = False
        if game.record is None or seats:
            meta = await self.db(self.storage.game, game.meta.id)
            if meta is not None and meta != game.meta:
                game.meta, changed = meta, True
        if over:  # only its rematch can have changed
            if changed:
                self.publish(game, [])
            return
        entries = await self._catch_up(game, await self.db(self.storage.events, game.meta.id, game.version))
        if entries or changed:
            if game.state is not None and game.state.is_over:
                game.meta = await self.db(self.storage.game, game.meta.id)
            self.publish(game, entries)
            self.wake_bots(game)

    async def catch_up_all(self) -> None:
        for game in list(self.games.values()):
            async with game.lock:
                await self.refresh(game, seats=True)

    async def notified(self, game_id: str, version: int) -> None:
        """Another process (or this one) stored something for `game_id`: catch up if behind."""
        game = self.games.get(game_id)
        if game is None or (version >= 0 and game.version >= version):
            return
        async with game.lock:
            await self.refresh(game, seats=version < 0)

    def forget_if_idle(self, game: LiveGame) -> None:
        """Drop a finished game nobody watches from memory; it is rebuilt from storage if asked for."""
        if not game.listeners and game.state is not None and game.state.is_over:
            self.games.pop(game.meta.id, None)

    def publish(self, game: LiveGame, entries: list[dict[str, Any]]) -> None:
        message = json.dumps({"type": "update", "game": game.snapshot(), "log": entries})  # encoded once
        for queue in list(game.listeners):
            if queue.qsize() < 1000:  # a client that reads nothing misses updates; nobody waits for it
                queue.put_nowait(message)

    # ------------------------------------------------------------- creating
    async def create(
        self, variant: str, seats: list[str], people: Mapping[int, tuple[str, str]] | None = None, rematch_of: str | None = None
    ) -> str:
        """A new game; `people` maps open seats the creating client takes at once (people at
        one screen) to (name, token). All is checked before anything is stored; with
        `rematch_of` the new game is stored as that game's rematch, or not at all."""
        try:
            v = preset(variant)
        except ValueError as error:
            raise ApiError(422, "bad_variant", str(error)) from None
        if not v.min_players <= len(seats) <= v.max_players:
            raise ApiError(422, "bad_seats", f"{v.name} is for {v.min_players}..{v.max_players} players, not {len(seats)}")
        parsed: list[tuple[str, str | None]] = []
        for seat in seats:
            text = seat.strip()
            if text == "open":
                parsed.append(("open", None))
            elif text.startswith("bot:"):
                parsed.append(("bot", bot_spec(text[4:])))
            else:
                raise ApiError(422, "bad_seat", f"a seat is 'open' or 'bot:NAME' (a bot name or level), not {seat!r}")
        taken = {i: (checked_name(name, i), token) for i, (name, token) in (people or {}).items()}
        for i in taken:
            if not 0 <= i < len(parsed) or parsed[i][0] != "open":
                opened = ", ".join(str(j) for j, (kind, _) in enumerate(parsed) if kind == "open") or "none"
                raise ApiError(422, "bad_seat", f"only open seats can be taken, not seat {i}; open seats: {opened}")
        names = [name.lower() for name, _ in taken.values()]
        if len(set(names)) < len(names):
            raise ApiError(422, "bad_name", "each person at this screen needs a different name")
        try:
            game_id: str = await self.db(self.storage.create_game, variant.strip(), parsed, taken, rematch_of)
        except RematchExists as exists:
            raise ApiError(
                409, "rematch_exists", f"this game's rematch was created already: join it at /game/{exists.game_id}",
                game=exists.game_id, url=f"/game/{exists.game_id}",
            ) from None
        if all(kind == "bot" or i in taken for i, (kind, _) in enumerate(parsed)):
            await self._start(await self.live(game_id))
        return game_id

    async def rematch(self, game_id: str, seats: set[int]) -> tuple[str, dict[int, str]]:
        """A new game like finished game `game_id`, asked for by the client holding `seats`:
        the same variant and seats in the same order (the roll-off picks who starts), the same
        bots, `seats` taken again under the same names, and every other person's seat open
        for them to join by the link. Returns its id and the new tokens of `seats`."""
        game = await self.live(game_id)
        async with game.lock:
            await self.refresh(game, seats=True)
            if game.state is None or not game.state.is_over:
                raise ApiError(409, "not_over", "a rematch is for a finished game: this one is still being played")
            if not seats:
                raise ApiError(403, "not_seated", "only a player of this game can start its rematch: spectators can create a game on the home page")
            old = game.meta.seats
            people = {s: (old[s].name or seat_letter(s), new_token()) for s in sorted(seats)}
            specs = [f"bot:{s.bot}" if s.kind == "bot" else "open" for s in old]
            new_id = await self.create(game.meta.variant, specs, people, rematch_of=game_id)
            game.meta = await self.db(self.storage.game, game_id)
            self.publish(game, [])  # everyone still on the finished game hears of it
        return new_id, {s: token for s, (_, token) in people.items()}

    async def join(self, game_id: str, seat: int, name: str) -> str:
        """Give open `seat` to `name` and return its new token. Refused, with nothing stored, for
        a game already under way or over, a seat out of range or not open, or a name another
        person of this game has (people at one screen, and the record, tell players by name)."""
        name = checked_name(name)
        game = await self.live(game_id)
        async with game.lock:
            game.meta = await self.db(self.storage.game, game_id)  # another process may have seated someone
            open_seats = self._open(game) or "none"
            if game.meta.status != "waiting":
                how = "is over" if game.meta.status == "over" else "has started"
                raise ApiError(409, "not_waiting", f"the game {how}: seats can be taken only before it starts, and every seat is taken")
            if not 0 <= seat < len(game.meta.seats):
                raise ApiError(422, "bad_seat", f"this game has seats 0..{len(game.meta.seats) - 1}, not {seat}; open seats: {open_seats}")
            same = [s for s in game.meta.seats if s.kind == "person" and (s.name or "").lower() == name.lower()]
            if same:
                raise ApiError(422, "bad_name", f"{same[0].name} already plays seat {seat_letter(same[0].seat)}: each person in a game needs a different name")
            token = await self.db(self.storage.claim_seat, game_id, seat, name)
            if token is None:
                raise ApiError(409, "seat_taken", f"seat {seat} ({seat_letter(seat)}) is not open; open seats: {open_seats}")
            game.meta = await self.db(self.storage.game, game_id)
            if all(s.kind != "open" for s in game.meta.seats):
                await self._start(game, locked=True)
            else:
                self.publish(game, [])
        return str(token)

    def _open(self, game: LiveGame) -> str:
        return ", ".join(str(s.seat) for s in game.meta.seats if s.kind == "open")

    async def _start(self, game: LiveGame, locked: bool = False) -> None:
        """Every seat is taken: roll off for the first player and begin."""
        v = preset(game.meta.variant)
        rolloff = roll_off(v, len(game.meta.seats), self.dice)
        tags = {
            "RollOff": " / ".join(" ".join(f"{seat_letter(s)}:{t}" for s, t in rnd) for rnd in rolloff.rounds),
            "Site": "cantstop serve",
            "Game": game.meta.id,
            "Date": game.meta.created.strftime("%Y.%m.%d"),
        }
        await self.db(self.storage.start, game.meta.id, rolloff.first, tags)
        game.driven = 0
        if locked:
            await self.refresh(game)
        else:
            async with game.lock:
                await self.refresh(game)

    async def seat_of(self, game_id: str, token: str | None) -> int | None:
        if not token:
            return None
        seat: int | None = await self.db(self.storage.seat_of, game_id, token)
        return seat

    # --------------------------------------------------------------- playing
    async def act(self, game_id: str, seat: int | None, version: int, raw: str | list[int]) -> dict[str, Any]:
        """Apply one action for `seat` made on state `version`; returns the new game JSON."""
        game = await self.live(game_id)
        if seat is None:
            raise ApiError(403, "not_seated", "this client holds no seat in this game: join a seat first (spectators cannot act)")
        action = parse_action(raw)
        async with game.lock:
            if version > game.version or game.state is None:
                await self.refresh(game)  # another process may have moved on; else the insert tells
            state = game.state
            if state is None:
                raise ApiError(409, "not_started", f"the game waits for players in seats {self._open(game)}")
            if version != game.version:
                raise ApiError(409, "stale", f"the action was made on version {version} but the game is at version {game.version}; nothing was applied", version=game.version)
            if state.is_over:
                raise ApiError(409, "game_over", f"the game is over: {game.names[state.player]} won")
            if seat != state.player:
                raise ApiError(409, "not_your_turn", f"it is {game.names[state.player]}'s turn (seat {seat_letter(state.player)}), not yours")
            item: Event
            try:
                if action is ROLL:
                    if state.phase is Phase.DECIDE:
                        state.play(ROLL)
                    elif state.phase is not Phase.ROLL:
                        raise CantStopError(f"roll is not legal now; legal actions: {describe_actions(state.legal_actions())}")
                    item = Roll(self.dice.roll(state.variant.dice, state.variant.faces))
                else:
                    if state.phase is Phase.ROLL:
                        raise CantStopError(f"{raw} is not legal: the turn starts with a roll; legal actions: roll")
                    item = action
                after = apply_event(state, item)
            except CantStopError as error:
                legal = ["roll"] if state.phase is Phase.ROLL else [a if isinstance(a, str) else list(a) for a in state.legal_actions()]
                raise ApiError(422, "illegal", str(error), legal=legal) from None
            try:
                await self.store(Append(game_id, game.version + 1, item, after.winner))
            except StaleError:
                await self.refresh(game)
                raise ApiError(409, "stale", f"another action was applied first; the game is at version {game.version}", version=game.version) from None
            entries = await self._catch_up(game, [item])
            game.driven = game.version
            if after.is_over:
                game.meta = await self.db(self.storage.game, game_id)
                await self.db(rate_game, self.storage, game.names, after, game_id)
            self.publish(game, entries)
            self.wake_bots(game)
            return game.snapshot()

    # ------------------------------------------------------------------ bots
    def wake_bots(self, game: LiveGame) -> None:
        state = game.state
        if state is None or state.is_over or game.meta.seats[state.player].kind != "bot":
            return
        if game.bot_task is None or game.bot_task.done():
            game.bot_task = asyncio.create_task(self._bots(game))

    async def _bots(self, game: LiveGame) -> None:
        rng = random.Random()
        while game.state is not None and not game.state.is_over:
            state, version = game.state, game.version
            seat = game.meta.seats[state.player]
            if seat.kind != "bot" or seat.bot is None:
                return
            standby = 0.0 if game.driven == version else self.bot_standby
            await asyncio.sleep(self.bot_delay + standby)
            if game.version != version:
                continue
            action: Action = ROLL
            if state.phase is not Phase.ROLL:
                try:
                    action = await asyncio.to_thread(get_bot(seat.bot).play, state, rng, Budget(seconds=1.0))
                    if action not in state.legal_actions():
                        raise ValueError(f"illegal action {action!r}")
                except Exception as error:  # a broken bot must not stall the game: play any legal move
                    log.warning("bot %s failed in game %s (%s); playing a random move", seat.bot, game.meta.id, error)
                    action = rng.choice(state.legal_actions())
            try:
                raw: str | list[int] = list(action) if isinstance(action, tuple) else str(action)
                await self.act(game.meta.id, state.player, version, raw)
            except ApiError as error:
                if error.code != "stale":  # another process moved first: look again
                    log.warning("bot %s in game %s: %s", seat.bot, game.meta.id, error.message)
                    return

    async def resume(self) -> None:
        """After a (re)start: wake the bots of every game in progress."""
        for meta in await self.db(self.storage.games, ("playing",), 10_000):
            game = await self.live(meta.id)
            game.driven = game.version  # nobody may be left to move these bots but us
            self.wake_bots(game)

    async def close(self) -> None:
        tasks = [g.bot_task for g in self.games.values() if g.bot_task is not None]
        if self._writer is not None:
            tasks.append(self._writer)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._executor.shutdown(wait=False)
