"""The PettingZoo environments: rewards, seeding, state, parallel play, rendering, errors.

PettingZoo's own checkers run in test_conformance.py."""

from __future__ import annotations

import numpy as np
import pytest

from cantstop import PRESETS, IllegalActionError
from cantstop.envs import action_index, cantstop_env, env, parallel_env, raw_env
from core.helpers import PRESET_NAMES


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
        assert aec.agent_selection == f"player_{game.seat}"
        assert game.legal_actions()  # never a chance node
        aec.step(int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[0]))
        if aec.game.is_over:
            break


def test_an_illegal_action_raises_naming_the_legal_ones_and_changes_nothing() -> None:
    aec = raw_env()
    aec.reset(seed=0)
    mask = aec.observe(aec.agent_selection)["action_mask"]
    before = aec.game
    numbering = action_index("classic")
    with pytest.raises(IllegalActionError) as error:
        aec.step(int(np.flatnonzero(mask == 0)[0]))
    assert aec.game is before
    assert str(error.value).endswith("legal now: " + numbering.describe(tuple(int(i) for i in np.flatnonzero(mask))))


def test_ansi_render_and_argument_errors() -> None:
    aec = raw_env(render_mode="ansi")
    aec.reset(seed=0)
    text = aec.render()
    assert text is not None and "A to choose" in text
    with pytest.raises(ValueError, match=r"classic is for 1\.\.4 players, not 5"):
        raw_env("classic", 5)
    with pytest.raises(ValueError, match="render_mode must be None, 'human' or 'ansi', not 'rgb_array'"):
        raw_env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="variant: unknown variant 'chess'"):
        raw_env("chess")
    with pytest.raises(TypeError, match="players must be an integer, not '2'"):
        raw_env("classic", "2")  # type: ignore[arg-type]


def test_human_render_prints_the_board_at_every_step(capsys: pytest.CaptureFixture[str]) -> None:
    aec = raw_env(render_mode="human")
    aec.reset(seed=0)
    assert "A to choose" in capsys.readouterr().out
    aec.step(int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[0]))
    assert "A to decide" in capsys.readouterr().out
    assert aec.render() is None and "A to decide" in capsys.readouterr().out


def test_state_is_the_whole_position_from_seat_0() -> None:
    aec = raw_env("classic", 3)
    aec.reset(seed=3)
    for _ in range(50):
        state = aec.state()
        assert aec.state_space.contains(state)
        assert np.array_equal(state, aec.observe("player_0")["observation"])
        aec.step(int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[0]))


def test_unmasked_sampling_draws_legal_actions_for_the_agent_to_move() -> None:
    aec = raw_env("turtles", 2)
    aec.reset(seed=1)
    aec.action_space("player_0").seed(0)
    aec.action_space("player_1").seed(0)
    for _ in range(300):
        agent = aec.agent_selection
        if aec.terminations[agent]:
            break
        action = aec.action_space(agent).sample()
        assert aec.observe(agent)["action_mask"][action] == 1
        aec.step(action)


def test_parallel_env_applies_the_movers_action_and_ignores_the_others() -> None:
    par = parallel_env("classic", 2)
    aec = raw_env("classic", 2)
    observations, _ = par.reset(seed=9)
    aec.reset(seed=9)
    rng = np.random.default_rng(0)
    for _ in range(500):
        mover = aec.agent_selection
        mask = observations[mover]["action_mask"]
        assert mask.any()
        action = int(rng.choice(np.flatnonzero(mask)))
        others = {agent: 0 for agent in par.agents if agent != mover}  # ignored, even if illegal
        observations, rewards, terminations, _, infos = par.step({mover: action, **others})
        aec.step(action)
        assert np.array_equal(par.state(), aec.state())
        if all(terminations.values()):
            assert par.agents == [] and sorted(rewards.values()) == [-1.0, 1.0]
            return
        assert infos[mover]["active_agent"] == aec.agent_selection
    pytest.fail("the game did not end")


@pytest.mark.parametrize(
    ("bad", "message"),
    [(np.array([3]), "an array of shape \\(1,\\)"), (2.0, "one integer 0..78"), (79, "out of range"),
     (True, "one integer 0..78")],
)
def test_actions_outside_the_space_are_refused_and_change_nothing(bad: object, message: str) -> None:
    aec = raw_env()
    aec.reset(seed=0)
    before, mover = aec.game, aec.agent_selection
    with pytest.raises(IllegalActionError, match=message):
        aec.step(bad)  # type: ignore[arg-type]
    assert aec.game is before and aec.agent_selection == mover
