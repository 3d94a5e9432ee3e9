"""Live games: each game in memory, its act path, version checks and broadcasting.

One `LiveGame` per game, its `Table` rebuilt from the stored moves whenever it is needed
(after a restart, or when another server process moved it on). A move is prepared by the
table, committed with its version, then played by the table once; clients hear of it last.
A game ends with a winner (by the rules, or as the last seat left when the others resigned
or forfeited on their clock) or, without one, abandoned (`LiveGames.end`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from cantstop.core.dice import DiceSource
from cantstop.core.notation import seat_letter
from cantstop.core.record import Event, Record
from cantstop.core.state import State
from cantstop.table import (
    Fault,
    FellBack,
    Forfeited,
    GameOverError,
    Happening,
    Kind,
    Move,
    MoveError,
    Policy,
    StaleMoveError,
    Table,
    advance,
)
from cantstop.table.wording import roll_off_line
from cantstop.web.db.recorder import Recorder
from cantstop.web.db.tokens import GAME_ID
from cantstop.web.db.values import Append, GameStatus, SeatKind, StoredGame
from cantstop.web.errors import Conflict, Invalid, NotAllowed, NotFound
from cantstop.web.games.chat import HISTORY, ChatRoom
from cantstop.web.games.connections import Connections, Queue
from cantstop.web.games.describe import display_names, game_json, log_lines
from cantstop.web.players.ratings import rate_game

log = logging.getLogger("cantstop.web")

# Games held with nothing happening to them: the most kept, and the seconds one asked for is
# kept whatever else holds it (a request between its look-up and its lock, say).
IDLE_KEPT = 1000
IDLE_GRACE = 5.0


@dataclass
class LiveGame:
    """A game as the server holds it between actions: its `Table` once play has started."""

    meta: StoredGame
    table: Table | None
    log: list[dict[str, Any]]
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    connections: Connections = field(default_factory=Connections)  # who has it open in this process
    bot_task: asyncio.Task[None] | None = None
    clock_task: asyncio.Task[None] | None = None
    chat: ChatRoom = field(default_factory=ChatRoom)
    # The version this process brought about (a move or the start), -1 if none: its bots
    # and its clock move on from there at once, while other processes only stand by.
    driven: int = -1
    # The last version this process is storing now (-1: none): whatever the database answers,
    # the act path brings the game that far or further, so a notice up to it is only noted.
    storing: int = -1
    noticed: bool = False  # a notice came up to `storing` meanwhile (should the act path be cancelled)
    # When the current version came about (seconds since the epoch): the move clock counts from here.
    moved_at: float = field(default_factory=time.time)
    clock_scale: float = 1.0  # the move clock's seconds are worth this many (tests make it tiny)
    now: Callable[[], float] = time.time  # the server's clock (tests move it on)
    # Seat -> its clock's timeouts in a row: a move of its own sets it back to 0. Counted from
    # the moves as they are played or restored, so a restart counts the same.
    strikes: Counter[int] = field(default_factory=Counter)
    # When this process last asked for the game (`time.monotonic`), and in which of its sweeps
    # (`LiveGames.sweeps`): one untouched since the last sweep, with nobody connected and
    # nothing due soon, is let go of and read back from the database when needed.
    used: float = field(default_factory=time.monotonic)
    used_in: int = 0
    # Let go of (`LiveGames.let_go`): a caller that still holds this copy tells the one held
    # now of anything it stores, so nothing it broadcasts is lost.
    let_go: bool = False
    _snapshot: tuple[int, StoredGame, dict[str, Any]] | None = None

    @property
    def record(self) -> Record | None:
        return self.table.record if self.table else None

    @property
    def state(self) -> State | None:
        return self.table.state if self.table else None

    @property
    def version(self) -> int:
        return self.table.version if self.table else 0

    @property
    def hides_spectators(self) -> bool:
        """Fair play: while a rated or tournament game is on, its players do not see what spectators write."""
        return self.meta.fair_play and not self.finished

    @property
    def busy(self) -> bool:
        """Whether anything holds the game in memory here: a connection, a bot thinking or
        waiting to move, a move clock counting down, or a caller holding (or waiting for) its lock."""
        return bool(
            self.connections.listeners or self.lock.locked() or _running(self.bot_task) or _running(self.clock_task)
        )

    @property
    def names(self) -> list[str]:
        return [s.name or seat_letter(s.seat) for s in self.meta.seats]

    @property
    def open_seats(self) -> str:
        return ", ".join(str(s.seat) for s in self.meta.seats if s.kind is SeatKind.OPEN) or "none"

    @property
    def ended(self) -> bool:
        """Ended without a winner (abandoned): its position stands, but nobody moves any more."""
        return self.meta.status is GameStatus.ABANDONED

    @property
    def finished(self) -> bool:
        """Won or abandoned."""
        return self.ended or (self.table is not None and self.table.state.is_over)

    @property
    def person_to_move(self) -> int | None:
        """The seat of the person whose move it is, if one is (the clock runs only for people)."""
        state = self.state
        if state is None or self.finished or self.meta.seats[state.seat].kind is not SeatKind.PERSON:
            return None
        return state.seat

    def deadline(self) -> float | None:
        """When the person to move runs out of time (seconds since the epoch), if the game has a clock."""
        if not self.meta.clock or self.person_to_move is None:
            return None
        return self.moved_at + self.meta.clock * self.clock_scale

    def snapshot(self) -> dict[str, Any]:
        """The game's JSON, built once per version and seating (every client gets the same)."""
        cached, version = self._snapshot, self.version
        if cached is None or cached[0] != version or cached[1] is not self.meta:
            data = game_json(self.meta, self.state, version)
            deadline = self.deadline()
            data["clock"] = {"seconds": self.meta.clock, "deadline": None if deadline is None else round(deadline * 1000)}
            cached = self._snapshot = (version, self.meta, data)
        return cached[2]

    def presence(self) -> dict[str, Any]:
        """Who has this game open here, whose move it is (a person deciding or a bot thinking),
        and the server's time (ms), against which a browser reads the move clock's deadline."""
        state = self.state
        thinking = state.seat if state is not None and not state.is_over and not self.ended else None
        return {"connected": self.connections.connected, "thinking": thinking, "now": round(self.now() * 1000)}

    def told(self, happenings: list[Happening]) -> list[dict[str, Any]]:
        """The log entries of what the last moves did, at the current version."""
        assert self.table is not None
        count_strikes(self.strikes, happenings)
        version = self.version
        entries = [{**entry, "version": version} for entry in log_lines(happenings, self.names, self.table.variant)]
        self.log.extend(entries)
        return entries

    def ended_line(self) -> list[dict[str, Any]]:
        """The log entry saying the game ended without a winner, once (none if it did not)."""
        if not self.ended or any(entry["kind"] == "end" for entry in self.log):
            return []
        reason = self.meta.ended or "The game has ended."
        if self.table is not None:  # the downloaded record says so too
            self.table.record.tags["Ended"] = reason
        entry = {"kind": "end", "seat": None, "version": self.version, "text": reason}
        self.log.append(entry)
        return [entry]


def _running(task: asyncio.Task[None] | None) -> bool:
    return task is not None and not task.done()


def count_strikes(strikes: Counter[int], happenings: Sequence[Happening]) -> None:
    """Count the move clock's timeouts in a row per seat, from what one stored move (or one
    commit) did: a timeout adds one (the move the table made for the seat is not the seat's
    own); a move the seat made itself sets its count back to 0; leaving the game clears it."""
    timed_out = {h.seat for h in happenings if isinstance(h, FellBack) and h.fault is Fault.TIMEOUT}
    for h in happenings if strikes else ():  # with no count kept (nobody timed out), nothing to set back
        if isinstance(h, Forfeited) or (not isinstance(h, FellBack) and h.seat not in timed_out):
            strikes.pop(h.seat, None)
    for seat in timed_out:
        strikes[seat] += 1


def told_moves(table: Table, moves: Iterable[Move]) -> Iterator[list[Happening]]:
    """Restore each move on `table` and yield what it did, one list per move. A fallback note
    yields an empty list: its happening comes with the move the table made for the seat, which
    follows it in the store, so the log tells the two as one line (`describe.log_lines`)."""
    held: list[Happening] = []
    for move in moves:
        held += table.restore(move)
        if move.kind is Kind.FALLBACK:
            yield []
            continue
        yield held
        held = []


def fallback_notes(moves: Iterable[Move], events: Sequence[Event]) -> dict[int, str]:
    """Record event index -> a note on each move the table made for a seat (the move after a
    `fallback` note), for `write_record`: '{fallback:A timeout: the move clock ran out}'.
    The moves are matched to the record's `events`, as not every move is one (notes are not;
    a resignation is among people, where the seat leaves and play goes on)."""
    notes: dict[int, str] = {}
    number = 0
    why: Move | None = None
    for move in moves:
        if move.kind is Kind.FALLBACK:
            why = move
        elif move.kind is not Kind.TIMEOUT and number < len(events) and move.event == events[number]:
            if why is not None:
                notes[number] = f"{why.text} {why.reason}".strip()
                why = None
            number += 1
    return notes


def parse_action(raw: str | list[int]) -> Move:
    """'roll', 'stop', a choice as '6+10' or [6, 10]; a clear error otherwise. A client's
    move is never an out-of-band one: the table makes those."""
    try:
        move = Move.of(tuple(sorted(raw))) if isinstance(raw, list) else Move.parse(raw.lower())
    except MoveError:
        move = None
    if move is None or move.out_of_band or (move.kind is Kind.ROLL and move.dice):
        raise Invalid("bad_action", f"unknown action {raw!r}: send 'roll', 'stop' or a choice such as '6+10' or [6, 10]")
    return move


def to_move_after(table: Table, moves: Sequence[Move]) -> int | None:
    """The seat to move once `moves` are played (None if they end the game); nothing changes
    on `table`. A choice never passes the turn; other engine moves (a roll with its dice, a
    stop) are worked out by the engine alone, and a fallback or a resignation, which only the
    table knows how to take, on a trial copy of it."""
    if all(m.kind is Kind.CHOICE for m in moves):
        return table.seat
    if not any(m.out_of_band or (m.kind is Kind.ROLL and not m.dice) for m in moves):
        state = table.state
        for move in moves:
            state = advance(state, move)
        return None if state.is_over else state.seat
    trial = table.trial()
    for move in moves:
        trial.restore(move)
    return None if trial.over else trial.seat


def policy_moves(table: Table, fault: Fault, reason: str) -> tuple[list[Move], int | None]:
    """What the table's failure policy makes of a failed seat, found on a trial copy of the
    table (nothing changes on `table`): the moves to store, and the winner if they end the game."""
    trial = table.trial()
    trial.fail(fault, reason)
    return trial.moves[table.version:], trial.winner if trial.over else None


def may_leave(table: Table, seat: int) -> bool:
    """Whether the seat can leave the game: it is in it, and not the only one (solitaire)."""
    state = table.state
    return seat not in state.out and state.num_players - len(state.out) > 1


def leave_moves(table: Table, seat: int, why: str) -> tuple[list[Move], int | None]:
    """`seat` leaving the game ('resigned', or 'timeout: ...' for a forfeit), tried on a copy
    of the table as `policy_moves` is: the moves to store, and the winner if one seat is left."""
    trial = table.trial()
    trial.restore(Move.resign(seat, why))
    return trial.moves[table.version:], trial.winner if trial.over else None


class LiveGames:
    """Every game this process holds in memory; safe to share between requests on one event loop."""

    def __init__(
        self, recorder: Recorder, dice: DiceSource, clock_scale: float = 1.0, now: Callable[[], float] = time.time,
        idle_kept: int = IDLE_KEPT, idle_grace: float = IDLE_GRACE,
    ) -> None:
        """`idle_kept`: past this many games held here, those with nothing happening to them
        (not `LiveGame.busy`) are let go of, the least recently used first; `idle_grace`:
        seconds a game asked for is kept whatever else holds it."""
        self.recorder = recorder
        self.storage = recorder.storage
        self.dice = dice
        self.clock_scale = clock_scale
        self.now = now  # the server's clock, in seconds since the epoch (tests move it on)
        self.idle_kept = idle_kept
        self.idle_grace = idle_grace
        # Every game held here, the least recently asked for first.
        self.held: OrderedDict[str, LiveGame] = OrderedDict()
        self.let_go_count = 0  # games let go of since the start (the metrics read it)
        self.sweeps = 0  # looks for idle games so far (`let_go_idle`)
        # Games a player opened or closed here since the sweeper last wrote down who had games open.
        self.seen: set[str] = set()
        self.forfeited = 0  # seats this process made forfeit on their clock (the metrics read it)
        # Loads in flight, one per id, removed when done: an unknown id leaves nothing behind.
        self._loading: dict[str, asyncio.Task[LiveGame]] = {}
        # Ratings of games that ended here, being written. A game's last move is answered
        # without waiting for its rating (a transaction of its own, and under load the slowest
        # step of any action); what shows a rating waits for it (`ratings_written`, `rate`),
        # and should this process stop first, the sweep rates the game (`Sweeper`).
        self._rating: dict[str, asyncio.Task[bool]] = {}
        self._catching_up: set[asyncio.Task[None]] = set()  # games whose act path was cancelled while storing
        self.on_move: list[Callable[[LiveGame], None]] = []  # bot seats and the move clock hook in here
        self.on_load: list[Callable[[LiveGame], None]] = []  # the move clock: any process holding a game watches its clock
        self.on_act: list[Callable[[float], None]] = []  # the metrics: seconds from an action's arrival to its commit
        self.on_turn: list[Callable[[LiveGame, int], None]] = []  # "your turn": the seat whose turn has just begun

    # --------------------------------------------------------------- loading
    @property
    def loads_in_flight(self) -> int:
        """Games being read from the database now (none once every load is done, found or not)."""
        return len(self._loading)

    async def live(self, game_id: str) -> LiveGame:
        """The game in memory, built from the database on first use."""
        game = self.held.get(game_id)
        if game is not None:
            game.used, game.used_in = time.monotonic(), self.sweeps
            self.held.move_to_end(game_id)
            return game
        if not GAME_ID.fullmatch(game_id):  # not one of ours; PostgreSQL would fail on a NUL in it
            raise NotFound("no_game", f"no game {game_id[:40]!r}: game ids are letters, digits, - and _")
        loading = self._loading.get(game_id)
        if loading is None:
            loading = self._loading[game_id] = asyncio.create_task(self._load(game_id))
            loading.add_done_callback(lambda task: self._loaded(game_id, task))
        return await asyncio.shield(loading)

    async def holding(self, game_id: str) -> LiveGame | None:
        """The game if this process holds it (waiting for its load if one is under way), else
        None: a game not held needs no news, as it is read whole when it is next needed."""
        loading = self._loading.get(game_id)
        if game_id not in self.held and loading is not None:
            try:
                await asyncio.shield(loading)
            except Exception:  # the load's own waiters hear of its failure
                return None
        return self.held.get(game_id)

    def _loaded(self, game_id: str, task: asyncio.Task[LiveGame]) -> None:
        self._loading.pop(game_id, None)
        if not task.cancelled():
            task.exception()  # its waiters may all have gone: no "exception never retrieved" noise

    async def _load(self, game_id: str) -> LiveGame:
        meta = await self.recorder.db(self.storage.game, game_id)
        if meta is None:
            raise NotFound("no_game", f"no game {game_id!r}")
        game = LiveGame(meta, None, [], clock_scale=self.clock_scale, now=self.now)
        await self._catch_up(game, await self.recorder.db(self.storage.events, game_id, 0))
        if game.table is not None and game.version != meta.version:  # moves were stored between the two reads
            game.meta = meta = await self.recorder.db(self.storage.game, game_id) or meta
            await self._catch_up(game, await self.recorder.db(self.storage.events, game_id, game.version))
        game.ended_line()
        if meta.updated is not None and game.version == meta.version:  # the clock of a game read back counts from its last stored move
            game.moved_at = meta.updated.replace(tzinfo=UTC).timestamp()
        # The chat last: a message stored from now on is relayed once the game is held (see `holding`).
        lines, muted = await self.recorder.db(self.storage.chat, game_id, HISTORY)
        game.chat = ChatRoom.stored(lines, muted, revealed=game.finished)
        held = self.held.setdefault(game_id, game)
        if held is game:
            for hook in self.on_load:
                hook(game)
            self.trim()
        held.used, held.used_in = time.monotonic(), self.sweeps
        return held

    async def _catch_up(self, game: LiveGame, moves: list[Move]) -> list[dict[str, Any]]:
        """Restore stored moves this process has not seen; returns their log entries. The
        caller has just read `game.meta`: a game it shows started gets its table here."""
        entries: list[dict[str, Any]] = []
        if game.table is None:
            if game.meta.first is None:
                return []
            game.table = Table(game.meta.record([]), self.dice, policy=Policy.FALLBACK)
            game.moved_at = self.now()  # play starts now: the first move's clock counts from here
            entries.append(start_line(game))
            game.log.extend(entries)
        for happened in told_moves(game.table, moves):
            entries += game.told(happened)
        if moves:
            game.moved_at = self.now()
        return entries

    async def refresh(self, game: LiveGame, seats: bool = False) -> None:
        """Pick up what other processes stored (with `seats`, seat changes and a rematch too) and tell our clients."""
        over = game.finished
        if over and not seats:
            return
        if seats:
            game.connections.seats_moved()
        changed = False
        retold: list[dict[str, Any]] = []  # what moves other processes made, once the game is told again
        if game.table is None or seats:
            meta = await self.recorder.db(self.storage.game, game.meta.id)
            if meta is not None and meta != game.meta:
                retold, changed = await self._take(game, meta), True
        ended = game.ended_line()  # another process ended it
        if over or game.meta.first is None or ended:  # over: only its rematch can have changed; waiting: only its seats
            if changed:
                self.publish(game, ended)
                if ended:
                    self.moved(game)
            return
        entries = retold + await self._catch_up(game, await self.recorder.db(self.storage.events, game.meta.id, game.version))
        if entries or changed:
            if game.state is not None and game.state.is_over:
                await self.reread(game)
            self.publish(game, entries)
            self.moved(game)

    async def _take(self, game: LiveGame, meta: StoredGame) -> list[dict[str, Any]]:
        """The game's row as just read. A seat renamed (a deleted account's) has its chat
        lines, log and record read as its seat does now (`_retell`, whose entries of moves
        not seen here yet come back)."""
        # a seat taken is no rename: an open seat said nothing in the chat
        renamed = any(was.name is not None and was.name != now.name for was, now in zip(game.meta.seats, meta.seats, strict=True))
        game.meta = meta
        if not renamed:
            return []
        lines, muted = await self.recorder.db(self.storage.chat, game.meta.id, HISTORY)
        game.chat.read_again(lines, muted)
        return await self._retell(game)

    async def _retell(self, game: LiveGame) -> list[dict[str, Any]]:
        """Tell a started game again from its stored moves, under the names its seats have now:
        its log, replay and record say what they said, of the seat as it is called now. The
        move clock and who drove the game on are kept. Returns the log entries of moves stored
        since this process last caught up. The caller holds the game's lock."""
        if game.table is None:  # not started: no move names anybody
            return []
        moved_at, driven, before = game.moved_at, game.driven, game.version
        game.table, game.log, game.strikes = None, [], Counter()
        await self._catch_up(game, await self.recorder.db(self.storage.events, game.meta.id, 0))
        game.ended_line()
        game.moved_at, game.driven = moved_at, driven
        return [entry for entry in game.log if entry["version"] > before and entry["kind"] != "end"]

    async def begin(self, game: LiveGame, started: StoredGame) -> None:
        """This process started the game (`started`: its row as the start left it): its table
        and first log line, told to its clients."""
        game.meta = started
        entries = await self._catch_up(game, [])
        self.publish(game, entries)
        self.moved(game)

    async def reread(self, game: LiveGame) -> None:
        """Read the game's row again: its seats, status or rematch may have changed (here or in another process)."""
        meta = await self.recorder.db(self.storage.game, game.meta.id)
        assert meta is not None, "a game is never deleted"
        await self._take(game, meta)

    def moved(self, game: LiveGame) -> None:
        for hook in self.on_move:
            hook(game)

    async def catch_up_all(self) -> None:
        for game in list(self.held.values()):
            async with game.lock:
                await self.refresh(game, seats=True)

    async def notified(self, game_id: str, version: int) -> None:
        """Another process (or this one) stored something for `game_id`: catch up if behind."""
        game = self.held.get(game_id)
        if game is None or (version >= 0 and game.version >= version):
            return
        if 0 <= version <= game.storing:
            # The notice of this process's own move, come before its act path has played it,
            # or another process's that the act path finds when the database refuses it the
            # same version: the act path catches up either way, so the listener goes on to
            # the next notice rather than wait for the game.
            game.noticed = True
            return
        async with game.lock:
            # Asked again: the notice of this process's own move can come before its act
            # path, which holds the lock, has played it; then there is nothing to read.
            if version < 0 or game.version < version:
                await self.refresh(game, seats=version < 0)

    def forget_if_idle(self, game: LiveGame) -> None:
        """Drop a finished game nobody watches from memory; it is rebuilt from storage if asked for."""
        if not game.connections.listeners and game.finished:
            self._drop(game)

    def idle(self, game: LiveGame, before: float) -> bool:
        """Whether the game may be let go of: nothing holds it (`LiveGame.busy`), its rating
        is not being written here, and nobody asked for it since `before` (`time.monotonic`)."""
        return not game.busy and game.used < before and game.meta.id not in self._rating

    def trim(self) -> int:
        """Let go of the least recently used idle games while more than `idle_kept` are held;
        returns how many.
        A game that is busy is passed over (moved to the recent end, so that the next trim
        does not look at it again first)."""
        before = time.monotonic() - self.idle_grace
        dropped = 0
        for _ in range(len(self.held)):
            if len(self.held) <= self.idle_kept:
                break
            game = next(iter(self.held.values()))
            if self.idle(game, before):
                self._drop(game)
                dropped += 1
            elif game.used >= before:  # the oldest was asked for within the grace: so were all the others
                break
            else:
                self.held.move_to_end(game.meta.id)
        return dropped

    def let_go_idle(self) -> int:
        """Let go of every idle game nobody asked for since the last call (the sweeper's look);
        returns how many. Each is read back whole when it is next needed."""
        before = time.monotonic() - self.idle_grace
        idle = [game for game in list(self.held.values()) if game.used_in < self.sweeps and self.idle(game, before)]
        for game in idle:
            self._drop(game)
        self.sweeps += 1
        return len(idle)

    def _drop(self, game: LiveGame) -> None:
        if self.held.get(game.meta.id) is game:
            del self.held[game.meta.id]
            game.let_go = True
            self.let_go_count += 1

    async def _tell_held(self, game: LiveGame) -> None:
        """A copy let go of stored something: the copy held now (if another was read in
        meanwhile) catches up and tells its clients, as another process's notice would."""
        if game.let_go:
            now_held = self.held.get(game.meta.id)
            if now_held is not None and now_held is not game:
                await self.notified(game.meta.id, -1)

    # ------------------------------------------------------------ broadcasting
    def publish(self, game: LiveGame, entries: list[dict[str, Any]]) -> None:
        presence = game.presence()
        message = {"type": "update", "game": game.snapshot(), "log": entries, "presence": presence, "now": presence["now"]}
        game.connections.send(json.dumps(message))  # encoded once
        if game.meta.fair_play and not game.chat.revealed and game.finished:  # the end: players see what spectators wrote
            game.chat.revealed = True
            for blocked, queues in game.connections.by_blocks(game.connections.seated).items():  # but not what those they block wrote
                self.send(game, json.dumps({"type": "chat_all", **game.chat.json(blocked=blocked)}), queues)

    def send(self, game: LiveGame, message: str, to: set[Queue] | None = None) -> None:
        """`message` to every client of the game (or to those of `to`)."""
        game.connections.send(message, to)

    def present(self, game: LiveGame, seat: int | None, joined: bool) -> None:
        """A client holding `seat` opened (or closed) the game here: everyone hears who is connected."""
        if seat is None:
            return
        game.connections.arrived(seat, joined)
        self.seen.add(game.meta.id)
        self.send(game, json.dumps({"type": "presence", **game.presence()}))

    # --------------------------------------------------------------- playing
    async def act(self, game_id: str, seat: int | None, version: int, move: Move) -> dict[str, Any]:
        """Apply one move for `seat` made on state `version`; returns the new game JSON.

        The table prepares the move (a roll gets its dice; a stale, out-of-turn or illegal
        one is refused with the table's own error and nothing changes), storage takes it under
        the next version (or refuses: another process stored that version first, `StaleMoveError`),
        and only then the table plays it.
        """
        arrived = time.perf_counter()
        game = await self.live(game_id)
        if seat is None:
            raise NotAllowed("not_seated", "this client holds no seat in this game: join a seat first (spectators cannot act)")
        async with game.lock:
            if version > game.version or game.table is None:
                await self.refresh(game)  # another process may have moved on; else the insert tells
            table = game.table
            if table is None:
                if game.ended:
                    raise GameOverError(f"{move} is not legal: {ended_words(game)}", None)
                raise Conflict("not_started", f"the game waits for players in seats {game.open_seats}")
            if game.ended:
                raise GameOverError(f"{move} is not legal: {ended_words(game)}", None)
            ready = table.prepare(move, version, seat)
            winner = table.preview(ready).winner if ready.kind is Kind.STOP else None
            await self.commit(game, [ready], winner)
            for hook in self.on_act:
                hook(time.perf_counter() - arrived)
            return game.snapshot()

    async def fail_seat(self, game_id: str, version: int, fault: Fault, reason: str, forfeit_after: int = 0) -> bool:
        """The seat to move at `version` failed (its clock ran out, its bot broke): the table's
        failure policy decides what follows, and that is stored and played like any move.
        With `forfeit_after`, the seat's timeout that makes that many in a row forfeits the
        game instead: it leaves, as if it had resigned (and with one seat left, that one wins).
        False, nothing done, if the game has moved on meanwhile (a move, or another process)."""
        game = await self.live(game_id)
        async with game.lock:
            await self.refresh(game)
            table = game.table
            if table is None or table.over or game.ended or game.version != version:
                return False
            seat = table.seat
            forfeit = fault is Fault.TIMEOUT and forfeit_after > 0 and game.strikes[seat] + 1 >= forfeit_after
            if forfeit and not may_leave(table, seat):  # alone (solitaire): the game ends unfinished
                name = display_names(game.names)[seat]
                self.forfeited += await self.end(game, f"{name} ran out of time {forfeit_after} times in a row: the game ends unfinished.")
                return True
            if forfeit:
                moves, winner = leave_moves(table, seat, f"{fault}: {reason} {forfeit_after} times in a row")
            else:
                moves, winner = policy_moves(table, fault, reason)
            try:
                await self.commit(game, moves, winner)
            except StaleMoveError:
                return False
            self.forfeited += forfeit
            return True

    async def end(self, game: LiveGame, reason: str, idle_before: datetime | None = None) -> bool:
        """End the game without a winner, unrated (abandoned), for `reason` (a sentence): with
        `idle_before`, only if nothing happened to it since, and no player had it open since
        (in any process, as its `seen` time says). False if not ended now. The caller holds
        the game's lock."""
        ended = await self.recorder.db(self.storage.end_game, game.meta.id, game.version, game.meta.status, reason, idle_before)
        await self.reread(game)
        entries = game.ended_line()
        if entries:
            self.publish(game, entries)
            self.moved(game)
        await self._tell_held(game)
        return ended

    async def commit(self, game: LiveGame, moves: list[Move], winner: int | None) -> None:
        """Store `moves` as the game's next versions (all or none), then let the table take them;
        publish what happened. The caller holds the game's lock."""
        table = game.table
        assert table is not None
        before = table.seat
        game.storing = game.version + len(moves)
        try:
            await self.recorder.append(Append(game.meta.id, game.version + 1, tuple(moves), winner, to_move_after(table, moves)))
        except StaleMoveError as stale:
            await self.refresh(game, seats=True)
            if game.ended:  # the version was taken by the game's end, not by a move
                raise GameOverError(f"nothing was stored: {ended_words(game)}", None) from None
            raise StaleMoveError(stale.made_on, game.version) from None
        except asyncio.CancelledError:
            if game.noticed:  # stored after all, and the notice that said so was passed over
                self._catch_up_soon(game)
            raise
        finally:
            game.storing, game.noticed = -1, False
        happened = [h for move in moves for h in table.restore(move)]
        game.moved_at = self.now()
        entries = game.told(happened)
        game.driven = game.version
        if table.over:
            await self.reread(game)
            self._rate_soon(game)
        self.publish(game, entries)
        self.moved(game)
        if not table.over and table.seat != before:
            self.turn_begins(game)
        await self._tell_held(game)

    def _catch_up_soon(self, game: LiveGame) -> None:
        """Catch the game up once it is free, as a notice would have (the one passed over)."""
        async def catch_up() -> None:
            try:
                async with game.lock:
                    await self.refresh(game)
            except Exception:  # as the listener's own catching up: one game's trouble is logged
                log.exception("catching up game %s", game.meta.id)

        task = asyncio.create_task(catch_up())
        self._catching_up.add(task)
        task.add_done_callback(self._catching_up.discard)

    # --------------------------------------------------------------- ratings
    def _rate_soon(self, game: LiveGame) -> None:
        game_id = game.meta.id
        task = asyncio.create_task(self._write_rating(game))
        self._rating[game_id] = task
        task.add_done_callback(lambda done: self._rated(game_id, done))

    def _rated(self, game_id: str, task: asyncio.Task[bool]) -> None:
        if self._rating.get(game_id) is task:
            del self._rating[game_id]
        if not task.cancelled() and task.exception() is not None:
            log.warning("game %s: its rating was not written (the sweep writes it later): %s", game_id, task.exception())

    async def ratings_written(self, game_id: str | None = None) -> None:
        """Wait for the ratings this process is writing (of game `game_id`, or of all), so that
        what a client reads next shows them; a rating that failed is left to the sweep."""
        pending = [task for key, task in list(self._rating.items()) if game_id in (None, key)]
        if pending:
            await asyncio.wait(pending)

    async def rate(self, game: LiveGame) -> bool:
        """Rate finished game `game` unless some process has (rating is written once,
        whoever comes first: `players.ratings.rate_game`); True if rated now. Waits for
        the rating this process may be writing for it."""
        await self.ratings_written(game.meta.id)
        if game.table is None or not game.table.over:
            return False
        return await self._write_rating(game)

    async def _write_rating(self, game: LiveGame) -> bool:
        assert game.table is not None
        # A bot's seat the table played (it crashed or ran out of time): a person's timeout
        # is their own doing and counts as played.
        stood_in = {m.seat for m in game.table.moves if m.kind is Kind.FALLBACK and game.meta.seats[m.seat].kind is SeatKind.BOT}
        return await self.recorder.db(rate_game, self.storage, game.meta, game.table.state, stood_in)

    def turn_begins(self, game: LiveGame) -> None:
        """A seat's turn has begun (play started, or the turn passed): "your turn" hooks hear of it."""
        if game.table is not None and not game.table.over:
            for hook in self.on_turn:
                hook(game, game.table.seat)


def ended_words(game: LiveGame) -> str:
    """Why no move is taken in a game that ended without a winner, for a refusal."""
    return f"the game has ended ({(game.meta.ended or 'abandoned').rstrip('.')})"


def start_line(game: LiveGame) -> dict[str, Any]:
    assert game.meta.first is not None
    rolloff = game.meta.tags.get("RollOff")
    how = f" {roll_off_line(rolloff)}" if rolloff else ""
    return {"kind": "start", "seat": game.meta.first, "version": 0, "text": f"{display_names(game.names)[game.meta.first]} goes first.{how}"}
