"""The compiled expert: the Python expert's values to the bit, and its picks.

The pick may differ only where the two actions' values tie within 1e-9 (`expert_tie`);
in practice the values agree exactly, which the first test checks directly.
"""

from __future__ import annotations

import numba as nb
import numpy as np
import pytest

from cantstop import Phase, preset
from cantstop.bots.expert import _spaces, judge_of, roll_value
from cantstop.fast import expert as fast_expert
from cantstop.fast import kernels, to_arrays
from cantstop.fast.tables import compile_variant

from .proof import compare, compare_games, sample_positions
from .test_equality import CASES


@nb.njit
def _values(tab: np.ndarray, fr: np.ndarray, rows: np.ndarray, out: np.ndarray) -> None:
    ex, exi, _ = fast_expert.new_scratch(tab, fr, kernels.players_of(tab, rows[0]))
    for b in range(len(rows)):
        fast_expert.judge(tab, rows[b], ex, exi)
        out[b, 0] = fast_expert.roll_value(tab, rows[b], ex, exi)
        out[b, 1] = fast_expert._stop_value(tab, rows[b], ex, exi)


@pytest.mark.parametrize(("spec", "players"), CASES)
def test_roll_and_stop_values_equal_the_python_experts(spec: str, players: int) -> None:
    variant = preset(spec)
    states = [s for s in sample_positions(variant, players, 1500, seed=players) if s.phase is Phase.DECIDE]
    states = states[:40]
    got = np.zeros((len(states), 2))
    _values(compile_variant(variant), fast_expert.fractions(variant), to_arrays(states).rows, got)
    want = np.array([[roll_value(s), judge_of(s).value(*_spaces(s))] for s in states])
    assert np.array_equal(got, want)


@pytest.mark.parametrize(("spec", "players"), CASES)
def test_expert_picks_what_the_python_expert_picks(spec: str, players: int) -> None:
    states = sample_positions(preset(spec), players, 120, seed=players + 11)
    result = compare(states, seed=3, bots=(), expert_every=2)
    assert result.differed == 0, "\n".join(result.examples)


@pytest.mark.parametrize(("spec", "bots"), [("solitaire", ("expert",)), ("classic", ("expert", "rule28"))])
def test_expert_games_are_core_games(spec: str, bots: tuple[str, ...]) -> None:
    result = compare_games(preset(spec), bots, 4, seed=9)
    assert result.differed == 0, "\n".join(result.examples)
