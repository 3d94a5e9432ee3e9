"""`CantStopEnv`: one seat of Can't Stop as a Gymnasium environment.

The agent plays seat `seat`; the other seats are played by the project's bots (or by
any function of a state, a `random.Random` and a `Budget` returning an action).
Rolls happen inside the environment with dice seeded from `reset(seed=...)`, so an
episode is a sequence of the agent's own decisions only: choices after a roll, and
roll-or-stop. A step runs the agent's action, then every roll and every opponent move
until the agent must decide again or the game is over.

- action space: `Discrete(n)` over `action_table(variant)` (see `cantstop.envs.actions`);
  `info["action_mask"]` marks the legal actions, and `env.action_space.sample()`
  without a mask draws a legal one.
- observation: `encode(state, seat)` (see `cantstop.envs.observation`), float32 in [0, 1].
- reward: alone (no opponents) -1 per finished turn, so the return is minus the
  game's turns; otherwise +1 for a win and -1 for a loss at the end, 0 elsewhere.
- an illegal action raises `IllegalActionError` naming the legal ones; with
  `illegal_action=<number>` it ends the episode with that reward instead (for
  learners that do not mask), and `info["illegal_action"]` is True.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Literal

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from cantstop.bots.base import Bot, Budget, get_bot
from cantstop.core.dice import SeededDice
from cantstop.core.errors import IllegalActionError
from cantstop.core.state import Phase, State, new_game
from cantstop.core.variant import Variant, preset
from cantstop.envs.actions import Mask, action_table
from cantstop.envs.episode import reward, roll_through, seeded_dice
from cantstop.envs.observation import Observation, encode, observation_size
from cantstop.envs.render import render_text


class LegalDiscrete(spaces.Discrete):
    """A `Discrete` space whose `sample()` without a mask draws a legal action of the
    environment's current position (the environment keeps `legal` up to date)."""

    def __init__(self, n: int, seed: int | None = None) -> None:
        super().__init__(n, seed=seed)
        self.legal: Mask | None = None

    def sample(
        self, mask: Mask | None = None, probability: Mask | None = None
    ) -> np.int64:
        if mask is None and probability is None and self.legal is not None:
            mask = self.legal
        return super().sample(mask=mask, probability=probability)


class CantStopEnv(gym.Env[Observation, np.int64]):
    """One seat of Can't Stop against bots; see the module docstring."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012 (Gymnasium's convention)

    def __init__(
        self,
        variant: str | Variant = "classic",
        opponents: str | Sequence[str | Bot] | None = None,
        seat: int | Literal["random"] = 0,
        render_mode: str | None = None,
        illegal_action: Literal["raise"] | float = "raise",
    ) -> None:
        self.variant = preset(variant) if isinstance(variant, str) else variant
        if opponents is None:  # rule28 where the variant has room for a rival, else alone
            opponents = ("rule28",) if self.variant.max_players >= 2 else ()
        elif isinstance(opponents, str):  # one bot's name, not a sequence of letters
            opponents = (opponents,)
        self.opponents: tuple[Bot, ...] = tuple(
            get_bot(o).play if isinstance(o, str) else o for o in opponents
        )
        self.players = 1 + len(self.opponents)
        new_game(self.variant, self.players)  # a clear error for a player count the variant forbids
        if seat != "random" and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.players):
            raise ValueError(f"seat must be 0..{self.players - 1} or 'random', not {seat!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        if illegal_action != "raise" and (
            isinstance(illegal_action, bool) or not isinstance(illegal_action, int | float)
        ):
            raise ValueError(f"illegal_action must be 'raise' or a reward, not {illegal_action!r}")
        self.seat_choice = seat
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.table = action_table(self.variant)
        self.action_space: LegalDiscrete = LegalDiscrete(self.table.size)
        size = observation_size(self.variant, self.players)
        self.observation_space = spaces.Box(0.0, 1.0, (size,), dtype=np.float32)
        self.seat = 0 if seat == "random" else seat
        self.game: State = new_game(self.variant, self.players)
        self._dice = SeededDice(0)
        self._bot_random = random.Random(0)
        self._budget = Budget()
        self._forfeited = False

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        self._forfeited = False
        rng = self.np_random
        if self.seat_choice == "random":
            self.seat = int(rng.integers(self.players))
        self._dice = seeded_dice(rng)
        self._bot_random = random.Random(int(rng.integers(2**63)))
        # No reward is lost here: alone, the game's first roll always offers a choice (every
        # column is open), and with opponents nothing is paid before the end. A game the
        # opponents win before the agent's first decision is replayed.
        while True:
            self.game = self._advance(new_game(self.variant, self.players))
            if not self.game.is_over:
                break
        return encode(self.game, self.seat), self._info()

    def step(
        self, action: np.int64 | int
    ) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        before = self.game
        if self._forfeited:
            raise IllegalActionError("the episode ended with an illegal action; call reset()")
        try:
            chosen = self.table.decode(action, before)
        except IllegalActionError:
            if self.illegal_action == "raise" or before.is_over:
                raise
            self._forfeited = True
            info = self._info()
            info["action_mask"][:] = 0
            self.action_space.legal = info["action_mask"].copy()
            info["illegal_action"] = True
            return encode(before, self.seat), float(self.illegal_action), True, False, info
        self.game = self._advance(before.play(chosen))
        earned = reward(before, self.game, self.seat)
        return encode(self.game, self.seat), earned, self.game.is_over, False, self._info()

    def render(self) -> str | None:
        return render_text(self.game) if self.render_mode == "ansi" else None

    def _advance(self, state: State) -> State:
        """Roll and let the opponents play until the agent decides or the game ends."""
        seat, bots, rng, budget = self.seat, self.opponents, self._bot_random, self._budget
        while True:
            state = roll_through(state, self._dice)
            if state.phase is Phase.OVER or state.player == seat:
                return state
            bot = bots[state.player - (state.player > seat)]
            state = state.play(bot(state, rng, budget))

    def _info(self) -> dict[str, Any]:
        mask = self.table.mask(self.game)
        self.action_space.legal = mask
        info: dict[str, Any] = {"action_mask": mask.copy(), "turn": self.game.turn, "seat": self.seat}
        if self.game.is_over:
            info["winner"] = self.game.winner
        return info
