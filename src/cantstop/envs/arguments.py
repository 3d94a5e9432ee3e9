"""The environments' common arguments, checked once with errors that name the argument."""

from __future__ import annotations

from collections.abc import Sequence

from cantstop.bots.base import Bot, get_bot
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
    except ValueError as error:
        raise ValueError(f"variant: {error}") from None


def players_argument(variant: Variant, players: object) -> int:
    """A player count the variant allows."""
    if isinstance(players, bool) or not isinstance(players, int):
        raise TypeError(f"players must be an integer, not {players!r}")
    try:
        new_game(variant, players)
    except ValueError as error:
        raise ValueError(f"players: {error}") from None
    return players


def opponents_argument(opponents: str | Sequence[str | Bot]) -> tuple[Bot, ...]:
    """Bots by name (or level), or bot functions; one name alone is one opponent."""
    if isinstance(opponents, str):  # one bot's name, not a sequence of letters
        opponents = (opponents,)
    bots: list[Bot] = []
    for opponent in opponents:
        if isinstance(opponent, str):
            try:
                bots.append(get_bot(opponent).play)
            except ValueError as error:
                raise ValueError(f"opponents: {error}") from None
        elif callable(opponent):
            bots.append(opponent)
        else:
            raise TypeError(
                f"opponents: each opponent is a bot name or a function (state, rng, budget) -> "
                f"action, not {opponent!r}"
            )
    return tuple(bots)
