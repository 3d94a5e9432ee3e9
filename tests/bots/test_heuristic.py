"""The Rule of 28 and its generalisation, scored by hand on small positions."""

from __future__ import annotations

import random

from cantstop import Phase, preset
from cantstop.bots import Budget, get_bot
from cantstop.bots.heuristic import GLENN_ALOI, RULE_OF_28, move_score, progress_score, stop_wins
from cantstop.core.state import STOP, State, make_state


def position(own: dict[int, int], runners: dict[int, int], claimed_tops: int = 0) -> State:
    """A solitaire DECIDE position; `claimed_tops` columns 2, 3, ... are already claimed."""
    v = preset("solitaire")
    pieces = [0] * 13
    for c, space in own.items():
        pieces[c] = space
    for i in range(claimed_tops):
        pieces[2 + i] = v.height(2 + i)
    row = [0] * 13
    for c, space in runners.items():
        row[c] = space
    return make_state(v, (tuple(pieces),), tuple(row), 0, Phase.DECIDE, None, 1)


def test_progress_counts_spaces_moved_plus_one_times_the_weight() -> None:
    # 7: from 2 to 5 is 3 spaces, (3+1)*1 = 4; 4: 2 spaces, 3*4 = 12; 10: 1 space, 2*4 = 8.
    # Columns 4, 7, 10 are neither all odd, all even, all high nor all low.
    assert progress_score(RULE_OF_28, position({7: 2}, {7: 5, 4: 2, 10: 1})) == 24


def test_progress_adds_odd_and_low_bonuses_once_all_runners_are_out() -> None:
    # 3: 2*5 = 10, 5: 2*3 = 6, 7: 3*1 = 3 → 19; all odd +2, all ≤ 7 +4 → 25.
    assert progress_score(RULE_OF_28, position({}, {3: 1, 5: 1, 7: 2})) == 25
    # Two runners only: no shape terms (3: 10, 5: 6).
    assert progress_score(RULE_OF_28, position({}, {3: 1, 5: 1})) == 16


def test_progress_subtracts_for_all_even_and_adds_for_all_high() -> None:
    # 8: 2*2 = 4, 10: 2*4 = 8, 12: 2*6 = 12 → 24; all even −2, all ≥ 7 +4 → 26.
    assert progress_score(RULE_OF_28, position({}, {8: 1, 10: 1, 12: 1})) == 26
    # Glenn & Aloi weights: 8: 2*2, 10: 2*3, 12: 2*7 = 24; even −1, high +6 → 29.
    assert progress_score(GLENN_ALOI, position({}, {8: 1, 10: 1, 12: 1})) == 29


def test_move_score_weights_new_runners_and_penalises_markers() -> None:
    state = position({}, {6: 1, 8: 1})
    assert move_score(RULE_OF_28, state, (6,)) == 5
    assert move_score(RULE_OF_28, state, (6, 6)) == 10
    # 9 is new: 4 + 4 − 6 = 2; runners 6, 8, 9 have no shape term.
    assert move_score(RULE_OF_28, state, (9,)) == 2
    # 10 is new: 3 + 3 − 6 = 0; runners 6, 8, 10 are all even: −(−2) → 2.
    assert move_score(RULE_OF_28, state, (10,)) == 2
    # Runners on 8 and 10, 12 new: 1 + 1 − 6, then all even (−(−2)) and all high (−4) → −6.
    high = position({}, {8: 1, 10: 1})
    assert move_score(RULE_OF_28, high, (12,)) == 1 + 1 - 6 - (-2 + 4)
    # 4 is new: 3 + 3 − 6 = 0; runners 4, 6, 8 are all even: −(−2) → 2.
    assert move_score(RULE_OF_28, state, (4,)) == 2
    # 7 is new: 6 + 6 − 6 = 6; then 6, 7, 8: no shape term.
    assert move_score(RULE_OF_28, state, (7,)) == 6


def test_the_rule_banks_a_win() -> None:
    # Two columns claimed and a runner on the top of 12: stopping wins, whatever the score.
    state = position({12: 2}, {12: 3}, claimed_tops=2)
    assert stop_wins(state)
    assert progress_score(RULE_OF_28, state) < RULE_OF_28.threshold
    assert get_bot("rule28").play(state, random.Random(0), Budget()) is STOP
    assert not stop_wins(position({12: 2}, {12: 3}, claimed_tops=1))
