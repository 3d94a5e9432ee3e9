"""Reinforcement-learning environments for Can't Stop (extra `envs`: `pip install -e '.[envs]'`).

- `CantStopEnv` (Gymnasium): one seat against the project's bots; registered as
  `cantstop/CantStop-v0` (classic, against rule28) and `cantstop/CantStopSolitaire-v0`
  (solitaire: reward -1 per turn) when this package is imported.
- `CantStopVectorEnv` (`cantstop.envs.vector_env`, extra `fast`): many of them in compiled
  kernels, what `gymnasium.make_vec(id, num_envs=N, vectorization_mode="vector_entry_point")`
  returns.
- `cantstop_env` / `raw_env` (PettingZoo AEC) and `parallel_env` (PettingZoo parallel):
  every seat an agent.
- `action_index(variant)`: the fixed numbered action space and its masks.
- `encode(state, seat)`: the float32 observation vector; its layout is documented in
  `cantstop.encoding.observation` (`observation_fields` names each part).
- `cantstop.envs.openspiel_game` (extra `openspiel`): the game for OpenSpiel.

Rolls are chance events resolved inside the environments with dice keyed from
`reset(seed=...)`: the same seed and the same actions give the same episode.
See docs/envs.md.
"""

from cantstop.extras import missing_extra

try:
    import gymnasium
    import numpy  # noqa: F401
    import pettingzoo  # noqa: F401
except ImportError as error:
    raise missing_extra("envs", "cantstop.envs", error) from error

from cantstop.encoding.actions import ActionIndex, action_index
from cantstop.encoding.observation import Field, encode, observation_fields, observation_size
from cantstop.envs.aec_env import cantstop_env, env, parallel_env, raw_env
from cantstop.envs.gym_env import CantStopEnv

if "cantstop/CantStop-v0" not in gymnasium.registry:
    # The vector entry point (extra `fast`) is imported only when `make_vec` asks for it.
    gymnasium.register(
        id="cantstop/CantStop-v0",
        entry_point="cantstop.envs.gym_env:CantStopEnv",
        vector_entry_point="cantstop.envs.vector_env:CantStopVectorEnv",
    )
    gymnasium.register(
        id="cantstop/CantStopSolitaire-v0",
        entry_point="cantstop.envs.gym_env:CantStopEnv",
        vector_entry_point="cantstop.envs.vector_env:CantStopVectorEnv",
        kwargs={"variant": "solitaire", "opponents": ()},
    )

__all__ = [
    "ActionIndex",
    "CantStopEnv",
    "Field",
    "action_index",
    "cantstop_env",
    "encode",
    "env",
    "observation_fields",
    "observation_size",
    "parallel_env",
    "raw_env",
]
