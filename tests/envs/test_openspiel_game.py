"""The OpenSpiel game: OpenSpiel's own random-simulation checks on every variant, exact
chance nodes, the same rules as the engine, and games against OpenSpiel's MCTS."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import mcts

from cantstop import PRESETS, Phase, new_game, preset
from cantstop.core.actions import action_numbering
from cantstop.envs import encode
from cantstop.envs.openspiel_game import (
    CantStopState,
    random_playout,
    sample_chance,
    spec_parameter,
)
from core.helpers import ALL_SPECS, PRESET_NAMES

# Every preset with every player count it allows, and the custom variants with 2 players.
GAMES = [
    (name, players)
    for name in PRESET_NAMES
    for players in range(PRESETS[name].min_players, PRESETS[name].max_players + 1)
] + [(spec, 2) for spec in ALL_SPECS if spec not in PRESET_NAMES]


def load(spec: str, players: int, **more: int) -> pyspiel.Game:
    return pyspiel.load_game("cantstop", {"variant": spec, "players": players, **more})


@pytest.mark.parametrize(("spec", "players"), GAMES)
def test_openspiel_random_simulation_checks_pass(spec: str, players: int) -> None:
    game = load(spec, players)
    assert game.num_players() == players
    assert game.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_the_game_string_names_the_variant_and_loads_back() -> None:
    game = load("classic+to_win=4+skip", 3)
    assert str(game) == "cantstop(max_turns=1000,players=3,variant=classic-skip+to_win:4)"
    again = pyspiel.load_game(str(game))
    assert again.get_parameters() == game.get_parameters()
    assert spec_parameter(preset("turtles+wild_dice=2")) == "turtles+wild_dice:2"


@pytest.mark.parametrize("spec", ["classic", "turtles", "turtles-relay", "turtles+wild_dice=2",
                                  "classic+faces=5+heights=3.5.7.9.11.9.7.5.3"])
def test_chance_nodes_give_the_exact_four_dice_distribution(spec: str) -> None:
    variant = preset(spec)
    state = load(spec, 2).new_initial_state()
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    # Count every ordered roll of four dice by the choices it offers from the opening position.
    start = new_game(variant, 2)
    by_choices: Counter[tuple] = Counter()  # type: ignore[type-arg]
    for dice in itertools.product(range(1, variant.faces + 1), repeat=4):
        by_choices[start.choices(dice)] += 1
    total = variant.faces**4
    from_chance: dict[tuple, Fraction] = {}  # type: ignore[type-arg]
    for action, probability in outcomes:
        child = state.child(action)
        assert child.current_player() == 0  # every opening roll offers a choice
        choices = tuple(child.engine_state.options)
        from_chance[choices] = from_chance.get(choices, Fraction(0)) + Fraction(probability).limit_denominator(total)
    assert from_chance == {c: Fraction(n, total) for c, n in by_choices.items()}
    assert sum(p for _, p in outcomes) == pytest.approx(1.0, abs=1e-12)
    assert len({a for a, _ in outcomes}) == len(outcomes) == len(variant.catalog.outcomes)


def test_rules_match_the_engine_and_the_envs_numbering() -> None:
    game = load("classic", 3)
    numbering = action_numbering(preset("classic"))
    rng = np.random.default_rng(4)
    for _ in range(3):
        state = game.new_initial_state()
        while not state.is_terminal():
            engine = state.engine_state
            if state.is_chance_node():
                assert engine.phase is Phase.ROLL
                state.apply_action(sample_chance(state, rng))
                continue
            assert state.current_player() == engine.seat
            legal = state.legal_actions()
            assert {numbering[a] for a in legal} == set(engine.legal_actions())
            tensor = np.array(state.observation_tensor(engine.seat))
            assert np.array_equal(tensor, encode(engine, engine.seat))
            state.apply_action(int(rng.choice(legal)))
        engine = state.engine_state
        assert engine.is_over
        assert state.returns() == [1.0 if seat == engine.winner else -1.0 for seat in range(3)]


def test_solitaire_returns_minus_the_turns_and_the_turn_limit_draws() -> None:
    state = load("solitaire", 1).new_initial_state()
    decisions = random_playout(state, np.random.default_rng(0))
    assert decisions > 0 and state.is_terminal()
    assert state.returns() == [-float(state.engine_state.turn)]
    short = load("classic", 2, max_turns=2).new_initial_state()
    while not short.is_terminal():
        short.apply_action(short.chance_outcomes()[0][0] if short.is_chance_node() else short.legal_actions()[-1])
    assert short.engine_state.turn == 2 and not short.engine_state.is_over
    assert short.returns() == [0.0, 0.0]


def test_a_clone_shares_the_engine_state_and_diverges_independently() -> None:
    state = load("classic", 2).new_initial_state()
    state.apply_action(0)  # roll 1111: 2+2
    clone = state.clone()
    assert isinstance(clone, CantStopState) and clone.engine_state is state.engine_state
    clone.apply_action(clone.legal_actions()[0])
    assert clone.engine_state.phase is Phase.DECIDE and state.engine_state.phase is Phase.CHOOSE
    assert clone.history() == [*state.history(), clone.history()[-1]]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"variant": "chess"}, "variant: unknown variant 'chess'"),
        ({"variant": "solitaire", "players": 2}, "solitaire is for 1..1 players, not 2"),
        ({"players": 5}, "classic is for 1..4 players, not 5"),
        ({"max_turns": 0}, "max_turns must be at least 1, not 0"),
    ],
)
def test_bad_parameters_are_refused_clearly(params: dict, message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ValueError, match=message):
        pyspiel.load_game("cantstop", params)


def mcts_game(game: pyspiel.Game, seed: int, simulations: int) -> float:
    """MCTS (random rollouts) against uniform random play; MCTS's return."""
    rng = np.random.RandomState(seed)
    dice = np.random.default_rng(seed)
    bot = mcts.MCTSBot(
        game, uct_c=2.0, max_simulations=simulations,
        evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng), random_state=rng,
    )
    seat = seed % 2
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(sample_chance(state, dice))
        elif state.current_player() == seat:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return float(state.returns()[seat])


@pytest.mark.slow
def test_openspiel_mcts_plays_it_and_beats_random_play() -> None:
    # One-column races keep the Python MCTS quick; seats alternate between games.
    game = load("classic+to_win=1", 2)
    returns = [mcts_game(game, seed, simulations=80) for seed in range(8)]
    assert set(returns) <= {1.0, -1.0}
    # Random play wins about half: 6 or more of 8 would happen to it 14% of the time (7 measured).
    assert returns.count(1.0) >= 6, returns


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"players": "two"}, "Wrong type for parameter players"),
        ({"colour": "red"}, "Unknown parameter 'colour'. Available parameters are: max_turns, players, variant"),
    ],
)
def test_openspiel_itself_refuses_parameters_of_the_wrong_name_or_type(params: dict, message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(pyspiel.SpielError, match=message):
        pyspiel.load_game("cantstop", params)
