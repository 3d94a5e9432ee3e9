"""`CantStopVectorEnv`: many copies of `CantStopEnv` stepped together by compiled kernels.

Made by `gymnasium.make_vec("cantstop/CantStop-v0", num_envs=N,
vectorization_mode="vector_entry_point")` (or the solitaire id), or directly. Needs the
`fast` extra (numba): `pip install -e '.[fast]'`.

- Sub-environment i plays exactly the episodes of a `CantStopEnv` with the same
  arguments reset with seed `s + i` after `reset(seed=s)` (or with seed `seeds[i]`
  after `reset(seed=seeds)`), and then reset without a seed: the same dice, the same
  opponent moves, the same observations, masks and rewards for the same actions.
- Autoreset: Gymnasium's next-step mode (`metadata["autoreset_mode"]`). When a
  sub-environment's episode ends, its next step starts the next episode whatever the
  action, returning the new episode's first observation with reward 0.
- Observations: float32 `[N, size]`, each row `encode(state, seat)`. Masks: int8
  `info["action_mask"]` `[N, actions]` and `action_masks()` (bool); never all zeros
  (an ended sub-environment marks every action, as the single env does).
- Opponents: the compiled bots (`cantstop.fast.act.BOT_CODES`: random, rule28, ga, expert), by name or level.
- Actions: an integer array of shape `[N]`, each in the action space. One the mask
  refuses is penalised (the default), ends the episode, or raises, by `illegal_action`,
  as in the single env; anything else (a wrong shape, a float, an out-of-range number)
  raises naming the sub-environment, and changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from cantstop.extras import missing_extra

try:
    from cantstop.envs import vector_kernels as vk
    from cantstop.fast.act import BOT_CODES
except ImportError as error:
    raise missing_extra("fast", "cantstop.envs.vector_env", error) from error

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space
from numpy.typing import NDArray

from cantstop.bots.base import Bot, get_bot
from cantstop.core.errors import IllegalActionError, UnknownBotError
from cantstop.core.variant import Variant
from cantstop.encoding.actions import action_index
from cantstop.encoding.observation import observation_size
from cantstop.envs.arguments import (
    IllegalAction,
    players_argument,
    seat_and_illegal_arguments,
    variant_argument,
)
from cantstop.envs.episode import root_key
from cantstop.fast.kernels import OVER, R_PHASE, R_PLAYER, R_TURN

MAX_ENVS = 1 << 20  # a bigger count is surely a slip (rows alone would be hundreds of MB)


def compiled_opponents(opponents: str | Sequence[str | Bot]) -> tuple[str, ...]:
    """Compiled bot names, from names or levels; a clear error naming what is allowed."""
    if isinstance(opponents, str):
        opponents = (opponents,)
    if not isinstance(opponents, Sequence):
        raise TypeError(f"opponents: a bot name or a sequence of them, not {opponents!r}")
    names = []
    for opponent in opponents:
        if not isinstance(opponent, str):
            raise TypeError(
                f"opponents: the vector env plays compiled bots, named: {', '.join(BOT_CODES)}; "
                f"not {opponent!r}"
            )
        try:
            name = get_bot(opponent).name
        except UnknownBotError as error:
            raise UnknownBotError(f"opponents: {error}") from None
        if name not in BOT_CODES:
            raise ValueError(
                f"opponents: {opponent!r} has no compiled twin; the vector env plays "
                f"{', '.join(BOT_CODES)} (the single CantStopEnv plays every bot)"
            )
        names.append(name)
    return tuple(names)


class CantStopVectorEnv(gym.vector.VectorEnv[NDArray[np.float32], NDArray[np.int64], NDArray[Any]]):
    """`num_envs` copies of `CantStopEnv` in compiled kernels; see the module docstring."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}  # noqa: RUF012 (Gymnasium's convention)

    def __init__(
        self,
        num_envs: int,
        variant: str | Variant = "classic",
        opponents: str | Sequence[str] | None = None,
        seat: int | Literal["random"] = 0,
        illegal_action: IllegalAction = "penalize",
        illegal_reward: float = -1.0,
        render_mode: None = None,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or not 1 <= num_envs <= MAX_ENVS:
            raise ValueError(f"num_envs must be an integer 1..{MAX_ENVS}, not {num_envs!r}")
        if render_mode is not None:
            raise ValueError(f"render_mode: the vector env does not render; use None, not {render_mode!r}")
        self.variant = variant_argument(variant)
        if opponents is None:  # as the single env: rule28 where there is room, else alone
            opponents = ("rule28",) if self.variant.most_players >= 2 else ()
        self.opponents = compiled_opponents(opponents)
        self.num_players = players_argument(self.variant, 1 + len(self.opponents))
        seat, illegal_action, illegal_reward = seat_and_illegal_arguments(
            self.num_players, seat, illegal_action, illegal_reward
        )
        self.num_envs = num_envs
        self.seat_choice = seat
        self.illegal_action = illegal_action
        self.illegal_reward = illegal_reward
        self.render_mode = None
        self.action_index = action_index(self.variant)
        size = observation_size(self.variant, self.num_players)
        self._size = size
        self.single_observation_space = spaces.Box(0.0, 1.0, (size,), dtype=np.float32)
        self.single_action_space = spaces.Discrete(self.action_index.size)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)

        self._setup = vk.new_setup(
            self.variant, [BOT_CODES[name] for name in self.opponents], self.num_players, -1 if seat == "random" else seat, illegal_action == "end",
            self.illegal_reward,
        )
        self._scratch = vk.new_scratch(self._setup, self.variant)
        self._games = vk.new_games(self._setup, num_envs)  # before a reset: ended, every action marked
        self._started = np.zeros(num_envs, np.bool_)  # sub-environments with a root key

    # ------------------------------------------------------------------ the API
    def reset(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[NDArray[np.float32], dict[str, Any]]:
        """Start the next episode of every sub-environment (or of those `options["reset_mask"]`
        marks). A seed `s` seeds sub-environment i with `s + i`; a list gives one seed each
        (None: keep going)."""
        n = self.num_envs
        which = np.ones(n, np.bool_)
        if options is not None and "reset_mask" in options:
            which = np.asarray(options["reset_mask"])
            if which.shape != (n,) or which.dtype != np.bool_:
                raise ValueError(f"options['reset_mask'] must be {n} booleans, not {which!r}")
        seeds = self._seeds(seed)
        if seed is not None and not isinstance(seed, Sequence):
            self._np_random, self._np_random_seed = seeding.np_random(seed)
        games = self._games
        for i in np.flatnonzero(which):
            s = seeds[i]
            if s is not None:
                games.roots[i] = root_key(seeding.np_random(s)[0])
                games.episodes[i] = 0
            elif not self._started[i]:
                games.roots[i] = root_key(self.np_random)
                games.episodes[i] = 0
            else:
                games.episodes[i] += 1
        self._started |= which
        obs = np.empty((n, self._size), np.float32)
        vk.batch_reset(self._setup, games, self._scratch, which, obs)
        return obs, self._info(None)

    def step(
        self, actions: NDArray[np.integer[Any]] | Sequence[int]
    ) -> tuple[NDArray[np.float32], NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], dict[str, Any]]:
        if not self._started.all():
            b = int(np.flatnonzero(~self._started)[0])
            raise IllegalActionError(f"sub-environment {b} has no episode yet; call reset() before step()")
        chosen = self._check_actions(actions)
        out = vk.new_outputs(self._games, self._size)
        vk.batch_step(self._setup, self._games, self._scratch, chosen, out)
        return out.obs, out.rewards, out.terminated, np.zeros(self.num_envs, np.bool_), self._info(out.illegal)

    def action_masks(self) -> NDArray[np.bool_]:
        """The legal actions of every sub-environment as booleans `[N, actions]`."""
        return self._games.masks.astype(bool)

    # ------------------------------------------------------------------ helpers
    def _seeds(self, seed: int | Sequence[int | None] | None) -> list[int | None]:
        n = self.num_envs
        if seed is None:
            return [None] * n
        if isinstance(seed, Sequence) and not isinstance(seed, str):
            if len(seed) != n:
                raise ValueError(f"seed: a list of seeds needs one per sub-environment ({n}), not {len(seed)}")
            seeds = list(seed)
        else:
            if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
                raise TypeError(f"seed must be an integer, a list of {n} integers or None, not {seed!r}")
            seeds = [int(seed) + i for i in range(n)]
        for s in seeds:
            if s is not None and (isinstance(s, bool) or not isinstance(s, int | np.integer) or s < 0):
                raise ValueError(f"seed: each seed is a non-negative integer or None, not {s!r}")
        return seeds

    def _check_actions(self, actions: object) -> NDArray[np.int64]:
        n, size = self.num_envs, self.action_index.size
        array = np.asarray(actions)
        if array.shape != (n,) or not np.issubdtype(array.dtype, np.integer) or array.dtype == np.bool_:
            raise IllegalActionError(
                f"actions must be an integer array of shape ({n},), one per sub-environment, not an "
                f"array of shape {array.shape} and dtype {array.dtype}"
            )
        chosen = array.astype(np.int64)
        outside = (chosen < 0) | (chosen >= size)
        if outside.any():
            b = int(np.flatnonzero(outside)[0])
            raise IllegalActionError(
                f"sub-environment {b}: action {chosen[b]} is out of range: actions are 0..{size - 1}"
            )
        if self.illegal_action == "raise":
            masks = self._games.masks
            refused = ~masks[np.arange(n), chosen].astype(bool) & ~self._games.ended
            if refused.any():
                b = int(np.flatnonzero(refused)[0])
                legal = tuple(int(a) for a in np.flatnonzero(masks[b]))
                raise IllegalActionError(
                    f"sub-environment {b}: action {chosen[b]} is not legal; legal now: "
                    f"{self.action_index.describe(legal)}"
                )
        return chosen

    def _info(self, illegal: NDArray[np.bool_] | None) -> dict[str, Any]:
        n = self.num_envs
        games = self._games
        rows = games.rows
        over = rows[:, R_PHASE] == OVER
        everyone = np.ones(n, np.bool_)
        info: dict[str, Any] = {
            "action_mask": games.masks.copy(),
            "_action_mask": everyone,
            "turn": rows[:, R_TURN].astype(np.int64),
            "_turn": everyone,
            "seat": games.seats.copy(),
            "_seat": everyone,
            "winner": np.where(over, rows[:, R_PLAYER], -1).astype(np.int64),
            "_winner": over,
        }
        if illegal is not None:
            info["illegal_action"] = illegal
            info["_illegal_action"] = illegal
        return info
