"""The bot interface and the registry of bots by name."""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from cantstop.core.errors import BotUnfitError, UnknownBotError
from cantstop.core.state import Action, State
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


def importable(module: str) -> str | None:
    """None if `module` imports, else why not: a fit check asks this of what the bot's
    moves will import, so that a missing extra refuses the bot before its first game."""
    try:
        importlib.import_module(module)
    except ImportError as error:  # the message names the extra to install (`missing_extra`)
        return str(error)
    return None


@dataclass(frozen=True)
class BotInfo:
    name: str  # what commands, records and the API use: "rule28"
    level: Level
    description: str
    play: Bot
    display: str  # what people read, everywhere a bot is shown: "Rule-of-28 bot"
    fits: Fits = plays_anything

    def check(self, variant: Variant, num_players: int) -> None:
        """Raise `BotUnfitError` if this bot cannot play `variant` with `num_players` players."""
        why = self.fits(variant, num_players)
        if why is not None:
            raise BotUnfitError(f"the {self.display} cannot play {variant.name} with {num_players} player{'' if num_players == 1 else 's'}: {why}")


_REGISTRY: dict[str, BotInfo] = {}


def register(name: str, level: Level, description: str, display: str, fits: Fits = plays_anything) -> Callable[[Bot], Bot]:
    """Decorator: add a bot to the registry under `name`, shown to people as `display`;
    `fits` says which games it cannot play (by default it plays any)."""

    def add(bot: Bot) -> Bot:
        _REGISTRY[name] = BotInfo(name, level, description, bot, display, fits)
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
