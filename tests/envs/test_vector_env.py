"""The compiled vector env: the single env's episodes exactly, batched, with clear errors."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import gymnasium
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cantstop.core.errors import IllegalActionError
from cantstop.envs import CantStopEnv
from cantstop.envs.vector_env import CantStopVectorEnv

CASES: list[tuple[str, dict[str, Any]]] = [
    ("solitaire", {"variant": "solitaire", "opponents": ()}),
    ("vs rule28", {}),
    ("vs random, drawn seat", {"opponents": ("random",), "seat": "random"}),
    ("vs ga, seat 1", {"opponents": "ga", "seat": 1}),
    ("3 players", {"opponents": ("random", "rule28"), "seat": "random"}),
    ("4 players skip", {"variant": "classic-skip", "opponents": ("ga", "random", "rule28"), "seat": 2}),
    ("turtles relay", {"variant": "turtles-relay", "opponents": ("rule28", "random"), "seat": "random"}),
    ("turtles", {"variant": "turtles", "opponents": ("random",)}),
    ("no stop on occupied", {"variant": "classic-no-stop-on-occupied", "opponents": ("ga",)}),
    ("illegal ends", {"opponents": ("random",), "illegal_action": "end", "illegal_reward": -2.0}),
]


def compare(
    kwargs: dict[str, Any], seed: int, n: int, steps: int, illegal_rate: float, reset_rate: float = 0.0
) -> int:
    """Step a vector env and n single envs with the same actions; every output must match.
    At a share `reset_rate` of the steps, a reset of the sub-environments a random mask
    marks comes first (the single envs' next episode).

    Returns how many episodes ended, so that callers can check autoreset was exercised."""
    vec = CantStopVectorEnv(n, **kwargs)
    singles = [CantStopEnv(**kwargs) for _ in range(n)]
    obs, info = vec.reset(seed=seed)
    outs = [env.reset(seed=seed + i) for i, env in enumerate(singles)]
    done = [False] * n
    rng = np.random.default_rng(seed)
    ended = 0
    for _ in range(steps):
        for i, (o, inf) in enumerate(outs):
            np.testing.assert_array_equal(obs[i], o)
            np.testing.assert_array_equal(info["action_mask"][i], inf["action_mask"])
            assert info["seat"][i] == inf["seat"] and info["turn"][i] == inf["turn"]
            assert info["action_mask"][i].any()
        np.testing.assert_array_equal(vec.action_masks(), info["action_mask"].astype(bool))
        if rng.random() < reset_rate:
            marked = rng.random(n) < 0.5
            obs, info = vec.reset(options={"reset_mask": marked})
            for i in np.flatnonzero(marked):
                outs[i] = singles[i].reset()
                done[i] = False
            continue
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        illegal = rng.random(n) < illegal_rate
        actions[illegal] = rng.integers(vec.action_index.size, size=int(illegal.sum()))
        obs, rewards, terminated, truncated, info = vec.step(actions)
        assert not truncated.any()
        for i, env in enumerate(singles):
            if done[i]:  # next-step autoreset: the single env resets without a seed
                o, inf = env.reset()
                r, term = 0.0, False
            else:
                o, r, term, _, inf = env.step(actions[i])
            outs[i] = (o, inf)
            assert rewards[i] == r, (i, rewards[i], r)
            assert terminated[i] == term
            assert info["illegal_action"][i] == inf.get("illegal_action", False)
            if term and "winner" in inf:
                assert info["winner"][i] == inf["winner"]
            done[i] = term
            ended += term
    return ended


@pytest.mark.parametrize(("name", "kwargs"), CASES, ids=[c[0] for c in CASES])
def test_each_sub_env_plays_the_single_envs_episodes(name: str, kwargs: dict[str, Any]) -> None:
    illegal_rate = 0.1 if kwargs.get("illegal_action") == "end" else 0.02
    ended = compare(kwargs, seed=11, n=3, steps=400, illegal_rate=illegal_rate)
    assert ended >= 2  # autoreset happened, and the following episodes matched too


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**40), n=st.integers(1, 4), case=st.sampled_from(CASES))
def test_any_seed_gives_the_single_envs_episodes(seed: int, n: int, case: tuple[str, dict[str, Any]]) -> None:
    compare(case[1], seed, n, steps=60, illegal_rate=0.05)


@pytest.mark.parametrize(("name", "kwargs"), CASES[:5], ids=[c[0] for c in CASES[:5]])
def test_resets_of_some_sub_envs_mid_play_keep_every_episode_equal(name: str, kwargs: dict[str, Any]) -> None:
    # The sub-environments share their work space and keep their state between calls: a
    # reset of some, at any point of their episodes, leaves the others' play untouched.
    ended = compare(kwargs, seed=23, n=4, steps=300, illegal_rate=0.02, reset_rate=0.03)
    assert ended >= 1


def test_the_compiled_expert_plays_as_the_python_expert() -> None:
    ended = compare({"opponents": ("expert",), "seat": "random"}, seed=4, n=2, steps=120, illegal_rate=0.0)
    assert ended >= 1


def test_make_vec_returns_the_native_vector_env_for_both_ids() -> None:
    for env_id, players in (("cantstop/CantStop-v0", 2), ("cantstop/CantStopSolitaire-v0", 1)):
        vec = gymnasium.make_vec(env_id, num_envs=5, vectorization_mode="vector_entry_point")
        assert isinstance(vec, CantStopVectorEnv) and isinstance(vec, gymnasium.vector.VectorEnv)
        assert vec.num_players == players
        assert vec.metadata["autoreset_mode"] is gymnasium.vector.AutoresetMode.NEXT_STEP
        obs, info = vec.reset(seed=0)
        assert obs.shape == (5, *vec.single_observation_space.shape) and obs.dtype == np.float32
        assert vec.observation_space.contains(obs)
        assert info["action_mask"].shape == (5, vec.single_action_space.n)
        assert info["action_mask"].dtype == np.int8
        assert isinstance(gymnasium.make_vec(env_id, num_envs=2), CantStopVectorEnv)  # the default mode


def test_a_list_of_seeds_seeds_each_sub_env() -> None:
    vec = CantStopVectorEnv(2, opponents="random")
    obs, _ = vec.reset(seed=[7, 3])
    for i, s in enumerate((7, 3)):
        np.testing.assert_array_equal(obs[i], CantStopEnv(opponents="random").reset(seed=s)[0])


def test_a_reset_mask_resets_only_the_marked_sub_envs() -> None:
    vec = CantStopVectorEnv(2, variant="solitaire", opponents=())
    _, info = vec.reset(seed=0)
    actions = np.array([np.flatnonzero(m)[0] for m in info["action_mask"]])
    after, *_ = vec.step(actions)
    obs, _ = vec.reset(options={"reset_mask": np.array([False, True])})
    np.testing.assert_array_equal(obs[0], after[0])
    single = CantStopEnv("solitaire")
    single.reset(seed=1)
    np.testing.assert_array_equal(obs[1], single.reset()[0])  # sub-env 1's second episode


def test_the_mask_is_never_all_zeros_over_long_random_play() -> None:
    vec = CantStopVectorEnv(64, opponents=("random", "ga"), seat="random", illegal_action="end")
    _, info = vec.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(500):
        masks = info["action_mask"]
        assert masks.any(axis=1).all()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        _, _, _, _, info = vec.step(actions)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_envs": 0}, "num_envs must be an integer 1.."),
        ({"num_envs": -3}, "num_envs must be an integer 1.."),
        ({"num_envs": 2.0}, "num_envs must be an integer 1.."),
        ({"num_envs": 2, "variant": "chess"}, "variant: "),
        ({"num_envs": 2, "opponents": "nobody"}, "opponents: "),
        ({"num_envs": 2, "seat": 2}, "seat must be 0..1"),
        ({"num_envs": 2, "illegal_action": "ignore"}, "illegal_action must be"),
        ({"num_envs": 2, "illegal_reward": "-1"}, "illegal_reward must be a number"),
        ({"num_envs": 2, "render_mode": "human"}, "render_mode"),
        ({"num_envs": 2, "variant": "solitaire", "opponents": "rule28"}, "players: "),
    ],
)
def test_bad_arguments_are_refused_naming_the_argument(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises((ValueError, TypeError), match=message):
        CantStopVectorEnv(**kwargs)


def test_an_opponent_without_a_compiled_twin_is_refused_naming_the_compiled_ones() -> None:
    from cantstop.bots.base import bot_names
    from cantstop.fast.act import BOT_CODES

    python_only = [name for name in bot_names() if name not in BOT_CODES]
    assert python_only  # the registry has bots the compiled path lacks
    with pytest.raises(ValueError, match=f"opponents: '{python_only[0]}' has no compiled twin; the vector env plays"):
        CantStopVectorEnv(2, opponents=python_only[0])
    with pytest.raises(TypeError, match="opponents: the vector env plays compiled bots"):
        CantStopVectorEnv(2, opponents=[lambda s, r, b: None])


def test_make_vec_refuses_zero_envs_naming_the_argument() -> None:
    with pytest.raises(ValueError, match=r"num_envs must be an integer 1\.\.\d+, not 0"):
        gymnasium.make_vec("cantstop/CantStop-v0", num_envs=0, vectorization_mode="vector_entry_point")


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        (np.zeros(2, np.int64), r"actions must be an integer array of shape \(3,\)"),
        (np.zeros((3, 1), np.int64), r"actions must be an integer array of shape \(3,\)"),
        (np.zeros(3, np.float32), "dtype float32"),
        (np.zeros(3, np.bool_), "dtype bool"),
        (np.array([0, 79, 0]), "sub-environment 1: action 79 is out of range: actions are 0..78"),
        (np.array([0, 0, -1]), "sub-environment 2: action -1 is out of range"),
        (5, r"actions must be an integer array of shape \(3,\)"),
    ],
)
def test_bad_actions_are_refused_and_change_nothing(actions: Any, message: str) -> None:
    vec = CantStopVectorEnv(3)
    _, info = vec.reset(seed=2)
    with pytest.raises(IllegalActionError, match=message):
        vec.step(actions)
    legal = np.array([np.flatnonzero(m)[0] for m in info["action_mask"]])
    after, *_ = vec.step(legal)
    twin = CantStopVectorEnv(3)
    twin.reset(seed=2)
    np.testing.assert_array_equal(after, twin.step(legal)[0])


def test_raise_mode_refuses_an_illegal_action_naming_the_sub_env_and_the_legal_ones() -> None:
    vec = CantStopVectorEnv(2, illegal_action="raise")
    _, info = vec.reset(seed=0)
    assert not info["action_mask"][1, 78]  # stop is not legal after a roll
    actions = np.array([np.flatnonzero(info["action_mask"][0])[0], 78])
    with pytest.raises(IllegalActionError, match=r"sub-environment 1: action 78 is not legal; legal now: \d+ \("):
        vec.step(actions)


def test_step_before_reset_asks_for_a_reset() -> None:
    vec = CantStopVectorEnv(2)
    assert vec.action_masks().all()
    with pytest.raises(IllegalActionError, match="call reset"):
        vec.step(np.zeros(2, np.int64))


@pytest.mark.parametrize(
    ("seed", "message"),
    [([1], "one per sub-environment"), (-1, "non-negative"), ("7", "seed must be an integer"), ([1, True], "non-negative integer")],
)
def test_bad_seeds_are_refused(seed: Any, message: str) -> None:
    with pytest.raises((ValueError, TypeError), match=message):
        CantStopVectorEnv(2).reset(seed=seed)


def test_without_numba_the_vector_env_names_the_fast_extra() -> None:
    code = "import sys; sys.modules['numba'] = None\nimport cantstop.envs.vector_env"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode != 0
    assert "pip install -e '.[fast]'" in done.stderr


def test_the_uncounted_kernels_leak_nothing_the_expert_allocates() -> None:
    # The kernels run without numba's reference counting and call the compiled expert,
    # which allocates and frees arrays at every decision: over many steps, numba's count
    # of live allocations must not grow.
    code = (
        "import numpy as np\n"
        "from numba.core.runtime import rtsys\n"
        "from cantstop.envs.vector_env import CantStopVectorEnv\n"
        "vec = CantStopVectorEnv(8, opponents=('expert', 'rule28'), seat='random')\n"
        "_, info = vec.reset(seed=0)\n"
        "def live():\n"
        "    stats = rtsys.get_allocation_stats()\n"
        "    return stats.alloc - stats.free, stats.mi_alloc - stats.mi_free, stats.alloc\n"
        "before = live()\n"
        "for _ in range(200):\n"
        "    info = vec.step(info['action_mask'].argmax(axis=1))[-1]\n"
        "print(*before, *live())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        env={**os.environ, "NUMBA_NRT_STATS": "1"},
    )
    live, meminfos, made, live_after, meminfos_after, made_after = map(int, done.stdout.split())
    assert made_after > made + 100  # the expert did allocate
    assert (live_after, meminfos_after) == (live, meminfos)
