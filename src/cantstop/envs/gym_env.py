"""`CantStopEnv`: one seat of Can't Stop as a Gymnasium environment.

The agent plays seat `seat`; the other seats are played by the project's bots (or by
any function of a state, a `random.Random` and a `Budget` returning an action). The game
runs on a `cantstop.table.Table`: an opponent that raises or answers an illegal action
stops the step with `SeatFailed` naming the seat and why (`Policy.RAISE`), nothing
applied, since a move played in its stead would make the episode another opponent's. A
named opponent that cannot play the variant is refused when the env is made.
Rolls happen inside the environment with counter-based dice: `reset(seed=s)` starts a
run of episodes, each reset without a seed plays the next one (see `cantstop.envs.episode`), so an episode is a sequence of the agent's own decisions
only: choices after a roll, and roll-or-stop. A step runs the agent's action, then
every roll and every opponent move until the agent must decide again or the game ends.

- action space: `Discrete(n)` over `action_index(variant)` (see `cantstop.encoding.actions`);
  `info["action_mask"]` (int8) and `action_masks()` (bool, the sb3-contrib convention)
  mark the legal actions; `env.action_space.sample()` without a mask draws a legal one.
  The mask is never all zeros: before the first reset and at the end of an episode,
  when no action is legal, it marks every action (a vector env's next step only
  resets, whatever the action). Stepping then raises: call `reset()`.
- observation: `encode(state, seat)` (see `cantstop.encoding.observation`), float32 in [0, 1].
- reward: alone (no opponents) -1 per finished turn, so the return is minus the
  game's turns; otherwise +1 for a win and -1 for a loss at the end, 0 elsewhere.
- illegal actions (an action of the space that the position does not allow), by
  `illegal_action`: "penalize" (the default, what Gymnasium's `check_env` and
  Stable-Baselines3 expect of an env whose space holds actions that are not always
  legal) changes nothing and pays `illegal_reward`; "end" ends the episode paying
  `illegal_reward`; "raise" raises `IllegalActionError` naming the legal actions.
  `info["illegal_action"]` is True after a penalised or ending one. Anything outside
  the space (a wrong type or shape, an out-of-range number) always raises.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.envs.registration import EnvSpec
from numpy.typing import NDArray

from cantstop.bots.base import Bot, BotInfo, Budget
from cantstop.core.counter import CounterDice, CounterRandom
from cantstop.core.errors import IllegalActionError
from cantstop.core.state import State
from cantstop.core.variant import Variant
from cantstop.encoding.actions import Mask, action_index
from cantstop.encoding.observation import Observation, encode, observation_size
from cantstop.envs.arguments import (
    IllegalAction,
    opponents_argument,
    players_argument,
    seat_and_illegal_arguments,
    variant_argument,
)
from cantstop.envs.episode import Episodes, episode_table, reward, to_next_decision
from cantstop.envs.render import RENDER_MODES, check_render_mode, render
from cantstop.envs.spaces import LegalDiscrete
from cantstop.table import BotPlayer, Move, Player, Table


class CantStopEnv(gym.Env[Observation, np.int64]):
    """One seat of Can't Stop against bots; see the module docstring."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 4}  # noqa: RUF012 (Gymnasium's convention)

    def __init__(
        self,
        variant: str | Variant = "classic",
        opponents: str | Sequence[str | Bot] | None = None,
        seat: int | Literal["random"] = 0,
        render_mode: str | None = None,
        illegal_action: IllegalAction = "penalize",
        illegal_reward: float = -1.0,
    ) -> None:
        self.variant = variant_argument(variant)
        if opponents is None:  # rule28 where the variant has room for a rival, else alone
            opponents = ("rule28",) if self.variant.most_players >= 2 else ()
        self.opponents: tuple[BotInfo | Bot, ...] = opponents_argument(opponents, self.variant)
        self.num_players = players_argument(self.variant, 1 + len(self.opponents))
        seat, illegal_action, illegal_reward = seat_and_illegal_arguments(
            self.num_players, seat, illegal_action, illegal_reward
        )
        self.seat_choice = seat
        self.render_mode = check_render_mode(render_mode)
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.action_index = action_index(self.variant)
        self.action_space: LegalDiscrete = LegalDiscrete(self.action_index.size)
        size = observation_size(self.variant, self.num_players)
        self.observation_space = spaces.Box(0.0, 1.0, (size,), dtype=np.float32)
        self.seat = 0 if seat == "random" else seat
        self._episodes = Episodes()
        self._budget = Budget()
        if self.spec is None:  # made directly: say how to make it again, as `gymnasium.make` would
            self.spec = EnvSpec(
                "cantstop/CantStop-v0", entry_point="cantstop.envs.gym_env:CantStopEnv",
                kwargs={"variant": variant, "opponents": opponents, "seat": seat, "render_mode": render_mode,
                        "illegal_action": illegal_action, "illegal_reward": illegal_reward},
            )
        self._table = self._new_table(CounterDice(0, 0), CounterRandom(0, 0))
        # No episode yet: stepping needs a reset first, as after an episode's end.
        self._ended = True
        self._mask = self._current_mask()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        episodes = self._episodes
        episodes.start(self.np_random, seeded=seed is not None)
        if self.seat_choice == "random":
            self.seat = episodes.seat(self.num_players)
        dice, bot_random = episodes.dice(), episodes.bot_random()
        # No reward is lost here: alone, the game's first roll always offers a choice (every
        # column is open), and with opponents nothing is paid before the end. A game the
        # opponents win before the agent's first decision is replayed (on the same dice
        # and draws, which go on from where the lost game left them).
        while True:
            self._table = self._new_table(dice, bot_random)
            if not to_next_decision(self._table).is_over:
                break
        self._ended = False
        self._mask = self._current_mask()
        if self.render_mode == "human":
            render(self.game, "human")
        return encode(self.game, self.seat), self._info()

    def step(
        self, action: np.int64 | int
    ) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        before = self.game
        if self._ended:
            raise IllegalActionError("no episode is running; call reset() before step()")
        try:
            chosen = self.action_index.decode(action, before)
        except IllegalActionError:
            if self.illegal_action == "raise" or not self.action_index.in_space(action):
                raise
            info = self._info()
            info["illegal_action"] = True
            if self.illegal_action == "end":
                self._ended = True
                self._mask = info["action_mask"] = np.ones(self.action_index.size, dtype=np.int8)
                self.action_space.legal = self._mask
            return encode(before, self.seat), self.illegal_reward, self._ended, False, info
        # `decode` has checked the action against the mask: the table takes it as it takes
        # a checked bot move (`answer`), not checking it again (a tenth of a step's time).
        self._table.answer(Move.of(chosen))
        self._ended = to_next_decision(self._table).is_over
        self._mask = self._current_mask()
        if self.render_mode == "human":
            render(self.game, "human")
        earned = reward(before, self.game, self.seat)
        return encode(self.game, self.seat), earned, self._ended, False, self._info()

    def action_masks(self) -> NDArray[np.bool_]:
        """The legal actions now as booleans (sb3-contrib's MaskablePPO reads this)."""
        return self._mask.astype(bool)

    def render(self) -> str | None:
        return render(self.game, self.render_mode)

    @property
    def game(self) -> State:
        """The position now."""
        return self._table.state

    def _new_table(self, dice: CounterDice, bot_random: CounterRandom) -> Table:
        """A new game: the agent's seat is handed its moves, the opponents' bots play theirs
        with the episode's draws."""
        opponents = iter(self.opponents)
        players: list[Player | None] = [
            None if seat == self.seat else BotPlayer(next(opponents), rng=bot_random, budget=self._budget)
            for seat in range(self.num_players)
        ]
        return episode_table(self.variant, players, dice)

    def _current_mask(self) -> Mask:
        """The legal actions; every action when none is (before the first reset, after the
        end: see the module docstring)."""
        mask = self.action_index.mask(self.game)
        if not mask.any():
            mask[:] = 1
        self.action_space.legal = mask
        return mask

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self._mask.copy(), "turn": self.game.turn, "seat": self.seat}
        if self.game.is_over:
            info["winner"] = self.game.winner
        return info
