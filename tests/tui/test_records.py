"""Records on the way, resuming a game, and stepping through a finished one."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from tui_helpers import NEVER, ScriptedDice, game_screen, make_app, until

from cantstop.cli import main
from cantstop.core.dice import SeededDice
from cantstop.core.record import read_record
from cantstop.core.state import Phase
from cantstop.tui.app import CantStopApp, PlayConfig
from cantstop.tui.modals import ConfirmQuit
from cantstop.tui.replay import ReplayApp, ReplayScreen
from cantstop.tui.session import Session


@pytest.mark.asyncio
async def test_resume_after_quit_continues_where_the_game_stopped(tmp_path: Path) -> None:
    app = make_app(tmp_path, "Ann,bot:random", dice=ScriptedDice([(1, 5, 4, 6), (2, 2, 3, 3)]))
    async with app.run_test() as pilot:
        await pilot.press("r", "2", "r")  # 6+10, then a second roll waiting for a choice
        session = game_screen(app).session
        state = session.state
        assert state.phase is Phase.CHOOSE
        await pilot.press("q")
        assert isinstance(app.screen, ConfirmQuit)
        await pilot.press("y")
        await pilot.pause()
    path = Path(app.return_value or "")
    assert path == session.path
    record = read_record(path.read_text())
    assert record.tags["Seats"] == "Ann,bot:random" and record.final() == state

    resumed, notices = Session.resume(path, SeededDice(9))
    assert notices == [] and resumed.seats[1].bot is not None and resumed.seats[0].is_person
    again = CantStopApp(PlayConfig(records=tmp_path, resume=resumed, bot_delay=NEVER))
    async with again.run_test() as pilot:
        screen = game_screen(again)
        assert screen.session.state == state
        await pilot.press("1")  # the dice on the table are played as if nothing happened
        assert screen.session.state.phase is Phase.DECIDE
        await pilot.press("s")
        assert screen.session.state.seat == 1
        await pilot.press("f")  # the bot's turn, with fresh dice
        await until(pilot, lambda: screen.session.seat.name == "Ann" or screen.session.state.is_over)
    record = read_record(path.read_text())
    assert record.players == ["Ann", "Random bot"] and record.final() == screen.session.state
    assert len(record.events) > 5


def test_resume_of_a_corrupt_record_fails_clearly_and_starts_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text('[Variant "classic"]\n[Players "Ann; Bob"]\n\n1. A 1546 6+10 stop\n2. B 9999 stop\n')
    result = CliRunner().invoke(main, ["play", "--resume", str(bad), "--records", str(tmp_path)])
    assert result.exit_code != 0
    assert "line 5" in result.output and "bad dice '9999'" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.txt"]  # no new record started


def test_resume_of_a_finished_game_points_to_replay(tmp_path: Path) -> None:
    done = tmp_path / "done.txt"
    done.write_text('[Variant "classic+to_win=1"]\n[Players "Ann; Bob"]\n\n1. A 1111 2+2 1111 2 stop\n')
    result = CliRunner().invoke(main, ["play", "--resume", str(done)])
    assert result.exit_code != 0 and "is over (Ann won)" in result.output and "replay" in result.output


def test_bad_flags_are_refused_with_what_is_allowed(tmp_path: Path) -> None:
    runner = CliRunner()
    cases = {
        ("--players", "Ann,bot:nobody"): "unknown bot 'nobody'",
        ("--players", "A,B,C,D,E"): "at most 4",
        ("--players", "Ann,Bob", "--variant", "solitaire"): "solitaire is for 1..1 players",
        ("--variant", "chess"): "unknown variant 'chess'",
        ("--players", "Ann,Bob", "--first", "C"): "use A, B or 1-2",
        ("--resume", "x.txt", "--players", "Ann"): "drop --players, --variant and --first",
        ("--first", "A"): "name the seats with --players",
        ("--players", ""): "bad players ''",
        ("--players", "Ann\nLee,Bob"): "bad name 'Ann\\nLee': at most 24 printable characters",
        ("--players", "Ann,Bob", "--delay", "nan"): "must be 0 to 60 seconds, not nan",
        ("--players", "Ann,Bob", "--delay", "inf"): "must be 0 to 60 seconds, not inf",
    }
    for args, message in cases.items():
        result = runner.invoke(main, ["play", "--records", str(tmp_path), *args])
        assert result.exit_code == 2 and message in result.output, (args, result.output)


@pytest.mark.parametrize(("variant", "seats"), [("solitaire", ["You"]), ("turtles", ["You", "bot:medium", "bot:medium"])])
def test_a_variant_alone_seats_you_against_as_many_bots_as_it_allows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variant: str, seats: list[str]
) -> None:
    started: list[PlayConfig] = []
    monkeypatch.setattr(CantStopApp, "run", lambda app: started.append(app.config))
    monkeypatch.setattr("cantstop.tui.terminal.need_a_terminal", lambda command: None)
    result = CliRunner().invoke(main, ["play", "--records", str(tmp_path), "--variant", variant])
    assert result.exit_code == 0, result.output
    assert [s.spec for s in started[0].seats or []] == seats


def test_without_a_terminal_to_read_keys_from_the_game_does_not_start(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["play", "--records", str(tmp_path), "--players", "Ann,Bob"], input="")
    assert result.exit_code == 1 and "needs a terminal to read keys from" in result.output
    assert not list(tmp_path.iterdir())  # no record of a game nobody could play
    record = tmp_path / "game.txt"
    record.write_text('[Players "Ann; Bob"]\n\n1. A 1546 6+10 stop\n')
    result = CliRunner().invoke(main, ["replay", "--tui", str(record)], input="")
    assert result.exit_code == 1 and "cantstop replay --tui needs a terminal" in result.output


def test_a_records_folder_that_cannot_be_made_is_refused_before_the_game(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    result = CliRunner().invoke(main, ["play", "--records", str(tmp_path / "file" / "records"), "--players", "Ann,Bob"])
    assert result.exit_code == 2, result.output
    assert "cannot create the records folder" in result.output and "Traceback" not in result.output


@pytest.mark.asyncio
async def test_replay_steps_forwards_and_backwards(tmp_path: Path) -> None:
    path = tmp_path / "g.txt"
    path.write_text(
        '[Variant "classic"]\n[Players "Ann; Bob"]\n\n'
        "1. A 1546 6+10 stop\n2. B 1111 2+2 1111 2 1111 bust\n3. A 6666 12+12 stop\n4. B 3344 7+7 stop\n"
    )
    record = read_record(path.read_text())
    app = ReplayApp(record, path)
    async with app.run_test() as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        assert screen.index == 0 and "start of the game" in str(screen.query_one("#detail").render())
        await pilot.press("end")
        assert screen.index == len(record.events)
        await pilot.press("home")
        assert screen.index == 0
        await pilot.press("right", "right")
        assert screen.index == 2 and screen.states[2].runners[6] == 1
        await pilot.press("down")  # to the start of turn 2
        assert screen.index == 3 and screen.states[3].seat == 1
        await pilot.press("right", "right", "right", "right", "right")
        detail = str(screen.query_one("#detail").render())
        assert screen.index == 8 and "bust" in detail and "the runner in 2 is at the top" in detail
        await pilot.press("left")
        assert screen.index == 7
        await pilot.press("up")
        assert screen.index == 3
        await pilot.press("end")
        assert screen.index == len(record.events) and screen.states[-1].pieces[1][7] == 2


def test_replay_tui_flag_refuses_a_corrupt_record(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text('[Variant "classic"]\n[Players "Ann"]\n\n1. A 1546 stop\n')
    result = CliRunner().invoke(main, ["replay", str(bad), "--tui"])
    assert result.exit_code != 0 and "line 4" in result.output
