"""The fast path plays core's game: round trips, legal masks and next states agree.

Positions come from random core games of every preset, of custom specs and of
hypothesis-drawn variants, for every player count each allows: over 20,000 in all.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from cantstop import Variant, preset
from core.helpers import ALL_SPECS

from .proof import compare, sample_positions
from .strategies import variants

CASES = [
    (spec, players)
    for spec in ALL_SPECS
    for players in range(preset(spec).min_players, preset(spec).max_players + 1)
]
POSITIONS = 500  # per case: 42 cases give 21,000 positions


def check(variant: Variant, players: int, count: int, seed: int) -> int:
    result = compare(sample_positions(variant, players, count, seed), seed + 1)
    assert result.differed == 0, "\n".join(result.examples)
    return result.compared


def test_enough_positions_are_compared() -> None:
    assert len(CASES) * POSITIONS >= 20_000


@pytest.mark.parametrize(("spec", "players"), CASES)
def test_fast_path_equals_core(spec: str, players: int) -> None:
    assert check(preset(spec), players, POSITIONS, seed=len(spec) + players) == POSITIONS


@settings(max_examples=60, deadline=None)
@given(variants())
def test_fast_path_equals_core_on_drawn_variants(drawn: tuple[Variant, int]) -> None:
    variant, players = drawn
    check(variant, players, 150, seed=players)
