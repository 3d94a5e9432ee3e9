"""The rivals bot: legal play with two to four players, what it refuses, weights read with
numpy alone, compiled stop values equal to the numpy value's, turns that stop or roll as
the learned chances say, and a win over a weak bot."""

from __future__ import annotations

import itertools
import random
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_bots import play_game, random_position, wins_with_seats_swapped

from cantstop import PRESETS, Phase, SetupError, State
from cantstop.bots import Budget, get_bot
from cantstop.bots.learned_value import FEATURES, load_models
from cantstop.bots.rivals import board_name, rivals_for
from cantstop.core.errors import BotUnfitError
from cantstop.core.state import ROLL, STOP, make_state
from cantstop.core.variant import Variant, preset

RIVALS = get_bot("rivals")


def rated_games() -> list[tuple[Variant, int]]:
    """Every rated game: a rated base with any combination of the published options, 2-4 players."""
    from cantstop.web.players.ratings import RATED_BASES, rated_variant

    games = []
    for base, to_win, skip, no_stop, players in itertools.product(
        RATED_BASES, (3, 4, 5), (False, True), (False, True), (2, 3, 4)
    ):
        variant = PRESETS[base].with_options(to_win=to_win, skip=skip, no_stop_on_occupied=no_stop)
        if PRESETS[base].min_players <= players <= 4 and rated_variant(variant, players) is None:
            games.append((variant, players))
    return games


def test_rivals_plays_the_classic_board_with_its_published_rules() -> None:
    for name in ("classic", "classic-skip", "classic-no-stop-on-occupied"):
        for players in (1, 2, 3, 4):
            assert RIVALS.fits(PRESETS[name], players) is None, (name, players)
    games = rated_games()
    assert len(games) == 3 * 4 * (3 + 2 + 1)  # bases x options x (3 to win: 2-4 players; 4: 2-3; 5: 2)
    assert [(v.skip, v.no_stop_on_occupied, p) for v, p in games if v.name == "custom" and v.heights == PRESETS["classic"].heights and v.to_win == 3] == [
        (skip, no_stop, p) for skip in (False, True) for no_stop in (False, True) for p in (2, 3, 4)
    ]


# The rated games the shipped weights cover (docs/bots.md lists each board's training and matches).
LEARNED_RATED = {
    "classic": (2, 3, 4), "classic+to_win=4": (2, 3), "classic+to_win=5": (2,),
    "turtles": (2, 3, 4), "turtles-long": (2, 3), "turtles+to_win=5": (2,),
    "turtles-relay": (2, 3, 4), "turtles-relay+to_win=4": (2, 3), "turtles-relay+to_win=5": (2,),
}


def test_every_rated_game_is_played_with_the_value_of_its_own_board() -> None:
    """With or without skip and no_stop_on_occupied; never with another board's or to_win's weights."""
    from cantstop.solve.board import solver_key

    models = load_models()
    played: dict[str, set[int]] = {}
    for variant, players in rated_games():
        assert RIVALS.fits(variant, players) is None, (variant.name, players)
        key = solver_key(variant)
        assert players in models[key].players
        if board_name(key) not in played:  # built once a board: each build lays out the board's turns
            assert rivals_for(variant, players) is not None
        played.setdefault(board_name(key), set()).add(players)
    assert {board: tuple(sorted(counts)) for board, counts in played.items()} == LEARNED_RATED


def test_rivals_plays_the_small_boards_it_learned_with_two_players_only() -> None:
    boards = [board_name(key) for key in load_models() if "heights=" in key]
    assert "classic+heights=1.2.3.4.3.2.1+faces=4" in boards
    for spec in boards:
        assert RIVALS.fits(preset(spec), 2) is None
        assert "learned for 2 players, not 3" in str(RIVALS.fits(preset(spec), 3))
    assert "learned on these boards only" in str(RIVALS.fits(preset("classic+faces=4+heights=2.3.4.5.4.3.2"), 2))


@pytest.mark.parametrize(
    ("variant", "players", "why"),
    [
        ("classic+heights=3.5.7.9.11.13.11.9.7.5.4", 2, "learned on these boards only"),
        ("turtles+runners=2", 2, "learned on these boards only"),
        ("classic+to_win=6", 2, "learned on these boards only"),  # a longer game than the book's
    ],
)
def test_rivals_refuses_up_front_what_it_cannot_play(variant: str, players: int, why: str) -> None:
    assert why in str(RIVALS.fits(preset(variant), players))
    with pytest.raises(SetupError, match=f"Rivals bot cannot play {re.escape(variant)}"):
        RIVALS.check(preset(variant), players)
    with pytest.raises(BotUnfitError, match=why):
        rivals_for(preset(variant), players)


@pytest.mark.parametrize(
    ("variant", "players"),
    [
        ("classic", 2), ("classic", 3), ("classic", 4), ("solitaire", 1), ("classic-skip", 3),
        ("classic-no-stop-on-occupied", 2), ("classic+skip+no_stop_on_occupied", 4),
        ("turtles", 3), ("turtles+skip", 2), ("turtles-long+no_stop_on_occupied", 3), ("turtles-relay", 4),
    ],
)
def test_rivals_plays_whole_games_legally(variant: str, players: int) -> None:
    names = ["rivals"] * players if players < 4 else ["rivals", "rule28", "rivals", "expert"]
    final = play_game(names, variant, seed=players)  # it checks each action is legal
    assert final.winner is not None


def test_weights_load_and_give_chances_with_numpy_alone() -> None:
    """No numba: the value (weights and chances) is numpy only; only the turn kernel needs numba."""
    script = (
        "import sys; sys.modules['numba'] = None\n"
        "import numpy as np\n"
        "from cantstop.bots.learned_value import load_models\n"
        "model = load_models()['solitaire']\n"
        "progress = np.zeros((1, 3, 11), dtype=np.int64)\n"
        "chances = model.chances(progress, np.full((1, 11), -1))\n"
        "assert abs(chances.sum() - 1) < 1e-12, chances\n"
        "print(model.key, *np.round(chances[0], 3))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    key, *chances = done.stdout.split()
    assert key == "solitaire"
    assert float(chances[0]) > float(chances[1]) > float(chances[2])  # moving sooner is worth something


def test_shipped_weights_name_their_features_and_favour_progress() -> None:
    model = load_models()["solitaire"]
    assert model.coef.shape == (len(FEATURES),)
    owner = np.full((2, 11), -1)
    progress = np.zeros((2, 2, 11), dtype=np.int64)
    progress[1, 0, 5] = 10  # in the second position the mover is near the top of 7
    chances = model.chances(progress, owner)
    assert chances[1, 0] > chances[0, 0]
    np.testing.assert_allclose(chances.sum(axis=1), 1.0)


def decide(pieces: tuple[tuple[int, ...], ...], runners: dict[int, int]) -> State:
    variant = preset("classic")
    row = [0] * 13
    for column, space in runners.items():
        row[column] = space
    return make_state(variant, pieces, tuple(row), 0, Phase.DECIDE)


def test_rivals_stops_when_stopping_wins() -> None:
    # Columns 2 and 12 claimed; a runner on the top of 7: stopping claims the third.
    mine = (0, 0, 3, 0, 0, 0, 0, 12, 0, 0, 0, 0, 3)
    state = decide((mine, (0,) * 13), {7: 13})
    assert RIVALS.play(state, random.Random(0), Budget()) is STOP


def test_rivals_takes_more_risk_when_a_rival_is_about_to_win() -> None:
    """Runners on 4, 10 and 12 risk much: it banks them, unless the rival will win next turn anyway."""
    runners = {4: 3, 10: 3, 12: 2}
    calm = decide(((0,) * 13, (0,) * 13), runners)
    assert RIVALS.play(calm, random.Random(0), Budget()) is STOP
    # The rival has claimed 2 and 3 and stands one step from the top of 6 (11 spaces).
    rival = (0, 0, 3, 5, 0, 0, 10, 0, 0, 0, 0, 0, 0)
    threatened = decide(((0,) * 13, rival), runners)
    assert RIVALS.play(threatened, random.Random(0), Budget()) is ROLL


def test_rivals_beats_the_random_bot_with_seats_swapped() -> None:
    wins = wins_with_seats_swapped("rivals", "random", 12)
    # The expert wins 99.5% of its games against random; a fair coin wins 20 of 24 with
    # probability 0.08%.
    assert wins >= 20


def in_turn_spaces(turn_rivals: object, progress: np.ndarray, room: np.ndarray) -> list[np.ndarray]:
    """Every in-turn state's spaces of the mover, in the kernel's numbering (a plain reading of it)."""
    rows = []
    for mask in turn_rivals.rules.runner_masks:  # type: ignore[attr-defined]
        cols = [i for i in range(len(room)) if int(mask) >> i & 1]
        size = int(np.prod([room[c] for c in cols])) if cols else 1
        for local in range(size):
            space = progress.copy()
            for c in cols:  # mixed radix, the lowest column fastest
                space[c] += 1 + local % room[c]
                local //= room[c]
            rows.append(space)
    return rows


@settings(max_examples=12, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 10**6), moves=st.integers(0, 400))
def test_compiled_stop_values_are_the_numpy_values_chances(players: int, seed: int, moves: int) -> None:
    """Every in-turn state's stop value equals 1 - the model's chance for the mover after that stop."""
    from cantstop.bots.rivals import rivals_for

    state = random_position("classic", players, seed, moves)
    rivals = rivals_for(state.variant, players)
    turn = rivals.turn(state)
    turn.whole()
    progress, owner = rivals.position(state)
    mover = progress[0, -1]
    heights = np.array(state.variant.heights)
    spaces = np.array(in_turn_spaces(rivals, mover, turn.room))  # (states, columns)
    # Each state after its stop: a column topped is the mover's, the others' pieces leave it.
    won = (spaces == heights) & (owner[0] < 0)
    after_owner = np.where(won, players - 1, owner[0])
    after = np.where(won[:, None, :], 0, progress[0][None])
    after[:, -1] = spaces
    # The model read once for all the states (a row at a time it took minutes under load).
    chances = rivals.model.chances(after, after_owner)[:, -1]
    expected = np.where(np.count_nonzero(after_owner == players - 1, axis=1) >= state.variant.to_win, 0.0, 1.0 - chances)
    np.testing.assert_allclose(turn.stops[: len(expected)], expected, rtol=0, atol=1e-12)
    assert len(expected) == int(turn.offsets[-1])


@settings(max_examples=12, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 10**6), moves=st.integers(0, 400))
def test_a_turn_worked_out_as_decisions_need_it_values_them_as_the_whole_turn(
    players: int, seed: int, moves: int
) -> None:
    """Each decision evaluates only the states it can lead to; their values are the whole turn's."""
    from cantstop.bots.rival_turns import LazyTurn
    from cantstop.bots.rivals import rivals_for

    state = random_position("classic", players, seed, moves)
    rivals = rivals_for(state.variant, players)
    lazy = LazyTurn(rivals, *rivals.position(state))
    whole = LazyTurn(rivals, *rivals.position(state))
    whole.whole()
    own = state.pieces[state.seat][2:]
    taken = [r - p if r else 0 for r, p in zip(state.runners[2:], own, strict=True)]
    moves_to = [taken]
    if state.phase is Phase.CHOOSE:
        moves_to = [[t + choice.count(c) for c, t in enumerate(taken, 2)] for choice in state.options]
    for moved in moves_to:
        number = lazy.number(moved)
        assert number == whole.number(moved)
        assert lazy.after(number) == whole.after(number)
        assert lazy.stops[number] == whole.stops[number]
    assert lazy.done.sum() <= whole.done.sum()


def test_threads_asking_one_turn_at_once_work_it_out_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The web asks bots in threads: a turn they share is evaluated by one at a time, once."""
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    from cantstop.bots.rival_turns import LazyTurn

    inside, most, calls = 0, 0, 0
    count = threading.Lock()
    evaluate = LazyTurn._evaluate

    def slow(turn: LazyTurn, todo: np.ndarray) -> float:
        nonlocal inside, most, calls
        with count:
            inside += 1
            calls += 1
            most = max(most, inside)
        time.sleep(0.02)  # lets the other threads run while this one evaluates
        found = evaluate(turn, todo)
        with count:
            inside -= 1
        return found

    monkeypatch.setattr(LazyTurn, "_evaluate", slow)
    from cantstop.bots.learned_value import load_models
    from cantstop.bots.rival_turns import Rivals

    state = random_position("classic", 2, 5, 0)  # the first roll of the empty board
    alone = Rivals(preset("classic"), 2, load_models()["solitaire"]).action(state)
    once = calls  # one evaluation per choice that needs states not worked out yet
    rivals = Rivals(preset("classic"), 2, load_models()["solitaire"])
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(rivals.action, [state] * 8))
    assert answers == [alone] * 8
    assert most == 1
    assert calls == 2 * once
