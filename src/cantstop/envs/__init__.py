"""Reinforcement-learning environments for Can't Stop (`pip install cantstop[envs]`).

- `CantStopEnv` (Gymnasium): one seat against the project's bots; registered as
  `cantstop/CantStop-v0` (classic, against rule28) and `cantstop/CantStopSolitaire-v0`
  (solitaire: reward -1 per turn) when this package is imported.
- `cantstop_env` / `raw_env` (PettingZoo AEC): every seat an agent.
- `action_table(variant)`: the fixed numbered action space and its masks.
- `encode(state, seat)`: the float32 observation vector; its layout is documented in
  `cantstop.envs.observation`.

Rolls are chance events resolved inside both environments with dice seeded from
`reset(seed=...)`: the same seed and the same actions give the same episode.
See docs/envs.md.
"""

import gymnasium

from cantstop.envs.actions import ActionTable, action_table
from cantstop.envs.aec_env import cantstop_env, env, raw_env
from cantstop.envs.gym_env import CantStopEnv
from cantstop.envs.observation import encode, observation_size

if "cantstop/CantStop-v0" not in gymnasium.registry:
    gymnasium.register(id="cantstop/CantStop-v0", entry_point="cantstop.envs.gym_env:CantStopEnv")
    gymnasium.register(
        id="cantstop/CantStopSolitaire-v0",
        entry_point="cantstop.envs.gym_env:CantStopEnv",
        kwargs={"variant": "solitaire", "opponents": ()},
    )

__all__ = [
    "ActionTable",
    "CantStopEnv",
    "action_table",
    "cantstop_env",
    "encode",
    "env",
    "observation_size",
    "raw_env",
]
