"""Dice sources and the precomputed roll catalog."""

from __future__ import annotations

import itertools
import os
from collections import Counter

import pytest

from cantstop import SecureDice, SeededDice, preset
from cantstop.core.dice import roll_off


@pytest.mark.parametrize("spec", ["classic", "turtles", "turtles-relay", "turtles+wild_dice=2", "classic+faces=5+heights=3.5.7.9.11.9.7.5.3"])
def test_tables_cover_every_ordered_roll_with_weights(spec: str) -> None:
    v = preset(spec)
    t = v.catalog
    rolls = list(itertools.product(range(1, v.faces + 1), repeat=4))
    assert t.total == len(rolls) == sum(t.weights)
    counts = Counter(t.index[d] for d in rolls)
    assert [counts[i] for i in range(len(t.outcomes))] == list(t.weights)
    for i, outcome in enumerate(t.outcomes):
        assert t.index[outcome] == i


def test_classic_has_126_distinct_rolls() -> None:
    assert len(preset("classic").catalog.outcomes) == 126


def test_wild_dice_are_not_interchangeable_with_plain_ones() -> None:
    t = preset("turtles+wild_dice=2").catalog
    assert t.index[(1, 2, 3, 4)] != t.index[(3, 4, 1, 2)]
    assert t.index[(1, 2, 3, 4)] == t.index[(2, 1, 4, 3)]


def test_pairing_groups_of_a_roll() -> None:
    t = preset("classic").catalog
    assert t.groups[t.index[(1, 5, 4, 6)]] == ((5, 11), (6, 10), (7, 9))
    relay = preset("turtles-relay+wild_face=none+wild_dice=0").catalog
    assert relay.groups[relay.index[(1, 2, 4, 6)]] == ((3, 5, 7), (3, 6, 8), (5, 6, 10), (7, 8, 10))


def test_seeded_dice_are_reproducible_and_fair() -> None:
    a, b = SeededDice(42), SeededDice(42)
    rolls = [a.roll(4, 6) for _ in range(6000)]
    assert rolls == [b.roll(4, 6) for _ in range(6000)]
    assert rolls != [SeededDice(43).roll(4, 6) for _ in range(6000)]
    faces = Counter(d for r in rolls for d in r)
    assert set(faces) == set(range(1, 7)) and min(faces.values()) > 3500


def test_seeded_dice_other_counts_and_faces() -> None:
    dice = SeededDice("x")
    assert all(len(dice.roll(2, 6)) == 2 for _ in range(10))
    assert all(1 <= d <= 4 for _ in range(50) for d in dice.roll(4, 4))


def test_secure_dice_roll_in_range() -> None:
    dice = SecureDice()
    seen = {d for _ in range(300) for d in dice.roll(4, 6)}
    assert seen == set(range(1, 7))


def test_secure_dice_draw_again_rather_than_favour_low_faces(monkeypatch: pytest.MonkeyPatch) -> None:
    """A byte of 252 to 255 would make faces 1 to 4 likelier than 5 and 6 (256 = 42 * 6 + 4):
    such bytes are drawn again, and the others are dice in order."""
    reads = iter([bytes([0, 252, 5, 255]), bytes([253, 11]), bytes([6])])
    asked: list[int] = []

    def urandom(n: int) -> bytes:
        asked.append(n)
        return next(reads)

    monkeypatch.setattr(os, "urandom", urandom)
    assert SecureDice().roll(4, 6) == (1, 6, 6, 1)
    assert asked == [4, 2, 1]


def test_secure_dice_faces_are_even(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every byte the system could give, once: each face of a die comes as often as any other."""
    everything = iter([bytes(range(256))])
    monkeypatch.setattr(os, "urandom", lambda n: next(everything)[:n])
    faces = Counter(SecureDice().roll(252, 6))
    assert faces == {face: 42 for face in range(1, 7)}


def test_roll_off_with_seeded_dice_names_a_seat_and_every_round() -> None:
    result = roll_off(preset("classic"), 4, SeededDice(3))
    assert 0 <= result.first < 4
    last = result.rounds[-1]
    best = max(t for _, t in last)
    assert [s for s, t in last if t == best] == [result.first]
    for earlier, later in itertools.pairwise(result.rounds):
        top = max(t for _, t in earlier)
        assert [s for s, _ in later] == [s for s, t in earlier if t == top]
