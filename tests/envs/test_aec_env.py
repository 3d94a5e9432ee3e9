"""The PettingZoo AEC environment: PettingZoo's API and seed tests, rewards, seeding, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from cantstop import PRESETS, IllegalActionError
from cantstop.envs import action_table, cantstop_env, env, raw_env
from core.helpers import PRESET_NAMES

# PettingZoo's checker names its own board games when it allows dict observations; for
# any other environment it warns about the dict that its own convention prescribes.
DICT_OBSERVATION_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box",
)


@pytest.mark.parametrize(
    ("spec", "players"),
    [("classic", 2), ("solitaire", 1), ("classic", 4), ("turtles-relay", 3), ("classic-skip", 2)],
)
def test_pettingzoo_api_and_seed_tests_pass(spec: str, players: int) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(cantstop_env(spec, players), num_cycles=300)
        seed_test(lambda: cantstop_env(spec, players), num_cycles=100)
    others = [str(w.message) for w in caught if not str(w.message).startswith(DICT_OBSERVATION_WARNINGS)]
    assert others == []


def play_out(aec, seed: int) -> tuple[list[int], dict[str, float]]:  # type: ignore[no-untyped-def]
    """Random masked actions to the end: the actions, and each agent's return."""
    aec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions: list[int] = []
    returns = dict.fromkeys(aec.possible_agents, 0.0)
    for agent in aec.agent_iter(100_000):
        observation, reward, terminated, truncated, _ = aec.last()
        returns[agent] += reward
        if terminated or truncated:
            aec.step(None)
            continue
        mask = observation["action_mask"]
        assert aec.observe(agent)["action_mask"].sum() == mask.sum() > 0
        for other in aec.agents:
            if other != agent:
                assert aec.observe(other)["action_mask"].sum() == 0
        action = int(rng.choice(np.flatnonzero(mask)))
        actions.append(action)
        aec.step(action)
    assert aec.agents == []
    return actions, returns


# Every preset with every number of players it allows.
GAMES = [
    (name, count)
    for name in PRESET_NAMES
    for count in range(PRESETS[name].min_players, PRESETS[name].max_players + 1)
]


@pytest.mark.parametrize(("spec", "count"), GAMES)
def test_random_games_of_every_preset_end_with_plus_one_for_the_winner(spec: str, count: int) -> None:
    aec = env(spec, count)
    for seed in range(2):
        _, returns = play_out(aec, seed)
        game = aec.unwrapped.game
        assert game.is_over
        if count == 1:
            assert returns == {"player_0": -float(game.turn)}
        else:
            assert returns[f"player_{game.winner}"] == 1.0
            assert sorted(returns.values()) == [-1.0] * (count - 1) + [1.0]


def test_same_seed_same_game() -> None:
    first = play_out(cantstop_env("turtles", 3), 21)
    assert play_out(cantstop_env("turtles", 3), 21) == first
    assert play_out(cantstop_env("turtles", 3), 22)[0] != first[0]


def test_the_agent_to_move_is_the_engine_player_and_chance_is_inside() -> None:
    aec = raw_env("classic", 3)
    aec.reset(seed=4)
    for _ in range(200):
        game = aec.game
        assert aec.agent_selection == f"player_{game.player}"
        assert game.legal_actions()  # never a chance node
        aec.step(int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[0]))
        if aec.game.is_over:
            break


def test_an_illegal_action_raises_naming_the_legal_ones_and_changes_nothing() -> None:
    aec = raw_env()
    aec.reset(seed=0)
    mask = aec.observe(aec.agent_selection)["action_mask"]
    before = aec.game
    table = action_table("classic")
    with pytest.raises(IllegalActionError) as error:
        aec.step(int(np.flatnonzero(mask == 0)[0]))
    assert aec.game is before
    assert str(error.value).endswith("legal now: " + table.describe(tuple(int(i) for i in np.flatnonzero(mask))))


def test_ansi_render_and_argument_errors() -> None:
    aec = raw_env(render_mode="ansi")
    aec.reset(seed=0)
    text = aec.render()
    assert text is not None and "A to choose" in text
    with pytest.raises(ValueError, match=r"classic is for 1\.\.4 players, not 5"):
        raw_env("classic", 5)
    with pytest.raises(ValueError, match="render_mode must be None or 'ansi'"):
        raw_env(render_mode="rgb_array")
