"""The bot interface and the registry of bots by name."""

from __future__ import annotations

import functools
import importlib
import random
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from cantstop.core.dice import SeededDice
from cantstop.core.errors import BotUnfitError, UnknownBotError
from cantstop.core.state import Action, Phase, State, new_game
from cantstop.core.variant import Variant


class Level(StrEnum):
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"
    EXPERT = "expert"


@dataclass(frozen=True)
class Budget:
    """How much a bot may think: a time limit in seconds and/or an iteration limit."""

    seconds: float | None = None
    iterations: int | None = None


# A bot: given a state in CHOOSE or DECIDE phase, return one of state.legal_actions().
Bot = Callable[[State, random.Random, Budget], Action]

# Whether a bot can play a game of `variant` with that many players: None if it can, else
# why not and what to do. Asked before a game starts, so that a bot that cannot play
# is refused up front instead of failing (and falling back) at every move.
Fits = Callable[[Variant, int], "str | None"]


def plays_anything(variant: Variant, num_players: int) -> str | None:
    return None


# Makes a bot ready for games of `variant` with that many players: whatever its first
# decision would compile (numba kernels) or load (a value file, weights), done before
# the first timed decision, so that no clock counts it. Safe to call again: it is cheap
# once done (in each process: numba keeps what it compiled on disk, not in memory).
Prepare = Callable[[Variant, int], None]


def nothing_to_prepare(variant: Variant, num_players: int) -> None:
    return None


REHEARSAL_STEPS = 12  # rolls and decisions of a rehearsal: enough for a choice and a roll-or-stop


def rehearse(play: Bot) -> Prepare:
    """A preparation that has `play` decide a few times in the first turn of a game of the
    kind (its choices and a roll-or-stop), on dice and a random source of its own: every
    kernel and file a decision uses is then compiled and loaded. Once per kind and process."""

    @functools.cache
    def prepare(variant: Variant, num_players: int) -> None:
        state = new_game(variant, num_players)
        dice, rng = SeededDice("rehearsal"), random.Random(0)
        decided: set[Phase] = set()
        for _ in range(REHEARSAL_STEPS):
            if state.phase is Phase.ROLL:
                state = state.roll(dice.roll(variant.dice, variant.faces))
            elif state.phase in (Phase.CHOOSE, Phase.DECIDE):
                decided.add(state.phase)
                state = state.play(play(state, rng, Budget()))
            if len(decided) == 2 or state.phase is Phase.OVER:
                return

    return prepare


class Need(StrEnum):
    """What a bot needs beyond the base install (`cantstop bots` says, and whether this one has it)."""

    FAST = "the fast extra"  # numba and numpy: pip install -e '.[fast]'
    NUMPY = "numpy"  # which the fast extra brings
    SOLVED = "a solved board"  # a value file written by `cantstop solve`


def needs_fast(module: str) -> str | None:
    """None if `module` imports, else one sentence: the bot needs the fast extra, which package
    is missing and how to install it. A fit check asks this of what the bot's moves will
    import, so that a missing extra refuses the bot before its first game."""
    try:
        importlib.import_module(module)
    except ImportError as error:
        missing = error.name or "numba and numpy"
        return f"it needs {missing}, which the 'fast' extra brings: from a checkout run pip install -e '.[fast]'"
    return None


@dataclass(frozen=True)
class BotInfo:
    name: str  # what commands, records and the API use: "rule28"
    level: Level
    description: str
    play: Bot
    display: str  # what people read, everywhere a bot is shown: "Rule-of-28 bot"
    fits: Fits = plays_anything
    prepare: Prepare = nothing_to_prepare
    needs: tuple[Need, ...] = ()

    @property
    def prepares(self) -> bool:
        """Whether its first decision of a kind of game loads or compiles something."""
        return self.prepare is not nothing_to_prepare

    def check(self, variant: Variant, num_players: int) -> None:
        """Raise `BotUnfitError` if this bot cannot play `variant` with `num_players` players."""
        why = self.fits(variant, num_players)
        if why is not None:
            raise BotUnfitError(f"the {self.display} cannot play {variant.name} with {num_players} player{'' if num_players == 1 else 's'}: {why}")


_REGISTRY: dict[str, BotInfo] = {}


def register(
    name: str,
    level: Level,
    description: str,
    display: str,
    fits: Fits = plays_anything,
    prepare: Callable[[Bot], Prepare] | None = None,
    needs: tuple[Need, ...] = (),
) -> Callable[[Bot], Bot]:
    """Decorator: add a bot to the registry under `name`, shown to people as `display`;
    `fits` says which games it cannot play (by default it plays any), `prepare` makes the
    bot's preparation from it (`rehearse`, for a bot whose first decision compiles or loads),
    and `needs` what it needs beyond the base install."""

    def add(bot: Bot) -> Bot:
        made = nothing_to_prepare if prepare is None else prepare(bot)
        _REGISTRY[name] = BotInfo(name, level, description, bot, display, fits, made, needs)
        return bot

    return add


# Every module of cantstop.bots that registers bots: the one list to extend with a new one.
MODULES = ("simple", "heuristic", "expert", "expert2", "optimal", "ppo", "rivals")


def _load_builtins() -> None:
    # Importing the modules registers their bots (once: Python keeps imported modules).
    for module in MODULES:
        importlib.import_module(f"cantstop.bots.{module}")


def bot_names() -> list[str]:
    """Every bot's name, weakest level first (registration order within a level)."""
    _load_builtins()
    order = list(Level)
    return sorted(_REGISTRY, key=lambda name: order.index(_REGISTRY[name].level))


def get_bot(name: str) -> BotInfo:
    """The bot called `name`, or the strongest bot of a level ('easy', ..., 'expert') among
    those that play every game (not `optimal`, which needs a solved board, nor `ppo`)."""
    _load_builtins()
    if name in _REGISTRY:
        return _REGISTRY[name]
    # A level stands for a bot that plays every game: the strongest such, the last registered.
    by_level = [info for info in _REGISTRY.values() if info.level.value == name and info.fits is plays_anything]
    if by_level:
        return by_level[-1]
    raise UnknownBotError(
        f"unknown bot {name!r}; bots: {', '.join(_REGISTRY)}; levels: "
        f"{', '.join(level.value for level in Level)}"
    )
