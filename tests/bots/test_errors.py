"""The bots' refusals: an unknown name, a bot that cannot play the game, advice out of turn."""

from __future__ import annotations

import pytest

from cantstop.bots import get_bot
from cantstop.bots.advice import advise
from cantstop.core.errors import BotUnfitError, PhaseError, SetupError, UnknownBotError
from cantstop.core.state import new_game
from cantstop.core.variant import preset


def test_an_unknown_bot_is_an_unknown_bot_error_listing_bots_and_levels() -> None:
    with pytest.raises(UnknownBotError, match=r"unknown bot 'nobody'; bots: .*rule28.*; levels: easy, medium"):
        get_bot("nobody")


def test_a_bot_that_cannot_play_the_game_is_a_bot_unfit_error_saying_why() -> None:
    # The solver solves one- and two-player games only.
    with pytest.raises(BotUnfitError, match=r"cannot play classic with 3 players: it plays one- and two-player games only"):
        get_bot("optimal").check(preset("classic"), 3)


def test_a_bot_unfit_error_is_still_a_setup_error_for_callers_that_catch_those() -> None:
    with pytest.raises(SetupError):
        get_bot("optimal").check(preset("classic"), 2)


def test_advice_at_a_chance_node_is_a_phase_error() -> None:
    with pytest.raises(PhaseError, match="advice is for a player choosing or deciding"):
        advise(new_game("classic", 2))
