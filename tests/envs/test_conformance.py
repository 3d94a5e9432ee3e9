"""Every ecosystem's own conformance checker, run on the defaults, warnings as errors.

Gymnasium's `check_env`; PettingZoo's `api_test`, `seed_test`, `render_test`,
`state_test` and `parallel_api_test`; the native vector env against Gymnasium's own
`SyncVectorEnv`. (OpenSpiel's checks: test_openspiel_game.py.)
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test, state_test

from cantstop.envs import CantStopEnv, cantstop_env, parallel_env

# PettingZoo's api_test names its own board games when it allows dict observations; for
# any other environment it warns about the dict that its own convention prescribes.
DICT_OBSERVATION_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box",
)
GAMES = [("classic", 2), ("solitaire", 1), ("classic", 4), ("turtles-relay", 3), ("classic-skip", 2)]


@pytest.fixture
def warnings_fail() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


@pytest.mark.parametrize("env_id", ["cantstop/CantStop-v0", "cantstop/CantStopSolitaire-v0"])
def test_gymnasium_check_env_passes_with_the_defaults(env_id: str, warnings_fail: None) -> None:
    # Through make, so that the checker also builds every declared render mode from the spec.
    check_env(gymnasium.make(env_id).unwrapped)


@pytest.mark.parametrize("variant", ["classic", "solitaire"])
def test_gymnasium_check_env_passes_on_an_env_made_directly(variant: str, warnings_fail: None) -> None:
    # Without a spec the checker warns that it cannot try the other render modes.
    env = CantStopEnv(variant)
    assert env.spec is not None and env.spec.make().unwrapped.variant == env.variant
    check_env(env)


@pytest.mark.parametrize(("spec", "players"), GAMES)
def test_pettingzoo_api_and_seed_tests_pass(spec: str, players: int) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(cantstop_env(spec, players), num_cycles=300)
        seed_test(lambda: cantstop_env(spec, players), num_cycles=100)
    others = [str(w.message) for w in caught if not str(w.message).startswith(DICT_OBSERVATION_WARNINGS)]
    assert others == []


@pytest.mark.parametrize(("spec", "players"), GAMES)
def test_pettingzoo_render_test_passes(
    spec: str, players: int, warnings_fail: None, capsys: pytest.CaptureFixture[str]
) -> None:
    render_test(lambda render_mode=None: cantstop_env(spec, players, render_mode))
    assert "turn " in capsys.readouterr().out  # human mode printed the board


@pytest.mark.parametrize(("spec", "players"), GAMES)
def test_pettingzoo_state_test_passes(spec: str, players: int, warnings_fail: None) -> None:
    state_test(cantstop_env(spec, players), parallel_env(spec, players), num_cycles=300)


@pytest.mark.parametrize(("spec", "players"), GAMES)
def test_pettingzoo_parallel_api_test_passes(
    spec: str, players: int, warnings_fail: None, capsys: pytest.CaptureFixture[str]
) -> None:
    parallel_api_test(parallel_env(spec, players), num_cycles=2000)
    assert "Passed Parallel API test" in capsys.readouterr().out


@pytest.mark.parametrize("env_id", ["cantstop/CantStop-v0", "cantstop/CantStopSolitaire-v0"])
def test_the_native_vector_env_matches_gymnasiums_own_sync_vector_env(env_id: str, warnings_fail: None) -> None:
    # Gymnasium's SyncVectorEnv over the single env is the reference for the vector API:
    # seeding (s + i), next-step autoreset, batched observations, rewards and masks.
    native = gymnasium.make_vec(env_id, num_envs=4, vectorization_mode="vector_entry_point")
    sync = gymnasium.make_vec(env_id, num_envs=4, vectorization_mode="sync")
    assert native.metadata["autoreset_mode"] == sync.metadata["autoreset_mode"]
    assert native.single_observation_space == sync.single_observation_space
    assert native.single_action_space.n == sync.single_action_space.n
    native_out, sync_out = native.reset(seed=21), sync.reset(seed=21)
    rng = np.random.default_rng(21)
    ended = 0
    for _ in range(300):
        np.testing.assert_array_equal(native_out[0], sync_out[0])
        np.testing.assert_array_equal(native_out[-1]["action_mask"], sync_out[-1]["action_mask"])
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in sync_out[-1]["action_mask"]])
        native_out, sync_out = native.step(actions), sync.step(actions)
        for mine, theirs in zip(native_out[1:4], sync_out[1:4], strict=True):
            np.testing.assert_array_equal(mine, theirs)
        ended += int(sync_out[2].sum())
    assert ended >= 2
