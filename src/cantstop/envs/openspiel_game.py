"""Can't Stop as an OpenSpiel game (extra `openspiel`): `pyspiel.load_game("cantstop")`.

Importing this module registers the game. Parameters: `players` (1-4, default 2),
`variant` (any variant spec, default "classic"; write `:` for `=` inside it, as in
"classic+to_win:4", since OpenSpiel's game strings reserve `=`) and `max_turns`
(default 1000: a game still going after that many finished turns ends as a draw).

- Chance nodes are explicit: a roll's outcomes are the variant's distinct rolls
  (`variant.catalog.outcomes`, chance action i is outcome i) with their exact
  probabilities (`weights[i] / faces**4`); nothing is sampled inside.
- Player actions are the project's action numbering (`action_numbering(variant)`:
  choices, then ROLL and STOP), the same as the Gymnasium and PettingZoo envs'.
- Perfect information; sequential; terminal rewards. Returns: +1 to the winner and
  -1 to every other player, 0 to all in a draw; alone, minus the turns the game took.
- Observation tensor: `encode(state, player)` (see `cantstop.encoding.observation`);
  observation string: the position's notation.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from cantstop.extras import missing_extra

try:
    import numpy as np
    import pyspiel
except ImportError as error:
    raise missing_extra("openspiel", "cantstop.envs.openspiel_game", error) from error

from cantstop.core.actions import action_numbering
from cantstop.core.errors import VariantError
from cantstop.core.notation import format_dice, to_notation
from cantstop.core.state import Phase, State, describe_action, new_game
from cantstop.core.variant import Variant, preset, variant_spec
from cantstop.encoding.observation import encode, observation_size
from cantstop.table import Move, advance

NAME = "cantstop"
T = TypeVar("T")
DEFAULTS: dict[str, Any] = {"players": 2, "variant": "classic", "max_turns": 1000}

GAME_TYPE = pyspiel.GameType(
    short_name=NAME,
    long_name="Can't Stop",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=1,
    provides_information_state_string=False,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULTS,
)


def spec_parameter(variant: Variant) -> str:
    """A variant as the `variant` parameter: its spec with `:` for `=` (see the module doc)."""
    return variant_spec(variant).replace("=", ":")


def _variant(text: str) -> Variant:
    try:
        return preset(text.replace(":", "="))
    except VariantError as error:
        raise VariantError(f"variant: {error}") from None


class _Shared(Generic[T]):
    """Holds a value that a state's clone (OpenSpiel deep-copies the state) shares instead of
    copying: the immutable engine state (its variant carries a large precomputed roll catalog) and
    the game itself (a deep copy of a game object loses its Python attributes)."""

    __slots__ = ("value",)

    def __init__(self, value: T) -> None:
        self.value = value

    def __deepcopy__(self, memo: dict[int, object]) -> _Shared[T]:
        return self


class CantStopGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel is untyped
    """The game for given parameters; see the module docstring."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        values = {**DEFAULTS, **(params or {})}
        variant = _variant(str(values["variant"]))
        players = int(values["players"])
        max_turns = int(values["max_turns"])
        new_game(variant, players)  # a clear error for a player count the variant forbids
        if max_turns < 1:
            raise ValueError(f"max_turns must be at least 1, not {max_turns}")
        catalog = variant.catalog
        # A turn: at most one choice per space of the board, each between a roll and a
        # decision, then one last (busting) roll.
        per_turn = 3 * sum(variant.heights) + 1
        alone = players == 1
        info = pyspiel.GameInfo(
            num_distinct_actions=len(action_numbering(variant)),
            max_chance_outcomes=len(catalog.outcomes),
            num_players=players,
            min_utility=float(-max_turns if alone else -1),
            max_utility=-1.0 if alone else 1.0,
            utility_sum=None,
            max_game_length=max_turns * per_turn,
        )
        super().__init__(GAME_TYPE, info, {**values, "variant": spec_parameter(variant)})
        self.variant = variant
        self.max_turns = max_turns
        self.actions = action_numbering(variant)
        self.index = {a: i for i, a in enumerate(self.actions)}
        self.chances = [(i, w / catalog.total) for i, w in enumerate(catalog.weights)]

    def new_initial_state(self) -> CantStopState:
        return CantStopState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> CantStopObserver:
        if params:
            raise ValueError(f"the observer takes no parameters, not {params}")
        return CantStopObserver(self)


class CantStopState(pyspiel.State):  # type: ignore[misc]
    """A position: the engine's `State`, plus the game's turn limit."""

    def __init__(self, game: CantStopGame) -> None:
        super().__init__(game)
        self._game = _Shared(game)
        self._held = _Shared(new_game(game.variant, game.num_players()))

    @property
    def engine_state(self) -> State:
        """The engine's `State` of this position."""
        return self._held.value

    def current_player(self) -> int:
        state = self._held.value
        if state.is_over or state.turn >= self._game.value.max_turns:
            return int(pyspiel.PlayerId.TERMINAL)
        if state.phase is Phase.ROLL:
            return int(pyspiel.PlayerId.CHANCE)
        return state.seat

    def _legal_actions(self, player: int) -> list[int]:
        index = self._game.value.index
        return sorted(index[a] for a in self._held.value.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return list(self._game.value.chances)

    def _apply_action(self, action: int) -> None:
        # A table's own step, without a table: OpenSpiel's searches clone a state at every
        # node they visit, and a record per clone would be all cost and no use.
        state = self._held.value
        if state.phase is Phase.ROLL:
            move = Move.rolled(state.variant.catalog.outcomes[action])
        else:
            move = Move.of(self._game.value.actions[action])
        self._held = _Shared(advance(state, move))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"roll {format_dice(self._game.value.variant.catalog.outcomes[action])}"
        return describe_action(self._game.value.actions[action])

    def is_terminal(self) -> bool:
        state = self._held.value
        return state.is_over or state.turn >= self._game.value.max_turns

    def returns(self) -> list[float]:
        state = self._held.value
        players = self._game.value.num_players()
        if players == 1:
            return [-float(state.turn)] if self.is_terminal() else [0.0]
        if not state.is_over:
            return [0.0] * players
        return [1.0 if seat == state.winner else -1.0 for seat in range(players)]

    def __str__(self) -> str:
        return to_notation(self._held.value)


class CantStopObserver:
    """OpenSpiel's Python observer: the environments' observation vector and the notation."""

    def __init__(self, game: CantStopGame) -> None:
        self.tensor = np.zeros(observation_size(game.variant, game.num_players()), np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: CantStopState, player: int) -> None:
        self.tensor[:] = encode(state.engine_state, player)

    def string_from(self, state: CantStopState, player: int) -> str:
        return to_notation(state.engine_state)


def sample_chance(state: Any, rng: np.random.Generator) -> int:
    """A chance outcome of `state` (at a chance node) drawn with its exact probability."""
    outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
    return int(rng.choice(outcomes, p=probabilities))


def random_playout(state: Any, rng: np.random.Generator) -> int:
    """Play `state` to its end with uniformly random decisions; the decisions made."""
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
            decisions += 1
    return decisions


if NAME not in pyspiel.registered_names():
    pyspiel.register_game(GAME_TYPE, CantStopGame)
