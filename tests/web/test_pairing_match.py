"""Quick pairing's matching on its own (`web/pairing/match.py`): the rating window widening with
time, and for any queue the tables it makes: full, of one kind, nobody twice, never oneself,
never two accounts where one blocks the other, every pair within both windows, nobody left
waiting who could have been paired, and the oldest request paired with the nearest it may meet."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given
from hypothesis import strategies as st

from cantstop.web.pairing.match import (
    WINDOW_EVERY,
    WINDOW_MOST,
    WINDOW_START,
    WINDOW_STEP,
    Kind,
    Request,
    accepts,
    tables,
    window,
)

NOW = 1_000_000.0
KINDS = [Kind("classic", 2, 120, True), Kind("classic", 2, 120, False), Kind("classic", 3, 120, True),
         Kind("turtles", 4, 86400, False), Kind("classic", 2, 30, True)]
ACCOUNTS = st.one_of(st.none(), st.integers(1, 8))


@st.composite
def queues(draw: st.DrawFn, kinds: list[Kind] = KINDS) -> list[Request]:
    count = draw(st.integers(0, 24))
    return [
        Request(f"r{i}", draw(st.sampled_from(kinds)), draw(st.integers(1000, 2100)), NOW - draw(st.floats(0, 120)), draw(ACCOUNTS))
        for i in range(count)
    ]


BLOCKS = st.lists(st.tuples(st.integers(1, 8), st.integers(1, 8)), max_size=10)


def test_the_window_starts_narrow_and_widens_by_steps_to_its_widest() -> None:
    assert window(0) == WINDOW_START == 100
    assert window(WINDOW_EVERY - 0.01) == 100
    assert window(WINDOW_EVERY) == 100 + WINDOW_STEP == 150
    assert window(3 * WINDOW_EVERY + 1) == 250
    assert window(3600) == WINDOW_MOST == 400
    assert window(-5) == 100  # a clock that stepped back widens nothing


@given(st.floats(0, 10_000), st.floats(0, 10_000))
def test_the_window_never_narrows_and_stays_within_its_bounds(a: float, b: float) -> None:
    early, late = sorted((a, b))
    assert WINDOW_START <= window(early) <= window(late) <= WINDOW_MOST


@given(queues(), BLOCKS)
def test_every_table_is_full_of_one_kind_with_nobody_twice_and_no_blocked_pair(queue: list[Request], blocks: list[tuple[int, int]]) -> None:
    made = tables(queue, NOW, blocks)
    seated = [r.id for table in made for r in table]
    assert len(seated) == len(set(seated)), "a request seated twice"
    accounts = [r.account for table in made for r in table if r.account is not None]
    assert len(accounts) == len(set(accounts)), "an account seated twice"
    blocked = {frozenset(pair) for pair in blocks}
    for table in made:
        assert len(table) == table[0].kind.players
        assert {r.kind for r in table} == {table[0].kind}
        for a, b in combinations(table, 2):
            assert a.account is None or a.account != b.account, "someone paired with themself"
            assert a.account is None or b.account is None or frozenset((a.account, b.account)) not in blocked
            assert abs(a.rating - b.rating) <= min(window(NOW - a.asked), window(NOW - b.asked))


@given(queues([k for k in KINDS if k.players == 2]), BLOCKS)
def test_nobody_is_left_waiting_who_could_have_been_paired(queue: list[Request], blocks: list[tuple[int, int]]) -> None:
    made = tables(queue, NOW, blocks)
    seated = {r.id for table in made for r in table}
    taken = {r.account for table in made for r in table if r.account is not None}
    blocked = {frozenset(pair) for pair in blocks}
    left = [r for r in queue if r.id not in seated and (r.account is None or r.account not in taken)]
    for a, b in combinations(left, 2):
        assert not (a.kind == b.kind and accepts(a, b, NOW, blocked)), f"{a} and {b} could have met"


@given(queues([k for k in KINDS if k.players == 2]), BLOCKS)
def test_the_oldest_request_meets_the_nearest_in_rating_it_may_meet(queue: list[Request], blocks: list[tuple[int, int]]) -> None:
    # One request an account here, so that no request of another kind takes a partner's account first.
    queue = [r for i, r in enumerate(queue) if r.account is None or r.account not in {q.account for q in queue[:i]}]
    made = tables(queue, NOW, blocks)
    blocked = {frozenset(pair) for pair in blocks}
    for kind in {r.kind for r in queue}:
        oldest, *others = sorted((r for r in queue if r.kind == kind), key=lambda r: (r.asked, r.id))
        partners = [r for r in others if accepts(oldest, r, NOW, blocked)]
        table = next((t for t in made if oldest in t), None)
        if not partners:
            assert table is None
            continue
        assert table is not None and table[0] == oldest
        assert abs(table[1].rating - oldest.rating) == min(abs(r.rating - oldest.rating) for r in partners)


def test_a_blocked_pair_waits_and_each_meets_someone_else() -> None:
    kind = Kind("classic", 2, 120, True)
    ann, bob, cy = (Request(name, kind, 1500, NOW - 1, account) for name, account in (("ann", 1), ("bob", 2), ("cy", 3)))
    assert tables([ann, bob], NOW, [(1, 2)]) == []
    assert tables([ann, bob], NOW, [(2, 1)]) == []  # whichever of them blocks
    assert tables([ann, bob, cy], NOW, [(1, 2)]) == [(ann, cy)]


def test_ratings_apart_meet_once_both_have_waited_long_enough() -> None:
    kind = Kind("classic", 2, 120, False)
    low = Request("low", kind, 1500, NOW - 100)  # waited long: window 400
    high = Request("high", kind, 1750, NOW)  # just asked: window 100
    assert tables([low, high], NOW, ()) == []  # each must accept the other
    assert tables([low, high], NOW + 30, ()) == [(low, high)]  # 30 s on: 250 either side


def test_three_and_four_player_tables_fill_or_wait() -> None:
    kind = Kind("classic", 3, 120, False)
    two = [Request(f"g{i}", kind, 1500, NOW - i) for i in range(2)]
    assert tables(two, NOW) == []
    three = [*two, Request("g9", kind, 1550, NOW)]
    assert [len(t) for t in tables(three, NOW)] == [3]
