"""The analysis of a finished game and the roll map, in the terminal game and its replay."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from textual.widgets import OptionList, Static
from tui_helpers import (
    ScriptedDice,
    game_screen,
    make_app,
    notices,
    play_out,
    shown,
    until,
    worked_out,
)

from cantstop.analysis import GameAnalysis, Grade, analyse
from cantstop.analysis.outcomes import before_roll
from cantstop.analysis.rollmap import roll_map
from cantstop.analysis.wording import LOSSES, mark, report_cells, result_text, value_text
from cantstop.core.record import read_record
from cantstop.core.state import Phase
from cantstop.tui import analysed as analysed_module
from cantstop.tui.analysis_screen import AnalysisScreen
from cantstop.tui.app import CantStopApp
from cantstop.tui.game_screen import GameScreen
from cantstop.tui.modals import KEYS, GameOver, HelpScreen
from cantstop.tui.replay import ReplayApp, ReplayScreen
from cantstop.tui.roll_map import RollMapScreen

pytestmark = pytest.mark.asyncio
SMALL = "classic+heights=1.1.1.2.2.2.2.2.1.1.1"  # a board the rivals bot learned with 2 players: short games
UNKNOWN = "classic+heights=1.1.1.2.2.2.2.2.1.1.1+to_win=2"  # the same board to two columns: no value model knows it


def text(screen: AnalysisScreen, selector: str) -> str:
    return shown(screen.query_one(selector, Static))


async def bots_to_the_end(pilot: object, app: CantStopApp) -> None:
    await pilot.press("f")  # type: ignore[attr-defined]
    await until(pilot, lambda: isinstance(app.screen, GameOver))  # type: ignore[arg-type]


async def open_analysis(pilot: object, app: CantStopApp) -> AnalysisScreen:
    await pilot.press("a")  # type: ignore[attr-defined]
    screen = app.screen
    assert isinstance(screen, AnalysisScreen)
    await worked_out(pilot, "analysis")  # type: ignore[arg-type]
    return screen


async def test_the_end_of_a_game_offers_its_analysis_worked_out_behind_a_visible_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started, go_on = threading.Event(), threading.Event()

    def held(record: object) -> GameAnalysis:  # the real analysis, once the test has looked
        started.set()
        assert go_on.wait(timeout=300)
        return analyse(record)  # type: ignore[arg-type]

    monkeypatch.setattr(analysed_module, "analyse", held)
    app = make_app(tmp_path, "Ann,bot:rivals", SMALL, seed=4)
    async with app.run_test(size=(100, 30)) as pilot:
        await play_out(pilot, app, rolls_per_turn=2)
        assert "a: analyse the game" in str(app.screen.query("Static").last().render())
        await pilot.press("a")
        screen = app.screen
        assert isinstance(screen, AnalysisScreen)
        assert "analysing…" in str(screen.query_one("#status", Static).render())
        assert "Analysing the game…" in text(screen, "#head")
        await pilot.press("right")  # nothing to step through yet: it says so, and nothing breaks
        assert screen.ply is None and "still running" in " ".join(notices(app))
        go_on.set()
        await worked_out(pilot, "analysis")
        analysis = screen.analysed.analysis
        assert analysis is not None and started.is_set()
        record = game_screen(app).session.table.record
        assert analysis == analyse(record)
        assert result_text(analysis) in str(screen.query_one("#status", Static).render())
        summary = text(screen, "#summary")
        assert "accuracy" in summary and "luck" in summary
        for report in analysis.reports:
            assert " ".join(report_cells(analysis, report)[1:4]) in " ".join(summary.split())
        assert "chance to win (%), move by move" in text(screen, "#graph")
        assert "Biggest swings of luck" in text(screen, "#lists")
        turns = text(screen, "#turns")
        assert "turn" in turns and "A Ann" in turns and "B Rivals bot" in turns
        await pilot.press("escape")  # the report closes: back to the finished game
        assert isinstance(app.screen, GameScreen)
        active = {key: b.binding.action for key, b in app.screen.active_bindings.items()}
        assert active["a"] == "analyse" and "m" not in active  # no advice nor roll map once it is over
        await pilot.press("a")  # the board's own key: the analysis is kept, nothing is worked out again
        again = app.screen
        assert isinstance(again, AnalysisScreen) and again.analysed is screen.analysed
        assert "accuracy" in text(again, "#summary")


async def test_stepping_through_the_decisions_shows_every_option_and_the_roll_map(tmp_path: Path) -> None:
    app = make_app(tmp_path, "bot:expert,bot:random", SMALL, seed=6)
    async with app.run_test(size=(100, 34)) as pilot:
        await bots_to_the_end(pilot, app)
        screen = await open_analysis(pilot, app)
        analysis = screen.analysed.analysis
        assert analysis is not None
        notes = [d for d in analysis.decisions if d.grade is not Grade.FORCED]
        assert len(notes) >= 3
        await pilot.press("right")
        seen = []
        for index, note in enumerate(notes):
            assert screen.ply == note.ply
            await worked_out(pilot, "rollmap")
            options = text(screen, "#options")
            for option in note.options:
                assert option.action in options and value_text(option.value, analysis.units) in options
            assert "best" in options and f"decision {index + 1} of {len(notes)}" in str(
                screen.query_one("#status", Static).render()
            )
            position = screen.analysed.rolling_position(note)
            before = screen.analysed.states[note.ply - 1]
            assert position is not None  # every decision of a game without resignations had a roll due
            if before.phase is Phase.CHOOSE:  # the position whose roll brought the dice chosen from
                assert before_roll(position).roll(before.dice) == before
            else:  # roll on or stop: the position deciding it
                assert position == before and before.phase is Phase.DECIDE
            found = roll_map(position)
            shown_map = text(screen, "#map")
            assert f"bust: {100 * found.bust:.1f}% of rolls" in shown_map
            assert f"rolling: {value_text(found.roll, found.units)}" in shown_map
            if before.phase is Phase.CHOOSE:
                assert "Roll map before the roll" in shown_map and "▶ the roll that came" in shown_map
                seen.append("choice")
            else:
                assert "Roll map of this position" in shown_map and "stopping: " in shown_map
                seen.append("decide")
            await pilot.press("right")
        assert screen.ply == notes[-1].ply  # the last one stays
        assert set(seen) == {"choice", "decide"}
        await pilot.press("home")
        assert screen.ply == notes[0].ply
        await pilot.press("down")  # the first decision of the next turn with one
        assert screen.ply == next(n.ply for n in notes if n.turn > notes[0].turn)
        await pilot.press("up")
        assert screen.ply == notes[0].ply
        await pilot.press("end", "left")
        assert screen.ply == notes[-2].ply
        lost = [n.ply for n in notes if n.grade in LOSSES]
        await pilot.press("home", "x")
        assert screen.ply == (next((p for p in lost if p > notes[0].ply), lost[0]) if lost else notes[0].ply)
        await pilot.press("escape")  # back to the report, then closed
        assert screen.ply is None and isinstance(app.screen, AnalysisScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, GameScreen)


async def test_a_game_no_value_model_knows_is_refused_in_one_line(tmp_path: Path) -> None:
    app = make_app(tmp_path, "bot:random,bot:random", UNKNOWN, seed=2)
    async with app.run_test(size=(100, 30)) as pilot:
        await bots_to_the_end(pilot, app)
        screen = await open_analysis(pilot, app)
        head = text(screen, "#head").strip()
        assert head.startswith(f"No analysis: no value for {UNKNOWN}")
        assert "learned on these boards only" in head and "Traceback" not in head
        assert "none" in str(screen.query_one("#status", Static).render())
        await pilot.press("right", "x")  # no decisions to step through: said, not crashed
        assert screen.ply is None and isinstance(app.screen, AnalysisScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, GameScreen)


async def test_the_roll_map_key_shows_what_the_next_roll_can_bring(tmp_path: Path) -> None:
    app = make_app(tmp_path, "Ann,Bob", SMALL, dice=ScriptedDice([(2, 3, 4, 3), (1, 1, 6, 6)]))
    async with app.run_test(size=(100, 30)) as pilot:
        session = game_screen(app).session
        await pilot.press("m")  # the turn's first roll: no stopping yet
        assert isinstance(app.screen, RollMapScreen)
        await worked_out(pilot, "rollmap")
        found = roll_map(session.state)
        body = shown(app.screen.query_one("#map", Static))
        assert f"bust: {100 * found.bust:.1f}% of rolls" in body
        assert f"rolling: {value_text(found.roll, found.units)}" in body
        assert "stopping: not before the turn's first roll" in body
        first = found.groups[0]
        assert f"{100 * first.chance:.1f}%" in body and " ".join(first.choices) in body
        await pilot.press("escape")
        assert isinstance(app.screen, GameScreen) and session.state.phase is Phase.ROLL
        await pilot.press("r", "1")  # roll on or stop: both valued
        await pilot.press("m")
        await worked_out(pilot, "rollmap")
        found = roll_map(session.state)
        assert found.stop is not None
        body = shown(app.screen.query_one("#map", Static))
        verdict = "roll on" if found.roll > found.stop else "stop"
        assert f"stopping: {value_text(found.stop, found.units)} ({verdict})" in body
        await pilot.press("m")  # the same key closes it
        assert isinstance(app.screen, GameScreen)
        await pilot.press("r")  # the dice are on the table: nothing to map, and it says why
        assert session.state.phase is Phase.CHOOSE
        await pilot.press("m")
        assert isinstance(app.screen, GameScreen)
        assert any("No roll map: the dice are already rolled" in n for n in notices(app))


async def test_where_no_value_model_knows_the_game_the_roll_map_key_says_why(tmp_path: Path) -> None:
    app = make_app(tmp_path, "Ann,Bob", UNKNOWN)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = game_screen(app)
        await pilot.press("m")
        await worked_out(pilot, "rollmap")
        assert app.screen is screen  # the dialog closed itself, and the reason is one line
        said = [n for n in notices(app) if n.startswith(f"No roll map: no value for {UNKNOWN}")]
        assert len(said) == 1 and "\n" not in said[0]
        await pilot.press("m")  # known now: said at once, no dialog
        assert app.screen is screen and len([n for n in notices(app) if "no value for" in n]) == 2


async def test_the_keys_say_what_the_game_offers(tmp_path: Path) -> None:
    app = make_app(tmp_path, "Ann,Bob")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        keys = dict(KEYS)
        assert "roll map" in keys["m"] and "analyse" in keys["a"]
        last = app.screen.query(Static).last()  # "Esc or ? closes this help.", inside its box
        box = app.screen.query_one("Vertical").content_region
        assert "closes this help" in str(last.render()) and box.contains_region(last.region)
        await pilot.press("escape")
        screen = game_screen(app)
        active = {key: b.binding.action for key, b in screen.active_bindings.items()}
        assert active["a"] == "advice" and active["m"] == "roll_map"  # during the game
        await pilot.press("a")
        assert screen.advice_on and isinstance(app.screen, GameScreen)


async def test_the_replay_toggles_the_analysis_and_marks_each_event(tmp_path: Path) -> None:
    app = make_app(tmp_path, "bot:expert,bot:random", SMALL, seed=6)
    async with app.run_test() as pilot:
        await bots_to_the_end(pilot, app)
        path = game_screen(app).session.path
    record = read_record(path.read_text())
    analysis = analyse(record)
    notes = [d for d in analysis.decisions if d.grade is not Grade.FORCED]
    replay = ReplayApp(record, path)
    async with replay.run_test(size=(100, 30)) as pilot:
        screen = replay.screen
        assert isinstance(screen, ReplayScreen)
        await pilot.press("right", "right")
        await pilot.press("a")
        view = replay.screen
        assert isinstance(view, AnalysisScreen)
        await worked_out(pilot, "analysis")
        start = next(n for n in notes if n.ply >= 2)
        assert view.ply == start.ply  # it opens at the decision the replay had reached
        await pilot.press("right")
        chosen = notes[notes.index(start) + 1]
        await pilot.press("a")  # the same key toggles it off: the replay goes to that decision
        assert replay.screen is screen and screen.index == chosen.ply
        events = screen.query_one("#events", OptionList)
        lines = [str(events.get_option_at_index(i).prompt) for i in range(events.option_count)]
        for roll in analysis.rolls:
            assert "luck" in lines[roll.ply - 1]
        for note in analysis.decisions:
            if note.grade in LOSSES:
                assert f" {mark(note.grade)} {note.grade.value}" in lines[note.ply - 1]
        detail = str(screen.query_one("#detail", Static).render())
        assert "Analysis: played" in detail and "After it: A " in detail
        await pilot.press("a")  # opened again, at once, at the same decision
        again = replay.screen
        assert isinstance(again, AnalysisScreen) and again.ply == chosen.ply
        await pilot.press("escape", "escape")  # to its report, then closed
        assert replay.screen is screen and screen.index == chosen.ply


async def test_a_game_alone_is_analysed_in_expected_turns(tmp_path: Path) -> None:
    app = make_app(tmp_path, "bot:expert", "solitaire", seed=3)
    async with app.run_test(size=(100, 30)) as pilot:
        await bots_to_the_end(pilot, app)
        screen = await open_analysis(pilot, app)
        analysis = screen.analysed.analysis
        assert analysis is not None and analysis.units.value == "turns"
        assert "loss (turns)" in text(screen, "#summary")
        assert "expected turns, move by move" in text(screen, "#graph")
        assert "expected turns" in text(screen, "#turns")
        await pilot.press("right")
        await worked_out(pilot, "rollmap")
        options = text(screen, "#options")
        note = next(d for d in analysis.decisions if d.grade is not Grade.FORCED)
        assert screen.ply == note.ply and "turns" in options
        assert f"{note.options[0].value:.2f} turns" in options
        assert "rolling: " in text(screen, "#map") and " turns" in text(screen, "#map")


async def test_the_replay_of_an_unfinished_game_says_why_there_is_no_analysis(tmp_path: Path) -> None:
    path = tmp_path / "unfinished.txt"
    path.write_text('[Variant "classic"]\n[Players "Ann; Bob"]\n\n1. A 1546 6+10 stop\n2. B 1111 2+2\n')
    replay = ReplayApp(read_record(path.read_text()), path)
    async with replay.run_test() as pilot:
        await pilot.press("a")
        view = replay.screen
        assert isinstance(view, AnalysisScreen)
        await worked_out(pilot, "analysis")
        head = text(view, "#head").strip()
        assert head == "No analysis: the game is not over (turn 2, B to play): only a finished game can be analysed"
        await pilot.press("a")
        screen = replay.screen
        assert isinstance(screen, ReplayScreen) and "Analysis:" not in str(screen.query_one("#detail", Static).render())


async def test_a_resignation_is_a_decision_of_one_option_with_the_roll_map_it_gave_up(tmp_path: Path) -> None:
    path = tmp_path / "resigned.txt"
    path.write_text(f'[Variant "{SMALL}"]\n[Players "Ann; Bob"]\n\n1. A 2343 5+7 stop\n2. B 1111 2 resign:B\n')
    replay = ReplayApp(read_record(path.read_text()), path)
    async with replay.run_test(size=(100, 30)) as pilot:
        await pilot.press("a")
        view = replay.screen
        assert isinstance(view, AnalysisScreen)
        await worked_out(pilot, "analysis")
        assert "Ann won" in text(view, "#head")
        await pilot.press("right", "end")
        await worked_out(pilot, "rollmap")
        options = text(view, "#options")
        assert view.ply == 6 and "Bob resigns" in options and "resign" in options
        assert "Roll map of this position" in text(view, "#map")  # Bob was deciding whether to roll on
