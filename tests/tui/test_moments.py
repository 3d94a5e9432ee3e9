"""Single moments of a game: busts, claims, a win, undo, advice, help, bad keys, quitting."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from textual.widgets import Button, OptionList, RichLog
from tui_helpers import ScriptedDice, game_screen, make_app, until

from cantstop.bots import BotInfo, Budget, Level, get_bot
from cantstop.core.notation import from_notation
from cantstop.core.record import read_record
from cantstop.core.state import STOP, Action, Phase, State
from cantstop.core.variant import Variant
from cantstop.table.wording import explain_bust
from cantstop.tui.game_screen import GameScreen
from cantstop.tui.modals import KEYS, ConfirmQuit, GameOver, HelpScreen, Notice
from cantstop.tui.seats import Seat
from cantstop.tui.start_screen import kind_options
from cantstop.tui.widgets import BoardView, TooSmall, players_text

pytestmark = pytest.mark.asyncio
ONES = (1, 1, 1, 1)  # 2+2: column 2 twice
SIXES = (6, 6, 6, 6)  # 12+12


def log_text(app: object) -> str:
    screen = game_screen(app)  # type: ignore[arg-type]
    text = " ".join(line.text for line in screen.query_one("#log", RichLog).lines)
    return " ".join(text.split())  # the log wraps long lines: compare words, not line breaks


async def test_a_bust_is_shown_with_its_dice_and_reason_before_play_passes(tmp_path: Path) -> None:
    # 1111 puts a runner two up column 2, 1111 again takes it to the top, the third 1111 fits nowhere.
    app = make_app(tmp_path, "Ann,Bob", dice=ScriptedDice([ONES, ONES, ONES]))
    async with app.run_test() as pilot:
        await pilot.press("r", "1", "r", "1")
        screen = game_screen(app)
        assert screen.session.state.runners[2] == 3
        await pilot.press("r")
        assert isinstance(app.screen, Notice)
        body = str(app.screen.body)
        assert "1 1 1 1" in body and "the runner in 2 is at the top" in body
        # the board still shows the runner that was lost, and the dice are marked as a bust
        assert screen.query_one(BoardView).state.runners[2] == 3
        assert "BUST" in str(screen.query_one("#dice").render())
        assert "turn 1 · Ann busts" in str(screen.query_one("#status").render())
        assert "▶ A Ann" in str(screen.query_one("#players").render())  # not yet Bob's turn
        await pilot.press("x")  # any key goes on
        assert not isinstance(app.screen, Notice)
        state = screen.session.state
        assert state.seat == 1 and state.phase is Phase.ROLL and state.pieces[0][2] == 0
        assert "Ann busts" in log_text(app)
        assert "▶ B Bob" in str(screen.query_one("#players").render())


async def test_solitaire_states_its_goal_and_the_panel_fits_four_claims(tmp_path: Path) -> None:
    app = make_app(tmp_path, "Ann", "solitaire", first=None)
    async with app.run_test() as pilot:
        screen = game_screen(app)
        assert "Claim 3 columns in as few turns as you can" in log_text(app)
        assert "Roll-off" not in log_text(app) and "wins" not in log_text(app)
        # a position with columns 9-12 claimed: the claims stay on Ann's line
        state = from_notation("solitaire 00000009753 00000000000 A over 0 9")
        screen.query_one("#players").update(players_text(state, ["Ann Longername"], [False]))
        await pilot.pause()
        lines = str(screen.query_one("#players").render()).splitlines()
        assert lines[1].rstrip().endswith("9,10,11,12") and len(lines) == 2


async def test_a_claim_wipes_the_other_players_piece(tmp_path: Path) -> None:
    script = [SIXES, ONES, ONES, ONES]  # Ann 12+12 stop; Bob 2+2 stop; Ann 2+2, 2 stop: claims 2
    app = make_app(tmp_path, "Ann,Bob", dice=ScriptedDice(script))
    async with app.run_test() as pilot:
        await pilot.press("r", "1", "s")  # Ann
        await pilot.press("r", "1", "s")  # Bob: a piece on space 2 of column 2
        session = game_screen(app).session
        assert session.state.pieces[1][2] == 2
        await pilot.press("r", "1", "r", "1", "s")  # Ann reaches the top of 2 and stops
        state = session.state
        assert state.claimed[2] == 0 and state.pieces[1][2] == 0 and state.pieces[0][2] == 3
        assert "Ann claims column 2! Removed from 2: Bob." in log_text(app)


async def test_a_win_ends_the_game_and_offers_another_with_the_same_seats(tmp_path: Path) -> None:
    app = make_app(tmp_path, "Ann,Bob", "classic+to_win=1", dice=ScriptedDice([ONES, ONES]))
    async with app.run_test() as pilot:
        await pilot.press("r", "1", "r", "1", "s")
        await pilot.pause()
        assert isinstance(app.screen, GameOver)
        summary = app.screen.summary.plain
        assert "Ann wins!" in summary and "1 turn." in summary and "A  Ann: columns 2" in summary
        first = game_screen(app).session
        assert read_record(first.path.read_text()).result == "A"
        await pilot.press("n")
        await pilot.pause()
        second = game_screen(app).session
        assert second is not first and second.path != first.path
        assert [s.name for s in second.seats] == ["Ann", "Bob"]
        assert not second.state.is_over and second.table.record.events == []


async def test_choices_are_numbered_previewed_and_played_by_number(tmp_path: Path) -> None:
    app = make_app(tmp_path, "Ann,Bob", dice=ScriptedDice([(1, 5, 4, 6)]))
    async with app.run_test() as pilot:
        await pilot.press("r")
        screen = game_screen(app)
        options = screen.session.state.options
        assert options == ((5, 11), (6, 10), (7, 9))
        listed = screen.query_one("#choices", OptionList)
        assert [str(listed.get_option_at_index(i).prompt) for i in range(3)] == ["1  5+11", "2  6+10", "3  7+9"]
        board = screen.query_one(BoardView)
        assert board.preview is not None and board.preview.runners[5] == 1
        await pilot.press("down")
        assert board.preview is not None and board.preview.runners[6] == 1 and board.preview.runners[10] == 1
        await pilot.press("3")
        assert screen.session.state.runners[7] == 1 and screen.session.state.runners[9] == 1


async def test_undo_takes_back_a_choice_in_practice_only(tmp_path: Path) -> None:
    app = make_app(tmp_path, "Ann,bot:random", dice=ScriptedDice([(1, 5, 4, 6)]))
    async with app.run_test() as pilot:
        await pilot.press("r", "2")
        session = game_screen(app).session
        assert session.state.phase is Phase.DECIDE
        await pilot.press("u")
        assert session.state.phase is Phase.CHOOSE and session.state.dice == (1, 5, 4, 6)
        assert len(read_record(session.path.read_text()).events) == 1  # saved without the choice
        await pilot.press("1")
        assert session.state.runners[5] == 1
    people = make_app(tmp_path, "Ann,Bob", dice=ScriptedDice([(1, 5, 4, 6)]))
    async with people.run_test() as pilot:
        await pilot.press("r", "2", "u")
        assert game_screen(people).session.state.phase is Phase.DECIDE  # nobody may take back


async def test_bots_move_one_step_at_a_time_on_space(tmp_path: Path) -> None:
    app = make_app(tmp_path, "bot:random,Ann", dice=ScriptedDice([(1, 5, 4, 6)]))
    async with app.run_test() as pilot:
        session = game_screen(app).session
        await pilot.press("space")
        assert session.state.phase is Phase.CHOOSE and session.state.seat == 0
        await pilot.press("space")
        assert session.state.phase is Phase.DECIDE
        assert "Random bot rolls 1 5 4 6" in log_text(app)


async def test_advice_shows_odds_and_a_suggestion(tmp_path: Path) -> None:
    # Runners on 2, 3 and 12: a roll can use one of them 43.83% of the time (RULES.md), so 56% bust.
    app = make_app(tmp_path, "Ann,bot:random", dice=ScriptedDice([(1, 1, 1, 2), SIXES]))
    async with app.run_test() as pilot:
        await pilot.press("a")
        screen = game_screen(app)
        assert "Next roll: 0% bust" in str(screen.query_one("#advice").render())
        await pilot.press("r", "1", "r")
        listed = screen.query_one("#choices", OptionList)
        assert str(listed.get_option_at_index(0).prompt) == "1  12+12   then 56% bust"
        assert "Expert bot says: play 12+12: 56% bust next roll" in str(screen.query_one("#advice").render())
        await pilot.press("1")
        advice = str(screen.query_one("#advice").render())
        assert "Next roll: 56% bust" in advice and "Expert bot says: " in advice
        await pilot.press("a")
        assert "Next roll" not in str(screen.query_one("#advice").render())


async def test_help_lists_every_key(tmp_path: Path) -> None:
    app = make_app(tmp_path, "Ann,Bob")
    async with app.run_test() as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        shown = app.screen.keys
        assert [k for k, _ in shown] == [k for k, _ in KEYS]
        bound = {b.key for b in GameScreen.BINDINGS if not isinstance(b, tuple)}
        assert {"r", "s", "a", "u", "f", "space", "question_mark"} <= bound
        await pilot.press("escape")
        assert isinstance(app.screen, GameScreen)


async def test_unknown_keys_change_nothing(tmp_path: Path) -> None:
    app = make_app(tmp_path, "Ann,Bob")
    async with app.run_test() as pilot:
        session = game_screen(app).session
        before = session.state
        await pilot.press("x", "z", "9", "s", "1", "enter", "tab", "f5", "u")
        assert session.state == before and session.table.record.events == []
        assert isinstance(app.screen, GameScreen)


async def test_ctrl_c_asks_before_quitting_and_the_game_is_saved(tmp_path: Path) -> None:
    app = make_app(tmp_path, "Ann,Bob")
    async with app.run_test() as pilot:
        await pilot.press("r")
        session = game_screen(app).session
        assert read_record(session.path.read_text()).final() == session.state
        await pilot.press("ctrl+c")
        assert isinstance(app.screen, ConfirmQuit)
        assert f"--resume {session.path}" in str(app.screen.detail)
        await pilot.press("n")
        assert isinstance(app.screen, GameScreen) and app.return_value is None
        await pilot.press("ctrl+c", "y")
        await pilot.pause()
    assert app.return_value == str(session.path)


@pytest.mark.parametrize("size", [(79, 24), (80, 23), (60, 20)])
async def test_a_too_small_terminal_says_how_big_it_must_be(tmp_path: Path, size: tuple[int, int]) -> None:
    app = make_app(tmp_path, "Ann,Bob")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        message = app.screen.query_one(TooSmall)
        assert message.display
        assert "80×24" in str(message.render()) and f"{size[0]}×{size[1]}" in str(message.render())
        assert not app.screen.query_one(BoardView).display or app.screen.has_class("-small")
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert not app.screen.has_class("-small")
        assert app.screen.query_one(BoardView).region.height > 0


async def test_bots_play_on_their_own_but_wait_while_a_dialog_is_open(tmp_path: Path) -> None:
    app = make_app(tmp_path, "bot:random,Ann")
    async with app.run_test() as pilot:
        screen = game_screen(app)
        session = screen.session
        await pilot.press("question_mark")
        screen.bot_delay = 0.02  # from now on bots move on their own
        screen.schedule_bot()
        events = len(session.table.record.events)
        await pilot.pause(0.3)  # many bot delays long
        assert len(session.table.record.events) == events  # nothing moved under the help screen
        await pilot.press("escape")
        for _ in range(100):  # bounded wait for the bot's turn to be played out
            if session.seat.is_person:
                break
            await pilot.pause(0.05)
        assert session.seat.is_person and len(session.table.record.events) > events


async def test_the_same_fallback_notice_is_given_once(tmp_path: Path) -> None:
    app = make_app(tmp_path, "Ann,bot:medium,bot:medium")
    async with app.run_test():
        assert log_text(app).count("bot yet") <= 1


async def test_a_failing_bot_does_not_end_the_game(tmp_path: Path) -> None:
    def broken(state: State, rng: random.Random, budget: Budget) -> Action:
        raise RuntimeError("out of ideas")

    seat = Seat("Broken bot", "bot:broken", BotInfo("broken", Level.EASY, "always fails", broken, "Broken bot"))
    app = make_app(tmp_path, "Ann")
    app.config.seats = [seat, Seat("Ann", "Ann")]
    async with app.run_test() as pilot:
        session = game_screen(app).session
        await pilot.press("f")
        await until(pilot, lambda: session.seat.name == "Ann" or session.state.is_over)
        assert "Broken bot failed (RuntimeError: out of ideas); it plays" in log_text(app)


async def test_bots_get_ready_before_the_first_moves_and_the_log_says_when_they_compile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    got_ready: list[tuple[str, int]] = []

    def prepare(variant: Variant, players: int) -> None:
        got_ready.append((variant.name, players))

    @contextmanager
    def one_compile(on_compile: Callable[[str], None]) -> Iterator[None]:
        on_compile("cantstop.solve.kernels.layout")  # what numba tells of a first run
        yield

    monkeypatch.setattr("cantstop.tui.session.watch_compiling", one_compile)
    slow = BotInfo("slow", Level.EASY, "compiles first", get_bot("random").play, "Slow bot", prepare=prepare)
    app = make_app(tmp_path, "Ann")
    app.config.seats = [Seat("Slow bot", "bot:slow", slow), Seat("Ann", "Ann")]
    async with app.run_test() as pilot:
        session = game_screen(app).session
        await pilot.press("f")
        await until(pilot, lambda: session.seat.name == "Ann" or session.state.is_over)
        assert got_ready == [("classic", 2)]
        log = log_text(app)
        assert "Compiling the Slow bot's kernels (first run only" in log
        assert log.index("Ready.") < log.index("Slow bot rolls")


async def test_keys_for_bots_wait_until_the_bots_are_ready_and_never_block_the_screen(tmp_path: Path) -> None:
    release = threading.Event()

    def prepare(variant: Variant, players: int) -> None:
        assert release.wait(30), "the test never let the bot get ready"

    slow = BotInfo("slow", Level.EASY, "compiles first", get_bot("random").play, "Slow bot", prepare=prepare)
    app = make_app(tmp_path, "Ann")
    app.config.seats = [Seat("Slow bot", "bot:slow", slow), Seat("Ann", "Ann")]
    async with app.run_test() as pilot:
        session = game_screen(app).session
        await pilot.press("space", "f")  # a step and a fast-forward while it gets ready: the screen answers
        assert session.table.version == 0 and not game_screen(app).bots_ready.is_set()
        release.set()
        await until(pilot, lambda: session.seat.name == "Ann" or session.state.is_over)  # fast-forwarded
        assert "FellBack" not in log_text(app) and "failed" not in log_text(app)


async def test_fast_forward_hands_slow_bots_to_the_background_and_ends_at_a_person(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("cantstop.tui.game_screen.FAST_FORWARD_SLICE", 0.0)  # every bot counts as slow
    app = make_app(tmp_path, "bot:random,bot:random,Ann")
    async with app.run_test() as pilot:
        screen = game_screen(app)
        session = screen.session
        screen.action_fast()  # what f does, called directly: it must return before the bots finish
        assert screen.fast and not session.seat.is_person
        await until(pilot, lambda: session.seat.is_person)  # bots move without their (endless) delay
        assert not screen.fast
        await pilot.press("r", "1", "s")
        events = len(session.table.record.events)
        await pilot.pause(0.2)
        assert len(session.table.record.events) == events  # after a person, bots wait their delay again


async def test_a_turtle_die_reads_t_in_the_log_as_on_the_dice(tmp_path: Path) -> None:
    # turtles: every die carries a turtle in place of the 1
    app = make_app(tmp_path, "Ann,Bob", "turtles", dice=ScriptedDice([(4, 3, 1, 6)]))
    async with app.run_test() as pilot:
        await pilot.press("r")
        screen = game_screen(app)
        assert "T" in str(screen.query_one("#dice").render())
        assert "Ann rolls 4 3 T 6:" in log_text(app)


async def test_the_status_says_when_stopping_is_not_allowed(tmp_path: Path) -> None:
    # Ann 2+2 and stops on space 2 of column 2; Bob's 2+2 lands on her piece.
    app = make_app(tmp_path, "Ann,Bob", "classic-no-stop-on-occupied", dice=ScriptedDice([ONES, ONES]))
    async with app.run_test() as pilot:
        await pilot.press("r", "1", "s", "r", "1")
        status = str(game_screen(app).query_one("#status").render())
        assert "Bob (B) to roll (no stop: a runner is on another player's piece)" in status
        await pilot.press("s")
        assert game_screen(app).session.state.seat == 1  # the stop was refused


async def test_a_bust_on_turtle_dice_names_the_sums_not_every_pairing() -> None:
    before = from_notation("turtles 00000000000/00000000000 23000000002 A decide 7 0")  # 2, 3, 12 at the top
    assert before.choices((1, 1, 1, 1)) == ()
    text = explain_bust(before, (1, 1, 1, 1))
    assert text.startswith("Rolled T T T T: 66 ways to pair them, with sums 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12.")
    assert "the runner in 12 is at the top" in text and len(text) < 600


# ---- what a new player found (issue 13): each defect, fixed on the table layer
def roller(state: State, rng: random.Random, budget: Budget) -> Action:
    """Rolls again whenever it may: busts sooner or later."""
    return state.options[0] if state.phase is Phase.CHOOSE else state.legal_actions()[0]


async def test_a_bots_runners_leave_the_board_when_it_busts(tmp_path: Path) -> None:
    seat = Seat("Roller bot", "bot:roller", BotInfo("roller", Level.EASY, "never stops", roller, "Roller bot"))
    app = make_app(tmp_path, "Ann", dice=ScriptedDice([ONES, ONES, ONES]))
    app.config.seats = [seat, Seat("Ann", "Ann")]
    async with app.run_test() as pilot:
        screen = game_screen(app)
        for _ in range(5):  # 2+2, 2 (the runner at the top), then a bust
            await pilot.press("space")
        assert screen.session.seat.name == "Ann" and "Roller bot busts" in log_text(app)
        assert not any(screen.query_one(BoardView).state.runners)  # the lost runners are gone
        assert "BUST" in str(screen.query_one("#dice").render())  # the dice still say what happened


def button_colours(screen: GameScreen) -> tuple[object, object]:
    return tuple(screen.query_one(f"#{name}", Button).styles.background for name in ("roll", "stop"))  # type: ignore[return-value]


def stopper(state: State, rng: random.Random, budget: Budget) -> Action:
    return state.options[0] if state.phase is Phase.CHOOSE else STOP


async def test_roll_and_stop_look_inactive_on_a_bots_turn_and_after_the_end(tmp_path: Path) -> None:
    # Ann 2+2 and stops; the bot 12+12 and stops; Ann 2 to the top of column 2 and stops: she wins.
    seat = Seat("Stopper bot", "bot:stopper", BotInfo("stopper", Level.EASY, "stops", stopper, "Stopper bot"))
    app = make_app(tmp_path, "Ann", "classic+to_win=1", dice=ScriptedDice([ONES, SIXES, ONES]))
    app.config.seats = [Seat("Ann", "Ann"), seat]
    async with app.run_test() as pilot:
        screen = game_screen(app)
        await pilot.press("r", "1")  # Ann may roll and stop now
        active = button_colours(screen)
        await pilot.press("s")  # the bot's turn
        idle = button_colours(screen)
        assert screen.query_one("#roll", Button).disabled and idle[0] != active[0] and idle[1] != active[1]
        await pilot.press("space", "space", "space")
        assert screen.session.seat.is_person
        await pilot.press("r", "1", "s")
        await pilot.pause()
        assert screen.session.state.is_over and button_colours(screen) == idle


async def test_bots_have_one_name_for_people_on_the_start_screen_the_board_and_the_record(tmp_path: Path) -> None:
    labels = [label for label, _ in kind_options()]
    assert "Rule-of-28 bot (medium)" in labels and not any(label.startswith("Bot") for label in labels)
    assert len(labels) == len(set(labels))  # each bot once
    app = make_app(tmp_path, "Ann,bot:medium,bot:medium")
    async with app.run_test():
        screen = game_screen(app)
        players = str(screen.query_one("#players").render())
        assert "Rule-of-28 bot B" in players and "rule28" not in players
    assert read_record(screen.session.path.read_text()).players == ["Ann", "Rule-of-28 bot B", "Rule-of-28 bot C"]


async def test_the_advice_names_the_likely_choices_in_words(tmp_path: Path) -> None:
    app = make_app(tmp_path, "Ann,bot:random")
    async with app.run_test() as pilot:
        await pilot.press("a")
        advice = str(game_screen(app).query_one("#advice").render())
        assert "Choices most often offered: " in advice and "Likeliest" not in advice
