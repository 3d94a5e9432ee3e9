"""The races of resigning, on SQLite and PostgreSQL: a move made before a resignation that
arrives after it, a resignation while a move is being stored or a bot is thinking, one that
keeps finding the game moved on, and one as the game just starts. Each interleaving is made
to happen by events the test holds (a storage call or a bot held until the test lets it go),
never by timing; "here" and "there" are two server processes on one database."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from web_helpers import WAIT, Clock, move_for

from cantstop.bots import get_bot
from cantstop.core.state import State
from cantstop.table import Kind, Move, StaleMoveError
from cantstop.web.db.storage import Storage
from cantstop.web.db.tokens import new_token
from cantstop.web.db.values import Append, GameStatus, Taker
from cantstop.web.errors import Conflict
from cantstop.web.games import bot_seats
from cantstop.web.games.live import LiveGame
from cantstop.web.service import GameService


def process(storage: Storage, clock: Clock) -> GameService:
    return GameService(storage, bot_delay=0, bot_standby=0.0, now=clock)


async def started(service: GameService, seats: list[str]) -> LiveGame:
    """A game whose open seats are taken at creation by people at one screen: it starts at once."""
    people = {i: Taker(f"P{i}", new_token()) for i, kind in enumerate(seats) if kind == "open"}
    return await service.games.live(await service.lobby.create("classic", seats, people))


def in_play(game: LiveGame) -> State:
    assert game.state is not None
    return game.state


def resigned(moves: list[Move]) -> list[int | None]:
    return [m.seat for m in moves if m.kind is Kind.RESIGN]


def run(services: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(services(), WAIT))


def hold_appends(monkeypatch: pytest.MonkeyPatch, service: GameService) -> tuple[asyncio.Event, asyncio.Event]:
    """Hold every write of moves by `service` just before it reaches the database: the first
    event is set when one is waiting, the second lets them all through."""
    storing, release = asyncio.Event(), asyncio.Event()
    real = service.games.recorder.append

    async def held(append: Append) -> None:
        storing.set()
        await release.wait()
        await real(append)

    monkeypatch.setattr(service.games.recorder, "append", held)
    return storing, release


@pytest.mark.parametrize("where", ["here", "there"])
@pytest.mark.parametrize("players", [2, 3])
def test_a_move_made_before_a_resignation_and_arriving_after_it_is_refused(any_storage: Storage, clock: Clock, where: str, players: int) -> None:
    async def services() -> None:
        here, there = process(any_storage, clock), process(any_storage, clock)
        game = await started(here, ["open"] * players)
        version, mover = game.version, in_play(game).seat
        move = move_for(in_play(game))
        leaver = (mover + 1) % players  # not the mover: a seat may resign at any moment
        await (here if where == "here" else there).leaving.resign(game.meta.id, leaver)
        # Refused as made on a game that has moved on (in this process by the table, from
        # the other by the database, whose insert finds the version taken), over or not.
        with pytest.raises(StaleMoveError):
            await here.games.act(game.meta.id, mover, version, move)
        stored = any_storage.events(game.meta.id)
        assert resigned(stored) == [leaver] and stored[-1].kind is Kind.RESIGN  # nothing of the move
        assert game.version == len(stored) and leaver in in_play(game).out  # this process shows what is stored
        if players == 2:
            assert in_play(game).winner == mover and any_storage.game(game.meta.id).status is GameStatus.OVER  # type: ignore[union-attr]
        else:  # the move made again on the game as it stands is played
            await here.games.act(game.meta.id, mover, game.version, move_for(in_play(game)))
            assert len(any_storage.events(game.meta.id)) == len(stored) + 1
        for service in (here, there):
            await service.close()

    run(services)


@pytest.mark.parametrize("where", ["here", "there"])
def test_a_resignation_while_a_move_is_being_stored(any_storage: Storage, clock: Clock, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """The mover's move is on its way to the database when another seat resigns: in the same
    process the resignation waits for it and follows it; from another process it is stored
    first, and the move's insert then finds its version taken and stores nothing."""
    async def services() -> None:
        here, there = process(any_storage, clock), process(any_storage, clock)
        game = await started(here, ["open"] * 3)
        game_id, version, mover = game.meta.id, game.version, in_play(game).seat
        move, leaver = move_for(in_play(game)), (mover + 1) % 3
        storing, release = hold_appends(monkeypatch, here)
        acting = asyncio.create_task(here.games.act(game_id, mover, version, move))
        await storing.wait()
        if where == "here":
            resigning = asyncio.create_task(here.leaving.resign(game_id, leaver))
            for _ in range(20):  # however often the loop turns, it waits for the game's lock
                await asyncio.sleep(0)
                assert not resigning.done() and game.lock.locked()
            release.set()
            await acting
            await resigning
            stored = any_storage.events(game_id)
            assert [m.kind for m in stored[version:]] == [move.kind, Kind.RESIGN] and stored[-1].seat == leaver  # the move, then the resignation
        else:
            await there.leaving.resign(game_id, leaver)
            release.set()
            with pytest.raises(StaleMoveError):
                await acting
            stored = any_storage.events(game_id)
            assert len(stored) == version + 1 and stored[-1].kind is Kind.RESIGN and stored[-1].seat == leaver
        assert game.version == len(stored) and in_play(game).out == (leaver,)
        for service in (here, there):
            await service.close()

    run(services)


def test_a_resignation_that_keeps_finding_the_game_moved_on_stops_and_stores_nothing(
    any_storage: Storage, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process stores a move each time, just before the resignation's insert: after
    three tries it is refused as busy, nothing of it stored; tried again, it goes through."""
    async def services() -> None:
        here, there = process(any_storage, clock), process(any_storage, clock)
        game = await started(here, ["open"] * 3)
        game_id = game.meta.id
        theirs = await there.games.live(game_id)
        leaver = (in_play(game).seat + 1) % 3
        real = here.games.recorder.append
        moved = 0

        async def after_their_move(append: Append) -> None:
            nonlocal moved
            await there.games.act(game_id, in_play(theirs).seat, theirs.version, move_for(in_play(theirs)))
            moved += 1
            await real(append)

        monkeypatch.setattr(here.games.recorder, "append", after_their_move)
        with pytest.raises(Conflict) as refused:
            await here.leaving.resign(game_id, leaver)
        assert refused.value.code == "busy" and moved == 3
        stored = any_storage.events(game_id)
        assert resigned(stored) == [] and game.version == len(stored) == theirs.version  # caught up, nothing half made
        monkeypatch.setattr(here.games.recorder, "append", real)
        await here.leaving.resign(game_id, leaver)
        assert resigned(any_storage.events(game_id)) == [leaver]
        for service in (here, there):
            await service.close()

    run(services)


class HeldBot:
    """The random bot, held at each decision until the test lets it go: `thinking` is set
    once it has been asked, `go` lets it answer (this one and every later one)."""

    def __init__(self) -> None:
        self.real = get_bot("random")
        self.thinking, self.go = threading.Event(), threading.Event()
        self.asked = 0

    def __call__(self, state: State, rng: Any, budget: Any) -> Any:
        self.asked += 1
        self.thinking.set()
        if not self.go.wait(WAIT):
            raise AssertionError("the test never let the bot answer")
        return self.real.play(state, rng, budget)


@pytest.mark.parametrize("players", [2, 3])
def test_a_resignation_while_a_bot_is_thinking(any_storage: Storage, clock: Clock, monkeypatch: pytest.MonkeyPatch, players: int) -> None:
    """A person resigns while the bot thinks: with two seats the game is over and the bot's
    answer is dropped; with three the answer, made on the game before, is refused as stale
    and the bot thinks again on the game as it stands."""
    bot = HeldBot()
    monkeypatch.setattr(bot_seats, "get_bot", lambda name: bot)

    async def services() -> None:
        service = process(any_storage, clock)
        game = await started(service, ["open"] * (players - 1) + ["bot:random"])
        game_id, seat_of_bot = game.meta.id, players - 1
        for _ in range(200):  # the people play until the bot's turn (it rolls, then thinks)
            if in_play(game).seat == seat_of_bot:
                break
            await service.games.act(game_id, in_play(game).seat, game.version, move_for(in_play(game)))
        assert await asyncio.to_thread(bot.thinking.wait, WAIT), "the bot was never asked"
        asked_on = game.version
        await service.leaving.resign(game_id, 0)
        bot.go.set()
        assert game.bot_task is not None
        await game.bot_task  # its turn played out (or, the game over, its answer dropped)
        stored = any_storage.events(game_id)
        assert resigned(stored) == [0] and stored[asked_on].kind is Kind.RESIGN
        if players == 2:
            assert len(stored) == asked_on + 1 and in_play(game).winner == seat_of_bot  # nothing after the end
        else:
            # The answer it was thinking of was dropped; asked again, it chose, and its turn went on to its end.
            kinds = [m.kind for m in stored[asked_on + 1:]]
            assert kinds[0] is Kind.CHOICE and set(kinds) <= {Kind.ROLL, Kind.CHOICE, Kind.STOP} and bot.asked >= 2
            assert in_play(game).seat == 1 and in_play(game).out == (0,)
        fresh = await process(any_storage, clock).games.live(game_id)
        assert fresh.state == game.state  # what this process shows is what is stored
        await service.close()

    run(services)


@pytest.mark.parametrize("knew", [True, False])
def test_a_resignation_as_the_game_just_started(any_storage: Storage, clock: Clock, monkeypatch: pytest.MonkeyPatch, knew: bool) -> None:
    """Ann waits for a second player in one process; Bob joins in another, and the game starts.
    If this process learns of it before it resigns her, she resigns in play and Bob wins; if
    the start comes between its look at the game and its freeing her seat, nothing is done
    and she is told to resign again, which then works."""
    async def services() -> None:
        here, there = process(any_storage, clock), process(any_storage, clock)
        game_id = await here.lobby.create("classic", ["open", "open"], {0: Taker("Ann", new_token())})
        game = await here.games.live(game_id)
        assert game.table is None  # waiting, as this process holds it
        if knew:
            await there.lobby.join(game_id, 1, "Bob")
        else:
            real = here.games.refresh

            async def then_bob_joins(live: LiveGame, seats: bool = False) -> None:
                await real(live, seats)
                monkeypatch.setattr(here.games, "refresh", real)
                await there.lobby.join(game_id, 1, "Bob")

            monkeypatch.setattr(here.games, "refresh", then_bob_joins)
            with pytest.raises(Conflict) as refused:
                await here.leaving.resign(game_id, 0)
            assert refused.value.code == "not_waiting" and "resign again" in refused.value.message
            meta = any_storage.game(game_id)
            assert meta is not None and meta.status is GameStatus.PLAYING and [s.name for s in meta.seats] == ["Ann", "Bob"]
            assert any_storage.events(game_id) == []
        await here.leaving.resign(game_id, 0)
        assert resigned(any_storage.events(game_id)) == [0] and in_play(game).winner == 1
        for service in (here, there):
            await service.close()

    run(services)
