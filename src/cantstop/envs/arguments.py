"""The environments' common arguments, checked once with errors that name the argument."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from cantstop.bots.base import Bot, BotInfo, get_bot
from cantstop.core.errors import BotUnfitError, SetupError, UnknownBotError, VariantError
from cantstop.core.state import new_game
from cantstop.core.variant import Variant, preset


def variant_argument(variant: object) -> Variant:
    """A `Variant` or a spec such as 'turtles-relay' or 'classic+to_win=4'."""
    if isinstance(variant, Variant):
        return variant
    if not isinstance(variant, str):
        raise TypeError(f"variant must be a Variant or a spec such as 'classic', not {variant!r}")
    try:
        return preset(variant)
    except VariantError as error:
        raise VariantError(f"variant: {error}") from None


def players_argument(variant: Variant, players: object) -> int:
    """A player count the variant allows."""
    if isinstance(players, bool) or not isinstance(players, int):
        raise TypeError(f"players must be an integer, not {players!r}")
    try:
        new_game(variant, players)
    except SetupError as error:
        raise SetupError(f"players: {error}") from None
    return players


def opponents_argument(opponents: str | Sequence[str | Bot], variant: Variant) -> tuple[BotInfo | Bot, ...]:
    """Bots by name (or level), or bot functions; one name alone is one opponent. A named bot
    that cannot play `variant` with this many players is refused (`BotUnfitError`, saying why)
    rather than failing at every move."""
    if isinstance(opponents, str):  # one bot's name, not a sequence of letters
        opponents = (opponents,)
    bots: list[BotInfo | Bot] = []
    for opponent in opponents:
        if isinstance(opponent, str):
            try:
                bots.append(get_bot(opponent))
            except UnknownBotError as error:
                raise UnknownBotError(f"opponents: {error}") from None
        elif callable(opponent):
            bots.append(opponent)
        else:
            raise TypeError(
                f"opponents: each opponent is a bot name or a function (state, rng, budget) -> "
                f"action, not {opponent!r}"
            )
    players = 1 + len(bots)
    for bot in bots:
        if isinstance(bot, BotInfo) and not variant.players_text(players):
            try:
                bot.check(variant, players)
            except BotUnfitError as error:
                raise BotUnfitError(f"opponents: {error}") from None
    return tuple(bots)


IllegalAction = Literal["penalize", "end", "raise"]
ILLEGAL_ACTIONS: tuple[IllegalAction, ...] = ("penalize", "end", "raise")


def seat_and_illegal_arguments(
    players: int, seat: object, illegal_action: object, illegal_reward: object
) -> tuple[int | Literal["random"], IllegalAction, float]:
    """The agent's seat ('random' to draw it per episode) and what an illegal action does."""
    if seat != "random" and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players):
        raise ValueError(f"seat must be 0..{players - 1} or 'random', not {seat!r}")
    if illegal_action not in ILLEGAL_ACTIONS:
        raise ValueError(
            f"illegal_action must be {', '.join(map(repr, ILLEGAL_ACTIONS))}, not {illegal_action!r}"
        )
    if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, int | float):
        raise ValueError(f"illegal_reward must be a number, not {illegal_reward!r}")
    return seat, illegal_action, float(illegal_reward)
