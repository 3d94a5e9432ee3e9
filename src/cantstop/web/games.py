"""Live games: each game in memory, its act path, version checks and broadcasting.

One `LiveGame` per game, rebuilt from the stored events whenever it is needed (after a
restart, or when another server process moved it on). An action is checked against the
engine and committed with its version before any client hears of it, and applied once.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cantstop.core.choices import parse_choice
from cantstop.core.dice import DiceSource
from cantstop.core.errors import CantStopError
from cantstop.core.notation import seat_letter
from cantstop.core.record import Event, Record, Roll, apply_event
from cantstop.core.state import ROLL, STOP, Action, Phase, State, describe_actions
from cantstop.web.chat import ChatRoom
from cantstop.web.describe import game_json, log_lines
from cantstop.web.errors import ApiError
from cantstop.web.ratings import rate_game
from cantstop.web.recorder import Recorder
from cantstop.web.storage import Append, StaleError, StoredGame

GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")  # what storage's ids (token_urlsafe) are made of
QUEUE_LIMIT = 1000  # updates a client that reads nothing may fall behind by; it misses later ones


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
    chat: ChatRoom = field(default_factory=ChatRoom)
    # The version this process brought about (a move or the start), -1 if none: its bots
    # move on from there at once, while other processes only stand by (see bot_seats).
    driven: int = -1
    _snapshot: tuple[int, StoredGame, dict[str, Any]] | None = None

    @property
    def version(self) -> int:
        return len(self.record.events) if self.record else 0

    @property
    def names(self) -> list[str]:
        return [s.name or seat_letter(s.seat) for s in self.meta.seats]

    @property
    def open_seats(self) -> str:
        return ", ".join(str(s.seat) for s in self.meta.seats if s.kind == "open") or "none"

    def snapshot(self) -> dict[str, Any]:
        """The game's JSON, built once per version and seating (every client gets the same)."""
        cached = self._snapshot
        if cached is None or cached[0] != self.version or cached[1] is not self.meta:
            cached = self._snapshot = (self.version, self.meta, game_json(self.meta, self.state, self.version))
        return cached[2]

    def advance(self, item: Event, after: State) -> list[dict[str, Any]]:
        """Take one event whose resulting state is known: the record grows by it; its log lines."""
        assert self.record is not None and self.state is not None
        before, self.state = self.state, after
        self.record.events.append(item)
        entries = [{**entry, "version": self.version} for entry in log_lines(before, item, after, self.names)]
        self.log.extend(entries)
        return entries


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


def next_event(state: State, action: Action, dice: DiceSource) -> tuple[Event, State]:
    """The one step of play: the event `action` makes (a roll brings its dice) and the state
    after it; CantStopError, nothing changed, when it is not legal. This is the function the
    `table` layer's driver takes over."""
    item: Event
    if action is ROLL:
        if state.phase is Phase.DECIDE:
            state.play(ROLL)  # checks that rolling on is allowed here; the dice below imply it
        elif state.phase is not Phase.ROLL:
            raise CantStopError(f"roll is not legal now; legal actions: {describe_actions(state.legal_actions())}")
        item = Roll(dice.roll(state.variant.dice, state.variant.faces))
    else:
        if state.phase is Phase.ROLL:
            raise CantStopError(f"{action} is not legal: the turn starts with a roll; legal actions: roll")
        item = action
    return item, apply_event(state, item)


def legal_json(state: State) -> list[Any]:
    return ["roll"] if state.phase is Phase.ROLL else [a if isinstance(a, str) else list(a) for a in state.legal_actions()]


class LiveGames:
    """Every game this process holds in memory; safe to share between requests on one event loop."""

    def __init__(self, recorder: Recorder, dice: DiceSource) -> None:
        self.recorder = recorder
        self.storage = recorder.storage
        self.dice = dice
        self.held: dict[str, LiveGame] = {}
        # Loads in flight, one per id, removed when done: an unknown id leaves nothing behind.
        self._loading: dict[str, asyncio.Task[LiveGame]] = {}
        self.moved: Callable[[LiveGame], None] = lambda game: None  # bot seats hook in here

    # --------------------------------------------------------------- loading
    async def live(self, game_id: str) -> LiveGame:
        """The game in memory, built from the database on first use."""
        game = self.held.get(game_id)
        if game is not None:
            return game
        if not GAME_ID.fullmatch(game_id):  # not one of ours; PostgreSQL would fail on a NUL in it
            raise ApiError(404, "no_game", f"no game {game_id[:40]!r}: game ids are letters, digits, - and _")
        loading = self._loading.get(game_id)
        if loading is None:
            loading = self._loading[game_id] = asyncio.create_task(self._load(game_id))
            loading.add_done_callback(lambda task: self._loaded(game_id, task))
        return await asyncio.shield(loading)

    def _loaded(self, game_id: str, task: asyncio.Task[LiveGame]) -> None:
        self._loading.pop(game_id, None)
        if not task.cancelled():
            task.exception()  # its waiters may all have gone: no "exception never retrieved" noise

    async def _load(self, game_id: str) -> LiveGame:
        meta = await self.recorder.db(self.storage.game, game_id)
        if meta is None:
            raise ApiError(404, "no_game", f"no game {game_id!r}")
        game = LiveGame(meta, None, None, [])
        await self._catch_up(game, await self.recorder.db(self.storage.events, game_id, 0))
        return self.held.setdefault(game_id, game)

    async def _catch_up(self, game: LiveGame, events: list[Event]) -> list[dict[str, Any]]:
        """Apply stored events this process has not seen; returns their log entries. The
        caller has just read `game.meta`: a game it shows started begins its record here."""
        entries: list[dict[str, Any]] = []
        if game.record is None:
            if game.meta.first is None:
                return []
            game.record = game.meta.record([])
            game.state = game.record.start()
            entries.append(start_line(game))
            game.log.extend(entries)
        for item in events:
            assert game.state is not None
            entries += game.advance(item, apply_event(game.state, item))
        return entries

    async def refresh(self, game: LiveGame, seats: bool = False) -> None:
        """Pick up what other processes stored (with `seats`, seat changes and a rematch too) and tell our clients."""
        over = game.state is not None and game.state.is_over
        if over and not seats:
            return
        changed = False
        if game.record is None or seats:
            meta = await self.recorder.db(self.storage.game, game.meta.id)
            if meta is not None and meta != game.meta:
                game.meta, changed = meta, True
        if over or game.meta.first is None:  # over: only its rematch can have changed; waiting: only its seats
            if changed:
                self.publish(game, [])
            return
        entries = await self._catch_up(game, await self.recorder.db(self.storage.events, game.meta.id, game.version))
        if entries or changed:
            if game.state is not None and game.state.is_over:
                game.meta = await self.recorder.db(self.storage.game, game.meta.id)
            self.publish(game, entries)
            self.moved(game)

    async def catch_up_all(self) -> None:
        for game in list(self.held.values()):
            async with game.lock:
                await self.refresh(game, seats=True)

    async def notified(self, game_id: str, version: int) -> None:
        """Another process (or this one) stored something for `game_id`: catch up if behind."""
        game = self.held.get(game_id)
        if game is None or (version >= 0 and game.version >= version):
            return
        async with game.lock:
            await self.refresh(game, seats=version < 0)

    def forget_if_idle(self, game: LiveGame) -> None:
        """Drop a finished game nobody watches from memory; it is rebuilt from storage if asked for."""
        if not game.listeners and game.state is not None and game.state.is_over:
            self.held.pop(game.meta.id, None)

    # ------------------------------------------------------------ broadcasting
    def publish(self, game: LiveGame, entries: list[dict[str, Any]]) -> None:
        self.send(game, json.dumps({"type": "update", "game": game.snapshot(), "log": entries}))  # encoded once

    def send(self, game: LiveGame, message: str) -> None:
        for queue in list(game.listeners):
            if queue.qsize() < QUEUE_LIMIT:  # a client that reads nothing misses updates; nobody waits for it
                queue.put_nowait(message)

    # --------------------------------------------------------------- playing
    async def act(self, game_id: str, seat: int | None, version: int, action: Action) -> dict[str, Any]:
        """Apply one action for `seat` made on state `version`; returns the new game JSON."""
        game = await self.live(game_id)
        if seat is None:
            raise ApiError(403, "not_seated", "this client holds no seat in this game: join a seat first (spectators cannot act)")
        async with game.lock:
            if version > game.version or game.state is None:
                await self.refresh(game)  # another process may have moved on; else the insert tells
            state = game.state
            if state is None:
                raise ApiError(409, "not_started", f"the game waits for players in seats {game.open_seats}")
            if version != game.version:
                raise ApiError(409, "stale", f"the action was made on version {version} but the game is at version {game.version}; nothing was applied", version=game.version)
            if state.is_over:
                raise ApiError(409, "game_over", f"the game is over: {game.names[state.player]} won")
            if seat != state.player:
                raise ApiError(409, "not_your_turn", f"it is {game.names[state.player]}'s turn (seat {seat_letter(state.player)}), not yours")
            try:
                item, after = next_event(state, action, self.dice)
            except CantStopError as error:
                raise ApiError(422, "illegal", str(error), legal=legal_json(state)) from None
            try:
                await self.recorder.append(Append(game_id, game.version + 1, item, after.winner))
            except StaleError:
                await self.refresh(game)
                raise ApiError(409, "stale", f"another action was applied first; the game is at version {game.version}", version=game.version) from None
            entries = game.advance(item, after)
            game.driven = game.version
            if after.is_over:
                game.meta = await self.recorder.db(self.storage.game, game_id)
                await self.recorder.db(rate_game, self.storage, game.names, after)
            self.publish(game, entries)
            self.moved(game)
            return game.snapshot()


def start_line(game: LiveGame) -> dict[str, Any]:
    assert game.meta.first is not None
    rolloff = game.meta.tags.get("RollOff")
    how = f" (roll-off {rolloff})" if rolloff else ""
    return {"kind": "start", "seat": game.meta.first, "version": 0, "text": f"{game.names[game.meta.first]} goes first{how}"}
