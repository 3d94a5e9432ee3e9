"""Can't Stop as PettingZoo environments: every seat is an agent.

`cantstop_env(variant="classic", num_players=2)` (or `env(...)`, the PettingZoo name)
returns the AEC environment wrapped in PettingZoo's order check; `raw_env` is the
bare one; `parallel_env(...)` is the same game through PettingZoo's standard
turn-based parallel wrapper.

- agents: `player_0` .. `player_{n-1}`, seat 0 first to act; `agent_selection` is the
  seat to move. Rolls happen inside, with dice keyed from `reset(seed=...)`.
- observation: `{"observation": encode(state, seat), "action_mask": mask}` per agent
  (see `cantstop.encoding.observation` and `cantstop.encoding.actions`). The agent to move
  always has a legal action; every other agent's mask is all 0 (in the parallel env
  its action is ignored).
- `state()`: the whole position, `encode(state, 0)` (seat 0's point of view holds
  everything); `state_space` is its Box.
- action space: `Discrete(n)` over `action_index(variant)`; `action_space(agent).sample()`
  without a mask draws a legal action of the agent to move. An illegal action raises
  `IllegalActionError` naming the legal ones and changes nothing.
- rewards: +1 to the winner and -1 to every other agent when the game ends; alone
  (one player), -1 per finished turn.
- render modes: `ansi` (`render()` returns the board as text) and `human` (printed
  at every step and by `render()`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.conversions import turn_based_aec_to_parallel
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from cantstop.core.counter import CounterDice
from cantstop.core.state import State
from cantstop.core.variant import Variant
from cantstop.encoding.actions import action_index
from cantstop.encoding.observation import encode, observation_size
from cantstop.envs.arguments import players_argument, variant_argument
from cantstop.envs.episode import Episodes, episode_table, reward, to_next_decision
from cantstop.envs.render import RENDER_MODES, check_render_mode, render
from cantstop.envs.spaces import LegalDiscrete
from cantstop.table import Move, Table

AgentObservation = dict[str, np.ndarray[Any, Any]]


class raw_env(AECEnv[str, AgentObservation, np.int64]):  # type: ignore[misc]  # PettingZoo is untyped; its class name is raw_env
    """Can't Stop for `num_players` agents; see the module docstring."""

    metadata = {  # noqa: RUF012 (PettingZoo's convention)
        "name": "cantstop_v0",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,  # turns, not simultaneous moves: see parallel_env
    }

    def __init__(
        self, variant: str | Variant = "classic", num_players: int = 2, render_mode: str | None = None
    ) -> None:
        super().__init__()
        self.variant = variant_argument(variant)
        num_players = players_argument(self.variant, num_players)
        self._table: Table = episode_table(self.variant, [None] * num_players, CounterDice(0, 0))
        self.render_mode = check_render_mode(render_mode)
        self.action_index = action_index(self.variant)
        self.possible_agents = [f"player_{seat}" for seat in range(num_players)]
        self.agents = list(self.possible_agents)
        size = observation_size(self.variant, num_players)
        observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (size,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (self.action_index.size,), dtype=np.int8),
            }
        )
        self.state_space = spaces.Box(0.0, 1.0, (size,), dtype=np.float32)
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation_space)
        self.action_spaces: dict[str, LegalDiscrete] = {
            agent: LegalDiscrete(self.action_index.size) for agent in self.possible_agents
        }
        self._np_random: np.random.Generator | None = None
        self._episodes = Episodes()
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[0]

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        self._episodes.start(self._np_random, seeded=seed is not None)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._table = episode_table(self.variant, [None] * len(self.possible_agents), self._episodes.dice())
        to_next_decision(self._table)
        self.agent_selection = self.possible_agents[self.game.seat]
        self._moved()

    @property
    def game(self) -> State:
        """The position now."""
        return self._table.state

    def observe(self, agent: str) -> AgentObservation:
        seat = self.possible_agents.index(agent)
        game = self.game
        if seat == game.seat and not game.is_over:
            mask = self.action_index.mask(game)
        else:
            mask = np.zeros(self.action_index.size, dtype=np.int8)
        return {"observation": encode(game, seat), "action_mask": mask}

    def state(self) -> np.ndarray[Any, Any]:
        """The whole position as one vector: every seat's pieces, runners, dice, who moves."""
        return encode(self.game, 0)

    def step(self, action: np.int64 | int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        before = self.game
        chosen = self.action_index.decode(action, before)
        # `decode` has checked the action against the mask: the table takes it as it takes
        # a checked bot move (`answer`), not checking it again (a tenth of a step's time).
        self._table.answer(Move.of(chosen))
        to_next_decision(self._table)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {
            name: reward(before, self.game, seat) for seat, name in enumerate(self.possible_agents)
        }
        if self.game.is_over:
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[self.game.seat]
        self._accumulate_rewards()
        self._moved()

    def _moved(self) -> None:
        """Keep the spaces' unmasked sampling legal, and print in human mode."""
        mover = self.possible_agents[self.game.seat]
        for agent, space in self.action_spaces.items():
            space.legal = self.action_index.mask(self.game) if agent == mover else None
        if self.render_mode == "human":
            render(self.game, "human")

    def render(self) -> str | None:
        return render(self.game, self.render_mode)

    def close(self) -> None:
        """Nothing to release: the environment holds no window or process."""


def cantstop_env(
    variant: str | Variant = "classic", num_players: int = 2, render_mode: str | None = None
) -> OrderEnforcingWrapper[str, AgentObservation, np.int64]:
    """The AEC environment behind PettingZoo's order check (reset before step, and so on)."""
    return OrderEnforcingWrapper(raw_env(variant, num_players, render_mode))


env = cantstop_env


def parallel_env(
    variant: str | Variant = "classic", num_players: int = 2, render_mode: str | None = None
) -> ParallelEnv[str, AgentObservation, np.int64 | None]:
    """The same game as a PettingZoo parallel environment (PettingZoo's turn-based wrapper).

    Each step takes an action from every live agent and applies the one of the agent
    to move (`infos[agent]["active_agent"]` names it); the others are ignored.
    """
    parallel: ParallelEnv[str, AgentObservation, np.int64 | None] = turn_based_aec_to_parallel(
        raw_env(variant, num_players, render_mode)
    )
    return parallel
