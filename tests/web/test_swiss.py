"""The Swiss pairing and standings on their own (no server): every player seated once a
round, no rematch while one can be avoided, at most one bye each, score groups kept,
tables of three or four by score; checked against brute force on small fields."""

from __future__ import annotations

import ast
import itertools
import random
from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cantstop.web.tournaments import swiss
from cantstop.web.tournaments.swiss import (
    Entrant,
    Pairing,
    Result,
    game_points,
    pair_round,
    standings,
    table_sizes,
)

HALVES = st.sampled_from([Fraction(0), Fraction(1, 2), Fraction(1), Fraction(3, 2), Fraction(2), Fraction(3)])


def seated(pairing: Pairing) -> list[int]:
    return [p for table in pairing.tables for p in table] + list(pairing.byes)


def rematches(pairing: Pairing, field: list[Entrant]) -> int:
    met = {e.key: e.met for e in field}
    return sum(1 for table in pairing.tables for a, b in itertools.combinations(table, 2) if b in met[a])


def perfect_pairings(keys: list[int]) -> Iterator[list[tuple[int, int]]]:
    if not keys:
        yield []
        return
    first, rest = keys[0], keys[1:]
    for i, other in enumerate(rest):
        for more in perfect_pairings(rest[:i] + rest[i + 1:]):
            yield [(first, other), *more]


def avoidable(field: list[Entrant]) -> bool:
    """Whether some pairing of `field` has no rematch, its bye (if any) to one of the fewest byes."""
    met = {e.key: e.met for e in field}
    fewest = min(e.byes for e in field)
    sitting = [e.key for e in field if e.byes == fewest] if len(field) % 2 else [None]
    for bye in sitting:
        keys = [e.key for e in field if e.key != bye]
        if any(all(b not in met[a] for a, b in pairs) for pairs in perfect_pairings(keys)):
            return True
    return False


@st.composite
def histories(draw: st.DrawFn, most: int = 9) -> list[Entrant]:
    """A field in pairing order with scores, meetings (symmetric) and byes."""
    count = draw(st.integers(2, most))
    keys = draw(st.permutations(range(100, 100 + count)))
    met: dict[int, set[int]] = {k: set() for k in keys}
    for a, b in draw(st.lists(st.tuples(st.sampled_from(keys), st.sampled_from(keys)), max_size=count * 2)):
        if a != b:
            met[a].add(b)
            met[b].add(a)
    byes = {k: draw(st.integers(0, 1)) for k in keys}
    scores = sorted((draw(HALVES) for _ in keys), reverse=True)
    return [Entrant(k, s, frozenset(met[k]), byes[k]) for k, s in zip(keys, scores)]


@settings(deadline=None)  # a shared machine's pace is no property of the pairing
@given(histories(12), st.integers(2, 4))
def test_every_player_is_seated_once_a_round(field: list[Entrant], size: int) -> None:
    pairing = pair_round(field, size)
    assert sorted(seated(pairing)) == sorted(e.key for e in field)
    assert all(2 <= len(table) <= size for table in pairing.tables)
    if size == 2:
        assert len(pairing.byes) == len(field) % 2
    else:
        assert pairing.byes == () and max(map(len, pairing.tables)) - min(map(len, pairing.tables)) <= 1


@settings(max_examples=300, deadline=None)
@given(histories(9))
def test_no_rematch_while_one_can_be_avoided(field: list[Entrant]) -> None:
    pairing = pair_round(field)
    if avoidable(field):
        assert rematches(pairing, field) == 0


@settings(deadline=None)  # a shared machine's pace is no property of the pairing
@given(histories(9))
def test_the_bye_goes_to_one_with_the_fewest_byes(field: list[Entrant]) -> None:
    pairing = pair_round(field)
    fewest = min(e.byes for e in field)
    assert all(e.byes == fewest for e in field if e.key in pairing.byes)


@settings(deadline=None)  # a shared machine's pace is no property of the pairing
@given(st.integers(2, 14), st.integers(1, 9), st.randoms(use_true_random=False))
def test_a_whole_tournament_gives_nobody_two_byes_or_an_avoidable_rematch(players: int, rounds: int, rng: random.Random) -> None:
    rounds = min(rounds, players)  # more rounds than players and a second bye is unavoidable
    keys = list(range(players))
    results: list[Result] = []
    for number in range(1, rounds + 1):
        order = swiss.pairing_order(standings(keys, results), keys)
        field = swiss.entrants(order, results)
        pairing = pair_round(field)
        if players <= 9 and avoidable(field):
            assert rematches(pairing, field) == 0
        for a, b in pairing.tables:
            winner = rng.choice((a, b))
            results += [Result(number, p, (q,), Fraction(p == winner), p == winner) for p, q in ((a, b), (b, a))]
        results += [Result(number, p, (), Fraction(1)) for p in pairing.byes]
        assert max(Counter(r.player for r in results if not r.opponents).values(), default=0) <= 1


@settings(deadline=None)  # a shared machine's pace is no property of the pairing
@given(st.lists(HALVES, min_size=2, max_size=16))
def test_with_nobody_met_score_groups_pair_inside_and_at_most_one_floats_across(scores: list[Fraction]) -> None:
    scores.sort(reverse=True)
    field = [Entrant(i, s) for i, s in enumerate(scores)]
    pairing = pair_round(field)
    score = {e.key: e.score for e in field}
    for line in set(scores):  # across each line between score groups, one pair at most (an odd group's floater)
        crossing = [t for t in pairing.tables if (score[t[0]] >= line) != (score[t[1]] >= line)]
        assert len(crossing) <= 1


def test_a_score_group_pairs_its_top_half_with_its_bottom_half() -> None:
    pairing = pair_round([Entrant(i) for i in range(1, 9)])
    assert pairing.tables == ((1, 5), (2, 6), (3, 7), (4, 8))
    odd = pair_round([Entrant(i) for i in range(1, 6)])
    assert odd.tables == ((1, 3), (2, 4)) and odd.byes == (5,)  # the last sits out


def test_a_rematch_is_avoided_by_floating_the_next_player_down() -> None:
    field = [Entrant(1, Fraction(1), frozenset({2})), Entrant(2, Fraction(1), frozenset({1})), Entrant(3), Entrant(4)]
    assert pair_round(field).tables == ((1, 3), (2, 4))


def test_when_every_pairing_is_a_rematch_the_round_is_still_paired() -> None:
    field = [Entrant(1, met=frozenset({2, 3})), Entrant(2, met=frozenset({1, 3})), Entrant(3, met=frozenset({1, 2}), byes=1)]
    pairing = pair_round(field)
    assert sorted(seated(pairing)) == [1, 2, 3] and len(pairing.byes) == 1 and pairing.byes != (3,)


@settings(deadline=None)  # a shared machine's pace is no property of the pairing
@given(histories(14), st.integers(3, 4))
def test_tables_of_three_or_four_go_by_score_and_lower_the_repeats(field: list[Entrant], size: int) -> None:
    pairing = pair_round(field, size)
    sizes = table_sizes(len(field), size)
    assert [len(t) for t in pairing.tables] == sizes
    home, start = {}, 0
    for i, seats in enumerate(sizes):
        home.update({e.key: i for e in field[start:start + seats]})
        start += seats
    assert all(abs(home[p] - i) <= 1 for i, table in enumerate(pairing.tables) for p in table)
    chunked = Pairing(tuple(tuple(p for p in home if home[p] == i) for i in range(len(sizes))))
    assert rematches(pairing, field) <= rematches(chunked, field)
    fresh = [Entrant(e.key, e.score) for e in field]
    assert pair_round(fresh, size) == chunked  # with nobody met, the tables are the pairing order cut in turn


def test_table_sizes_are_as_even_as_can_be() -> None:
    assert table_sizes(10, 4) == [4, 3, 3]
    assert table_sizes(5, 4) == [3, 2]
    assert table_sizes(4, 3) == [2, 2]
    assert table_sizes(9, 3) == [3, 3, 3]
    assert table_sizes(1, 4) == []


def test_points_share_a_game_between_first_and_last() -> None:
    assert game_points([1, 2]) == [1, 0]
    assert game_points([2, 1, 3]) == [Fraction(1, 2), 1, 0]
    assert game_points([1, 4, 4, 4]) == [1, 0, 0, 0]  # three seats that left share the last place
    assert game_points([3, 1, 2, 4]) == [Fraction(1, 3), 1, Fraction(2, 3), 0]


def test_standings_order_by_points_then_buchholz_then_wins() -> None:
    results = [
        Result(1, 1, (2,), Fraction(1), True), Result(1, 2, (1,), Fraction(0)),
        Result(1, 3, (4,), Fraction(1), True), Result(1, 4, (3,), Fraction(0)),
        Result(2, 1, (3,), Fraction(1), True), Result(2, 3, (1,), Fraction(0)),
        Result(2, 2, (4,), Fraction(1), True), Result(2, 4, (2,), Fraction(0), forfeited=True),
    ]
    table = standings([4, 3, 2, 1], results)
    assert [(s.player, s.rank, s.score, s.buchholz) for s in table] == [
        (1, 1, 2, 2), (3, 2, 1, 2), (2, 2, 1, 2), (4, 4, 0, 2),
    ]  # 3 and 2 are level on points, Buchholz and wins: they share second place, 3 listed first as seeded higher
    assert table[3].forfeits == 1


def test_level_players_share_a_rank() -> None:
    results = [Result(1, 1, (2,), Fraction(1), True), Result(1, 2, (1,), Fraction(0)),
               Result(1, 3, (4,), Fraction(1), True), Result(1, 4, (3,), Fraction(0))]
    table = standings([1, 2, 3, 4], results)
    assert [(s.player, s.rank) for s in table] == [(1, 1), (3, 1), (2, 3), (4, 3)]


def test_a_player_twice_or_a_table_of_five_is_refused() -> None:
    with pytest.raises(ValueError, match="listed twice"):
        pair_round([Entrant(1), Entrant(1)])
    with pytest.raises(ValueError, match="2 to 4"):
        pair_round([Entrant(1), Entrant(2)], 5)


def test_the_pairing_module_knows_nothing_of_the_web() -> None:
    tree = ast.parse(Path(swiss.__file__).read_text(encoding="utf-8"))
    imported = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert all(not name.startswith(("cantstop", "fastapi", "sqlalchemy", "starlette")) for name in imported), imported
