"""Whole games driven by keys, headless."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_helpers import game_screen, make_app, play_out, until

from cantstop.core.record import read_record
from cantstop.core.variant import PRESETS
from cantstop.tui.modals import GameOver

pytestmark = pytest.mark.asyncio


async def test_hot_seat_people_only_play_a_whole_game(tmp_path: Path) -> None:
    app = make_app(tmp_path, "Ann,Bob", "classic", seed=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await play_out(pilot, app, rolls_per_turn=3, keys=30)
        session = game_screen(app).session
        state = session.state
        assert state.is_over and isinstance(app.screen, GameOver)
        assert len(state.columns_won(state.seat)) == 3
        record = read_record(session.path.read_text())
        assert record.final() == state
        assert record.players == ["Ann", "Bob"]


async def test_person_against_bots_plays_to_the_end(tmp_path: Path) -> None:
    app = make_app(tmp_path, "Ann,bot:random,bot:easy", "classic", seed=11)
    async with app.run_test(size=(100, 30)) as pilot:
        await play_out(pilot, app, rolls_per_turn=3, keys=10)
        session = game_screen(app).session
        assert session.state.is_over
        assert [s.is_person for s in session.seats] == [True, False, False]
        assert "wins" in str(app.screen.query_one("Static").render())
        assert read_record(session.path.read_text()).final() == session.state


@pytest.mark.parametrize("variant", list(PRESETS))
async def test_every_preset_plays_to_the_end_with_bots(tmp_path: Path, variant: str) -> None:
    seats = "bot:random" if PRESETS[variant].max_players == 1 else "bot:random,bot:random"
    app = make_app(tmp_path, seats, variant, seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f")  # fast-forward: nobody but bots at the table
        await until(pilot, lambda: isinstance(app.screen, GameOver))  # slow bots finish in the background
        session = game_screen(app).session
        assert session.state.is_over
        assert isinstance(app.screen, GameOver)
        record = read_record(session.path.read_text())
        assert record.final() == session.state
        assert record.variant == PRESETS[variant]
