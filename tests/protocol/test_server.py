"""`cantstop bot NAME`: the engine end, driven line by line and over real pipes."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cantstop.arena.schedule import DealDice
from cantstop.core.notation import to_notation
from cantstop.core.record import Record, Roll
from cantstop.core.state import ROLL, Phase, new_game
from cantstop.protocol.messages import Go
from cantstop.protocol.server import Engine, serve
from cantstop.table import Move


def session(*lines: str) -> list[str]:
    out = io.StringIO()
    serve("random", io.StringIO("".join(line + "\n" for line in lines)), out)
    return out.getvalue().splitlines()


def test_handshake_declares_the_seed_option() -> None:
    answer = session("cantstop", "isready", "quit", "isready")
    assert answer[0].startswith("id name cantstop-random")
    assert "option name Seed type spin default 0 min 0 max 2147483647" in answer
    assert answer[-2:] == ["cantstopok", "readyok"]  # nothing after quit


def test_newgame_makes_the_bot_ready_for_that_game_before_readyok() -> None:
    out: list[str] = []
    engine = Engine("random", out.append)
    kinds: list[tuple[str, int]] = []
    engine.info = replace(engine.info, prepare=lambda variant, seats: kinds.append((variant.name, seats)))
    engine.handle("newgame classic+to_win=4 3 1")
    assert kinds == [("classic+to_win=4", 3)] and out == []


def test_newgame_says_when_the_bot_cannot_play_that_game_or_get_ready() -> None:
    out: list[str] = []
    Engine("ppo", out.append).handle("newgame classic 3 0")
    assert out == ["info string error: the PPO bot cannot play classic with 3 players: its networks were "
                   "trained for solitaire with 1 player, classic with 2 players only"]
    out.clear()
    engine = Engine("random", out.append)

    def broken(variant: object, seats: int) -> None:
        raise OSError("no table")

    engine.info = replace(engine.info, prepare=broken)
    engine.handle("newgame classic 2 0")
    assert out == ["info string error: the bot could not get ready: OSError: no table"]


def test_go_answers_a_legal_action() -> None:
    state = new_game("classic", 2).roll((2, 4, 5, 5))
    answer = session("cantstop", "newgame classic 2 0", "position " + to_notation(state), "go movetime 100")
    assert answer[-1].startswith("bestmove ")
    assert Move.parse(answer[-1].split()[1]).action in state.options


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("dance", "unknown command 'dance'"),
        ("position nonsense", "a position has 7 fields"),
        ("newgame classic 9 0", "SEAT counts from 0"),
        ("newgame chess 2 0", "chess"),
        ("setoption name Depth value 3", "unknown option 'Depth'"),
        ("setoption name Seed value -1", "0..2147483647"),
        ("go movetime 100", "no position"),
        ("go fast", "bad go"),
    ],
)
def test_malformed_input_gets_an_info_string_and_the_session_goes_on(line: str, words: str) -> None:
    answer = session(line, "isready")
    assert answer[0].startswith("info string error: ") and words in answer[0], answer
    if line.startswith("go"):
        assert answer[1] == "bestmove none"
    assert answer[-1] == "readyok"


def test_errors_quote_the_line_without_its_line_ending() -> None:
    out = io.StringIO()
    serve("random", io.StringIO("newgame classic\r\ngo\n"), out)
    assert out.getvalue().splitlines()[:2] == [
        "info string error: bad newgame 'newgame classic': write newgame VARIANT SEATS SEAT, e.g. newgame classic 2 0",
        "info string error: bad go 'go': write go movetime MS (milliseconds), e.g. go movetime 1000",
    ]


def test_go_in_a_position_with_nothing_to_decide() -> None:
    answer = session("position " + to_notation(new_game("classic", 2)), "go movetime 10")
    assert "roll phase" in answer[0] and answer[1] == "bestmove none"


def test_a_bot_that_raises_gives_up_with_its_reason() -> None:
    lines: list[str] = []
    engine = Engine("random", lines.append)
    engine.info = replace(engine.info, play=lambda s, r, b: 1 / 0)
    engine.handle("position " + to_notation(new_game("classic", 2).roll((2, 4, 5, 5))))
    engine.handle("go movetime 10")
    assert lines == ["info string error: the bot failed: ZeroDivisionError: division by zero", "bestmove none"]


def test_unknown_bot_is_refused_before_any_output() -> None:
    with pytest.raises(ValueError, match="unknown bot"):
        serve("nobody", io.StringIO("cantstop\n"), io.StringIO())


def test_cantstop_bot_plays_a_whole_game_over_pipes() -> None:
    command = [sys.executable, "-c", "from cantstop.cli import main; main()", "bot", "random"]
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdin is not None and process.stdout is not None

    def ask(line: str, until: str) -> list[str]:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(line + "\n")
        process.stdin.flush()
        answer = [process.stdout.readline()]
        while answer[-1] and not answer[-1].startswith(until):
            answer.append(process.stdout.readline())
        assert answer[-1], f"the engine closed its output; it said {answer}"
        return [line.strip() for line in answer]

    try:
        assert ask("cantstop", "cantstopok")[0].startswith("id name cantstop-random")
        process.stdin.write("setoption name Seed value 7\nnewgame classic 2 1\n")
        assert ask("isready", "readyok") == ["readyok"]
        # The test plays seat A itself (always rolling on) and the engine plays seat B.
        state = new_game("classic", 2)
        record = Record(state.variant, ["test", "engine"])
        dice = DealDice(1, 0, state.variant)
        rolls = 0
        while not state.is_over and state.turn < 400:
            if state.phase is Phase.ROLL:
                turn = state.turn
                roll = dice.roll(state.turn, rolls)
                state = state.roll(roll)
                record.events.append(Roll(roll))
                rolls = rolls + 1 if state.turn == turn else 0
                continue
            if state.seat == 0:
                action = state.options[0] if state.phase is Phase.CHOOSE else ROLL
            else:
                process.stdin.write("position " + to_notation(state) + "\n")
                reply = ask(Go(50, state.legal_actions()).line(), "bestmove")[-1]
                action = Move.parse(reply.split()[1]).action
                assert action in state.legal_actions()
            turn = state.turn
            state = state.play(action)
            if action is not ROLL:
                record.events.append(action)
            if state.turn != turn:
                rolls = 0
        assert state.is_over and state.winner == 1  # a player who never stops never wins
        record.final()
        process.stdin.write("quit\n")
        process.stdin.flush()
        assert process.wait(timeout=20) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs")), max_size=60))
def test_no_line_ends_the_session_or_escapes_as_an_exception(line: str) -> None:
    out: list[str] = []
    engine = Engine("random", out.append)
    for prefix in ("", "go ", "position ", "newgame ", "setoption name Seed value "):
        text = prefix + line
        assert engine.handle(text) == (text.split()[:1] != ["quit"])
    allowed = ("info string error: ", "bestmove none", "readyok", "id ", "option ", "cantstopok")
    assert all(text.startswith(allowed) for text in out), out
