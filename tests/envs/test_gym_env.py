"""The Gymnasium environment: seeding, rewards, masks, illegal actions, episodes of every preset, errors.

Gymnasium's own checker runs in test_conformance.py."""

from __future__ import annotations

import random

import gymnasium
import numpy as np
import pytest

from cantstop import IllegalActionError, Phase, State
from cantstop.bots import Budget
from cantstop.envs import CantStopEnv, action_index
from cantstop.table import SeatFailed
from core.helpers import PRESET_NAMES


def play_episode(env: gymnasium.Env, seed: int, policy_seed: int = 0) -> tuple[list[int], list[float], dict]:
    """Random masked actions to the end; the actions and rewards taken, and the last info."""
    rng = np.random.default_rng(policy_seed)
    _, info = env.reset(seed=seed)
    actions, rewards = [], []
    for _ in range(100_000):
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, reward, terminated, truncated, info = env.step(action)
        actions.append(action)
        rewards.append(reward)
        if terminated or truncated:
            return actions, rewards, info
    raise AssertionError("the episode did not end")


def test_sample_without_a_mask_is_legal() -> None:
    env = CantStopEnv(opponents=("random",))
    env.action_space.seed(3)
    for episode in range(5):
        _, info = env.reset(seed=episode)
        terminated = False
        while not terminated:
            action = env.action_space.sample()
            assert info["action_mask"][action] == 1
            _, _, terminated, _, info = env.step(action)


def test_same_seed_same_trajectory() -> None:
    env = CantStopEnv(opponents=("rule28",), seat="random")
    first = play_episode(env, seed=11)
    second = play_episode(env, seed=11)
    assert first[0] == second[0] and first[1] == second[1]
    assert first[2]["turn"] == second[2]["turn"] and first[2]["seat"] == second[2]["seat"]
    other = [play_episode(env, seed=s)[0] for s in (12, 13, 14)]
    assert any(actions != first[0] for actions in other)


def test_seat_random_plays_every_seat() -> None:
    env = CantStopEnv(opponents=("random", "random"), seat="random")
    seats = {env.reset(seed=s)[1]["seat"] for s in range(30)}
    assert seats == {0, 1, 2}


def test_solitaire_return_is_minus_the_turns() -> None:
    env = gymnasium.make("cantstop/CantStopSolitaire-v0")
    for seed in range(5):
        _, rewards, info = play_episode(env, seed)
        assert sum(rewards) == -info["turn"] and info["winner"] == 0
        assert set(rewards) <= {0.0, -1.0, -2.0}


def test_win_and_loss_rewards_only_at_the_end() -> None:
    outcomes = set()
    for seed in range(12):
        env = CantStopEnv(opponents=("random",), seat=seed % 2)
        _, rewards, info = play_episode(env, seed)
        assert all(r == 0 for r in rewards[:-1])
        assert rewards[-1] == (1.0 if info["winner"] == seed % 2 else -1.0)
        outcomes.add(rewards[-1])
    assert outcomes == {1.0, -1.0}


def test_the_agent_only_ever_decides_on_its_own_seat() -> None:
    seen: list[State] = []

    def spy(state: State, rng: random.Random, budget: Budget) -> object:
        seen.append(state)
        return state.legal_actions()[0]

    env = CantStopEnv(opponents=(spy, spy, spy), seat=2)
    _, info = env.reset(seed=5)
    for _ in range(60):
        assert env.game.seat == 2 and env.game.phase in (Phase.CHOOSE, Phase.DECIDE)
        _, _, terminated, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        if terminated:
            break
    assert seen and all(s.seat != 2 for s in seen)


CASES = [(spec, 1) for spec in PRESET_NAMES if spec != "solitaire"] + [
    ("solitaire", 0), ("classic", 3), ("turtles", 2), ("turtles-relay", 3), ("classic-skip", 2),
]


@pytest.mark.parametrize(("spec", "rivals"), CASES)
def test_random_masked_episodes_end(spec: str, rivals: int) -> None:
    env = CantStopEnv(spec, opponents=("random",) * rivals, seat="random", render_mode="ansi")
    for seed in range(3):
        info = play_episode(env, seed, policy_seed=seed)[2]
        assert env.game.is_over and info["action_mask"].all()
        assert "wins after" in env.render()


def test_by_default_an_illegal_action_is_penalised_and_changes_nothing() -> None:
    env = CantStopEnv()
    obs, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    before = env.game
    after, reward, terminated, truncated, info2 = env.step(illegal)
    assert (reward, terminated, truncated, info2["illegal_action"]) == (-1.0, False, False, True)
    assert env.game is before and np.array_equal(after, obs)
    assert np.array_equal(info2["action_mask"], info["action_mask"])
    legal = int(np.flatnonzero(info["action_mask"])[0])
    _, _, _, _, info3 = env.step(legal)  # the episode goes on from the same position
    assert "illegal_action" not in info3 and env.game is not before


def test_raise_mode_names_the_legal_actions_and_changes_nothing() -> None:
    env = CantStopEnv(illegal_action="raise")
    _, info = env.reset(seed=0)
    numbering = action_index("classic")
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    before = env.game
    with pytest.raises(IllegalActionError) as error:
        env.step(illegal)
    assert env.game is before  # nothing was applied
    for index in np.flatnonzero(info["action_mask"]):
        assert numbering.describe((int(index),)) in str(error.value)  # e.g. '53 (6+10)'


def test_end_mode_ends_the_episode_with_the_reward() -> None:
    env = CantStopEnv(illegal_action="end", illegal_reward=-5.0)
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-5.0, True, True)
    assert info["action_mask"].all()  # never all zeros, even after the end
    with pytest.raises(IllegalActionError, match="call reset"):
        env.step(0)


def test_before_the_first_reset_the_mask_is_full_and_a_step_asks_for_a_reset() -> None:
    # Stable-Baselines3's VecEnv reads action_masks() before it resets its envs.
    env = CantStopEnv()
    assert env.action_masks().all()
    with pytest.raises(IllegalActionError, match=r"no episode is running; call reset\(\) before step\(\)"):
        env.step(0)


@pytest.mark.parametrize("mode", ["penalize", "end", "raise"])
@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (79, "out of range: actions are 0..78"),
        (-1, "out of range: actions are 0..78"),
        (3.0, "one integer 0..78 \\(a scalar\\), not 3.0"),
        (np.float32(3), "one integer 0..78 \\(a scalar\\), not np.float32"),
        (np.array([3]), "not an array of shape \\(1,\\) and dtype int64"),
        (np.array([[1, 2]]), "not an array of shape \\(1, 2\\)"),
        (True, "one integer 0..78 \\(a scalar\\), not True"),
        ("roll", "one integer 0..78 \\(a scalar\\), not 'roll'"),
        (None, "not None"),
    ],
)
def test_actions_outside_the_space_always_raise(mode: str, bad: object, message: str) -> None:
    env = CantStopEnv(illegal_action=mode)  # type: ignore[arg-type]
    env.reset(seed=0)
    before = env.game
    with pytest.raises(IllegalActionError, match=message):
        env.step(bad)  # type: ignore[arg-type]
    assert env.game is before


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64, np.uint64])
def test_any_numpy_integer_is_an_action(dtype: type) -> None:
    env = CantStopEnv()
    _, info = env.reset(seed=0)
    legal = int(np.flatnonzero(info["action_mask"])[0])
    _, _, _, _, info = env.step(dtype(legal))
    assert "illegal_action" not in info
    env.reset(seed=0)
    _, _, _, _, again = env.step(np.array(legal, dtype=dtype))  # a 0-d array is a scalar
    assert np.array_equal(again["action_mask"], info["action_mask"])


def test_action_masks_is_the_info_mask_as_booleans() -> None:
    env = CantStopEnv()
    _, info = env.reset(seed=2)
    for _ in range(30):
        masks = env.action_masks()
        assert masks.dtype == np.bool_ and np.array_equal(masks, info["action_mask"] == 1)
        _, _, terminated, _, info = env.step(int(np.flatnonzero(masks)[0]))
        if terminated:
            break


@pytest.mark.parametrize("spec", PRESET_NAMES)
def test_the_mask_is_never_all_zeros(spec: str) -> None:
    # Every state an agent meets, over many random episodes: a legal action, or (at the end) all.
    rivals = 0 if spec == "solitaire" else 1
    env = CantStopEnv(spec, opponents=("random",) * rivals, seat="random")
    rng = np.random.default_rng(1)
    for seed in range(25):
        _, info = env.reset(seed=seed)
        terminated = False
        while not terminated:
            mask = info["action_mask"]
            assert mask.any() and np.array_equal(env.action_masks(), mask == 1)
            assert np.array_equal(mask, env.action_index.mask(env.game))
            _, _, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert info["action_mask"].all()


def test_stop_is_refused_while_a_runner_stands_on_a_rival_under_that_option() -> None:
    env = CantStopEnv("classic-no-stop-on-occupied", opponents=("random",), illegal_action="raise")
    numbering = action_index("classic-no-stop-on-occupied")
    rng = np.random.default_rng(0)
    for seed in range(40):
        _, info = env.reset(seed=seed)
        terminated = False
        while not terminated:
            game = env.game
            if game.phase is Phase.DECIDE and not game.may_stop():
                assert info["action_mask"][numbering.stop] == 0
                with pytest.raises(IllegalActionError, match=r"legal now: 77 \(roll\)$"):
                    env.step(numbering.stop)
                return
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, _, terminated, _, info = env.step(action)
    pytest.fail("no position with a runner on a rival's piece was met")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"variant": "solitaire", "opponents": ("rule28",)}, "solitaire is for 1..1 players"),
        ({"opponents": ("nobody",)}, "opponents: unknown bot 'nobody'; bots: .*rule28"),
        ({"opponents": "nobody"}, "opponents: unknown bot 'nobody'"),
        ({"opponents": ("ppo", "ppo")}, "opponents: the PPO bot cannot play classic with 3 players: its networks"),
        ({"seat": 2}, "seat must be 0..1 or 'random'"),
        ({"seat": True}, "seat must be 0..1 or 'random'"),
        ({"render_mode": "rgb_array"}, "render_mode must be None, 'human' or 'ansi', not 'rgb_array'"),
        ({"variant": "chess"}, "variant: unknown variant 'chess'; known variants: classic"),
        ({"variant": "classic+to_win=99"}, "variant: invalid variant: to_win must be 1..11"),
        ({"illegal_action": "ignore"}, "illegal_action must be 'penalize', 'end', 'raise', not 'ignore'"),
        ({"illegal_action": -1.0}, "illegal_action must be 'penalize', 'end', 'raise'"),
        ({"illegal_reward": "low"}, "illegal_reward must be a number, not 'low'"),
    ],
)
def test_bad_arguments_are_refused_clearly(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        CantStopEnv(**kwargs)


def test_an_opponent_that_fails_stops_the_step_and_no_move_is_played_in_its_name() -> None:
    def broken(state: State, rng: random.Random, budget: Budget) -> tuple[int, ...]:
        raise RuntimeError("out of ideas")

    env = CantStopEnv(opponents=(broken,), seat=1)
    with pytest.raises(SeatFailed, match=r"crash: seat A \(A\): RuntimeError: out of ideas"):
        env.reset(seed=1)  # seat A, the opponent, moves first
    assert env.game.phase is Phase.CHOOSE and not env.game.is_over and env.game.seat == 0


def test_make_imports_the_package_itself() -> None:
    env = gymnasium.make("cantstop.envs:cantstop/CantStopSolitaire-v0")
    assert env.unwrapped.num_players == 1 and env.unwrapped.variant.name == "solitaire"


def test_solitaire_defaults_to_no_opponent() -> None:
    assert CantStopEnv(opponents="random").num_players == 2  # a name alone is one opponent
    assert CantStopEnv("solitaire").num_players == 1
    assert CantStopEnv("classic").num_players == 2


def test_ansi_render_shows_the_board_and_the_numbered_choices() -> None:
    env = CantStopEnv(render_mode="ansi")
    _, info = env.reset(seed=0)
    text = env.render()
    assert text is not None and "turn 1: A to choose, dice" in text
    numbering = action_index("classic")
    assert "actions: " + numbering.describe(tuple(int(i) for i in np.flatnonzero(info["action_mask"]))) in text
    assert CantStopEnv().render() is None


def test_a_vector_of_envs_steps_and_resets_itself() -> None:
    envs = gymnasium.make_vec("cantstop/CantStop-v0", num_envs=3, vectorization_mode="sync")
    _, info = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(200):
        assert info["action_mask"].shape == (3, 79)
        # No mask is ever empty: after an episode's end (whose next step only resets) it is all 1.
        assert info["action_mask"].any(axis=1).all()
        actions = [rng.choice(np.flatnonzero(m)) for m in info["action_mask"]]
        obs, rewards, terminated, _, info = envs.step(np.array(actions))
        assert obs.shape == (3, 88)
        assert all(r in (-1.0, 0.0, 1.0) for r in rewards)
        assert all((r != 0) == t for r, t in zip(rewards, terminated))
        finished += int(terminated.sum())
    assert finished > 0
    envs.close()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"variant": 3}, "variant must be a Variant or a spec such as 'classic', not 3"),
        ({"opponents": (7,)}, "opponents: each opponent is a bot name or a function"),
    ],
)
def test_arguments_of_the_wrong_type_are_refused_clearly(kwargs: dict, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        CantStopEnv(**kwargs)
