"""Bots in a game served by several processes: the one that made the last move lets its bot
think; the others stand by, and step in only when that process stops moving the game."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import replace

import pytest

import cantstop.web.games.bot_seats as bot_seats_module
from cantstop.bots import BotInfo, Budget
from cantstop.core.state import ROLL, STOP, Phase, State
from cantstop.table import Move
from cantstop.web.db.storage import Storage
from cantstop.web.service import GameService


@pytest.fixture
def thoughts(monkeypatch: pytest.MonkeyPatch) -> list[State]:
    """Every state any bot was asked to move in, in any process."""
    seen: list[State] = []
    real = bot_seats_module.get_bot

    def counting(name: str) -> BotInfo:
        bot = real(name)

        def play(state: State, rng: random.Random, budget: Budget) -> object:
            seen.append(state)
            return bot.play(state, rng, budget)

        return replace(bot, play=play)  # type: ignore[arg-type]

    monkeypatch.setattr(bot_seats_module, "get_bot", counting)
    return seen


async def until(condition: Callable[[], bool], seconds: float = 60) -> None:
    for _ in range(int(seconds * 100)):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("timed out")


async def relay(source: GameService, target: GameService, game_id: str) -> None:
    """Tell `target` of every version `source` reaches, as PostgreSQL's NOTIFY would."""
    told = -1
    while True:
        version = source.games.held[game_id].version
        if version != told:
            await target.games.notified(game_id, version)
            told = version
        await asyncio.sleep(0.005)


async def play_ann(service: GameService, game_id: str) -> None:
    """Ann (seat 0) rolls once and stops whenever it is her turn, until the game ends."""
    game = service.games.held[game_id]
    while not (state := game.state).is_over:  # type: ignore[union-attr]
        assert state is not None
        if state.seat != 0:
            await asyncio.sleep(0.01)
        elif state.phase is Phase.ROLL:
            await service.games.act(game_id, 0, game.version, Move.of(ROLL))
        elif state.phase is Phase.CHOOSE:
            await service.games.act(game_id, 0, game.version, Move.of(state.options[0]))
        else:
            await service.games.act(game_id, 0, game.version, Move.of(STOP))


def bot_decisions(service: GameService, game_id: str) -> int:
    record = service.games.held[game_id].record
    assert record is not None
    # A roll again is not an event of its own: dice after a choice imply it.
    return sum(
        1
        for state, _ in zip(record.states(), record.events)
        if state.seat == 1 and state.phase in (Phase.CHOOSE, Phase.DECIDE)
    )


@pytest.mark.asyncio
async def test_only_the_process_that_moved_lets_its_bot_think(storage: Storage, thoughts: list[State]) -> None:
    first, second = GameService(storage, bot_delay=0), GameService(storage, bot_delay=0)
    game_id = await first.lobby.create("classic+to_win=1", ["open", "bot:rule28"])
    await second.games.live(game_id)  # a client on the second process watches the game
    await first.lobby.join(game_id, 0, "Ann")
    listening = asyncio.create_task(relay(first, second, game_id))
    try:
        await play_ann(first, game_id)
        await until(lambda: second.games.held[game_id].version == first.games.held[game_id].version)
        assert second.games.held[game_id].state == first.games.held[game_id].state
        assert len(thoughts) == bot_decisions(first, game_id) > 0  # no move was thought twice
    finally:
        listening.cancel()
        await first.close()
        await second.close()


@pytest.mark.asyncio
async def test_a_standing_by_process_moves_the_bot_when_the_other_does_not(storage: Storage, thoughts: list[State]) -> None:
    stuck = GameService(storage, bot_delay=3600)  # it makes the moves, but its bot never comes
    standby = GameService(storage, bot_delay=0, bot_standby=0.05)
    game_id = await stuck.lobby.create("classic", ["bot:random", "open"])
    await standby.games.live(game_id)
    await stuck.lobby.join(game_id, 1, "Bob")
    await standby.games.notified(game_id, -1)  # as PostgreSQL tells of a start
    listening = asyncio.create_task(relay(stuck, standby, game_id))
    game = stuck.games.held[game_id]
    try:
        if game.state is not None and game.state.seat == 1:  # Bob won the roll-off: one turn
            await stuck.games.act(game_id, 1, game.version, Move.of(ROLL))
            if game.state.seat == 1:  # not a bust
                await stuck.games.act(game_id, 1, game.version, Move.of(game.state.options[0]))
                await stuck.games.act(game_id, 1, game.version, Move.of(STOP))
        # The bot moved, from the standby, and thought (its first move may be a roll, which
        # needs no thought: wait for both rather than race the thought's thread).
        await until(lambda: standby.games.held[game_id].driven > 0 and bool(thoughts))
        assert all(s.seat == 0 for s in thoughts)
    finally:
        listening.cancel()
        await stuck.close()
        await standby.close()
