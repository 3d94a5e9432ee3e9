"""The board text, the seats spec and the start screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cantstop.board import EMPTY, PREVIEW, RUNNER, board_size, cell_width, render_board
from cantstop.core.errors import SetupError, UnknownBotError
from cantstop.core.state import ROLL, STOP, Phase, new_game
from cantstop.core.variant import PRESETS, preset
from cantstop.tui.app import CantStopApp, PlayConfig
from cantstop.tui.game_screen import GameScreen
from cantstop.tui.seats import parse_seats, resolve_bot
from cantstop.tui.start_screen import StartScreen


def columns_of(text: str, cell: int) -> list[str]:
    """The board text cut into its columns, each read top to bottom."""
    rows = text.split("\n")
    count = (len(rows[0]) + 1) // (cell + 1)
    return ["".join(row[i * (cell + 1) + cell // 2] for row in rows) for i in range(count)]


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_column_has_its_true_height_centred(name: str) -> None:
    state = new_game(name, PRESETS[name].min_players)
    text = render_board(state).plain
    v = state.variant
    for c, column in zip(v.columns, columns_of(text, 3)):
        assert column.count(EMPTY) == v.height(c)
        # the same margin above and below (within a row when the difference is odd): a diamond
        top = len(column) - len(column.lstrip(" "))
        bottom = len(column) - len(column.rstrip(" "))
        assert abs(top - bottom) == (max(v.heights) - v.height(c)) % 2


def test_pieces_runners_claims_and_preview_are_drawn_with_letters() -> None:
    state = new_game("classic", 2, 0)
    state = state.roll((1, 1, 6, 6)).play((2, 12)).play(STOP)  # A: pieces on 2 and 12
    state = state.roll((1, 1, 1, 1)).play((2, 2))  # B: runner two up in 2
    text = render_board(state).plain
    col2, col12 = columns_of(text, 3)[0], columns_of(text, 3)[-1]
    assert col2.strip() == "2" + EMPTY + RUNNER + "A" + "2"  # label, space 3 empty, runner, A, label
    assert col12.strip() == "2" + EMPTY * 2 + "A" + "2"
    state = state.play(ROLL).roll((1, 1, 1, 1)).play((2,)).play(STOP)  # B claims 2, wiping A's piece
    col2 = columns_of(render_board(state).plain, 3)[0]
    assert col2.strip() == "BBBB2"  # the owner's letter fills the column, the top label too
    rolled = state.roll((3, 4, 3, 4))  # A to move: 7+7 would put a runner two up in 7
    chosen = columns_of(render_board(rolled, rolled.play((7, 7))).plain, 3)[5]
    assert chosen.count(PREVIEW) == 1 and chosen.strip()[-2] == EMPTY and chosen.strip()[-3] == PREVIEW


def test_the_board_fits_80_columns_and_widens_with_room() -> None:
    state = new_game("classic", 4)
    assert board_size(state, cell_width(state, 46, 15))[0] <= 46
    assert cell_width(state, 200, 40) > 3
    assert board_size(state, 3)[1] == 15


@given(st.lists(st.sampled_from(["Ann", "Bob", "bot:random", "bot:easy", "bot:medium", "bot:expert"]),
                min_size=1, max_size=4))
def test_seat_specs_give_one_seat_each_with_distinct_names(parts: list[str]) -> None:
    seats, notices = parse_seats(",".join(parts))
    assert len(seats) == len(parts) and all("bot yet" in notice for notice in notices)
    assert len({s.name for s in seats}) == len(seats)
    assert [s.is_person for s in seats] == [not p.startswith("bot:") for p in parts]
    for seat in seats:
        assert seat.bot is None or seat.bot.display in seat.name  # one name for people: "Rule-of-28 bot B"


def test_a_missing_level_falls_back_to_a_weaker_bot_with_a_notice() -> None:
    info, notice = resolve_bot("random")
    assert info.name == "random" and notice is None
    for level in ("medium", "hard", "expert"):
        info, notice = resolve_bot(level)
        assert notice is None or (f"no {level} bot yet" in notice and info.display in notice)
    with pytest.raises(UnknownBotError, match="unknown bot 'nobody'"):
        resolve_bot("nobody")
    for bad in ("", "Ann,,Bob", "A;B"):
        with pytest.raises(SetupError, match=r"bad players|bad name"):
            parse_seats(bad)


@pytest.mark.asyncio
async def test_the_start_screen_defaults_to_you_against_two_medium_bots(tmp_path: Path) -> None:
    app = CantStopApp(PlayConfig(records=tmp_path, bot_delay=10_000))
    async with app.run_test() as pilot:
        assert isinstance(app.screen, StartScreen)
        assert str(tmp_path) in str(app.screen.query("Static").last().render())
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        session = app.screen.session
        assert session.variant == preset("classic")
        assert [s.spec for s in session.seats] == ["You", "bot:medium", "bot:medium"]
        assert session.path.parent == tmp_path and session.path.exists()


@pytest.mark.asyncio
async def test_the_start_screen_refuses_seats_the_rules_do_not_allow(tmp_path: Path) -> None:
    app = CantStopApp(PlayConfig(records=tmp_path, bot_delay=10_000))
    async with app.run_test() as pilot:
        screen = app.screen
        assert isinstance(screen, StartScreen)
        screen.query_one("#variant").value = "solitaire"  # type: ignore[attr-defined]
        await pilot.pause()
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, StartScreen)
        assert "solitaire is for 1..1 players, not 3" in str(screen.query_one("#problem").render())
        for i in (1, 2):
            screen.query_one(f"#kind{i}").value = "empty"  # type: ignore[attr-defined]
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, GameScreen) and len(app.screen.session.seats) == 1
        assert app.screen.session.state.phase is Phase.ROLL


@pytest.mark.asyncio
async def test_names_are_typed_on_the_start_screen_and_enter_starts(tmp_path: Path) -> None:
    app = CantStopApp(PlayConfig(records=tmp_path, bot_delay=10_000))
    async with app.run_test() as pilot:
        screen = app.screen
        name = screen.query_one("#name0")
        name.focus()
        name.value = ""  # type: ignore[attr-defined]
        await pilot.press("Q", "u", "i", "n", "q")  # letters that are keys elsewhere just type
        assert name.value == "Quinq"  # type: ignore[attr-defined]
        assert isinstance(app.screen, StartScreen)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, GameScreen) and app.screen.session.seats[0].name == "Quinq"


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("typed", "words"),
    [("Smith, Jo", "no ',' or ';'"), ("bot:expert", "cannot start with bot:")],
)
async def test_a_name_that_would_read_back_as_other_seats_is_refused(
    tmp_path: Path, typed: str, words: str
) -> None:
    app = CantStopApp(PlayConfig(records=tmp_path, bot_delay=10_000))
    async with app.run_test() as pilot:
        screen = app.screen
        screen.query_one("#name0").value = typed  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
        assert words in str(screen.query_one("#problem").render())
