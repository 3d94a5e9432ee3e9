"""The observation vector: its documented layout, read back from hand-made positions."""

from __future__ import annotations

import numpy as np
import pytest

from cantstop import Phase
from cantstop.core.state import make_state
from cantstop.encoding.observation import encode, observation_size
from core.helpers import PRESET_NAMES, play_random, players_for, position

HEIGHTS = np.array((3, 5, 7, 9, 11, 13, 11, 9, 7, 5, 3), dtype=np.float32)


def split(obs: np.ndarray, players: int, faces: int = 6, columns: int = 11) -> dict[str, np.ndarray]:
    sizes = [
        ("pieces", players * columns), ("runners", columns), ("mine", columns),
        ("rivals", columns), ("to_move", players), ("phase", 4), ("runners_left", 1),
        ("steps", 1), ("steps_left", 1), ("dice", 4 * faces),
    ]
    parts, at = {}, 0
    for name, size in sizes:
        parts[name] = obs[at : at + size]
        at += size
    assert at == obs.size
    parts["pieces"] = parts["pieces"].reshape(players, columns)
    return parts


def test_classic_two_players_is_88_floats() -> None:
    state = position()
    assert observation_size(state.variant, 2) == 88
    obs = encode(state, 0)
    assert obs.shape == (88,) and obs.dtype == np.float32


def test_layout_from_the_observer_and_from_the_rival() -> None:
    # A to move with runners on 7 (space 4) and 12 (top, 3); B has a piece on 7 and claimed 2.
    state = position(runners={7: 4, 12: 3}, pieces=[{7: 2, 12: 1}, {7: 3, 2: 3}], phase=Phase.DECIDE)
    mine = split(encode(state, 0), 2)
    assert mine["pieces"][0][5] == pytest.approx(2 / 13) and mine["pieces"][0][10] == pytest.approx(1 / 3)
    assert mine["pieces"][1][5] == pytest.approx(3 / 13) and mine["pieces"][1][0] == 1.0
    assert mine["runners"][5] == pytest.approx(4 / 13) and mine["runners"][10] == 1.0
    assert mine["mine"].sum() == 0 and mine["rivals"].tolist() == [1] + [0] * 10
    assert mine["to_move"].tolist() == [1, 0]
    assert mine["phase"].tolist() == [0, 0, 1, 0]
    assert mine["runners_left"][0] == pytest.approx(1 / 3)
    assert mine["steps"][0] == pytest.approx(2 / HEIGHTS.sum())
    assert mine["steps_left"][0] == 1.0 and mine["dice"].sum() == 0
    theirs = split(encode(state, 1), 2)
    assert np.array_equal(theirs["pieces"][0], mine["pieces"][1])  # B sees itself first
    assert np.array_equal(theirs["pieces"][1], mine["pieces"][0])
    assert theirs["mine"].tolist() == [1] + [0] * 10 and theirs["rivals"].sum() == 0
    assert theirs["to_move"].tolist() == [0, 1]
    assert np.array_equal(theirs["runners"], mine["runners"])  # the mover's runners either way


def test_three_players_rotate_and_name_the_mover() -> None:
    state = position(pieces=[{2: 1}, {3: 1}, {4: 1}], num_players=3, seat=2)
    parts = split(encode(state, 1), 3)
    assert [np.flatnonzero(row).tolist() for row in parts["pieces"]] == [[1], [2], [0]]
    assert parts["to_move"].tolist() == [0, 1, 0]  # the mover is seat 2 = observer + 1


def test_dice_are_one_hot_per_die_in_the_tables_order() -> None:
    state = position().roll((6, 1, 3, 1))
    parts = split(encode(state, 0), 2)
    assert parts["phase"].tolist() == [0, 1, 0, 0]
    assert [int(np.flatnonzero(die)[0]) + 1 for die in parts["dice"].reshape(4, 6)] == [1, 1, 3, 6]


def test_a_step_limit_shows_the_steps_left() -> None:
    state = position("turtles", runners={7: 3}, steps=5, phase=Phase.DECIDE)
    parts = split(encode(state, 0), 2)
    assert parts["steps_left"][0] == pytest.approx(13 / 18)


@pytest.mark.parametrize("spec", [*PRESET_NAMES, "classic+faces=5+heights=3.5.7.9.11.9.7.5.3"])
def test_every_observation_of_a_game_is_in_bounds_and_fixed_in_shape(spec: str) -> None:
    players = players_for(spec)
    for state in play_random(spec, players, 3):
        for seat in range(players):
            obs = encode(state, seat)
            assert obs.shape == (observation_size(state.variant, players),)
            assert obs.min() >= 0.0 and obs.max() <= 1.0


def test_over_is_the_last_phase() -> None:
    state = make_state(position().variant, ((0, 0, 3, 5, 7) + (0,) * 8, (0,) * 13), (0,) * 13, 0, Phase.OVER)
    assert split(encode(state, 0), 2)["phase"].tolist() == [0, 0, 0, 1]
    assert split(encode(state, 0), 2)["mine"].tolist()[:3] == [1, 1, 1]


def test_a_seat_outside_the_game_is_refused() -> None:
    with pytest.raises(ValueError, match=r"seat must be 0\.\.1 for this 2-player game, not 2"):
        encode(position(), 2)


@pytest.mark.parametrize(("spec", "players"), [("classic", 2), ("classic", 4), ("turtles-relay", 3),
                                               ("classic+faces=5+heights=3.5.7.9.11.9.7.5.3", 1)])
def test_the_named_fields_are_the_documented_layout(spec: str, players: int) -> None:
    from cantstop import preset
    from cantstop.encoding.observation import observation_fields

    variant = preset(spec)
    columns, faces = len(variant.heights), variant.faces
    fields = observation_fields(variant, players)
    assert [f.name for f in fields] == [
        "pieces", "runners", "claimed_by_me", "claimed_by_rival", "to_move", "phase",
        "runners_left", "steps", "steps_left", "dice",
    ]
    assert fields[-1].where.stop == observation_size(variant, players)
    for state in play_random(spec, players, 5):
        obs = encode(state, 0)
        parts = split(obs, players, faces, columns)
        named = {f.name: obs[f.where].reshape(f.shape) for f in fields}
        assert np.array_equal(named["pieces"], parts["pieces"])
        assert np.array_equal(named["claimed_by_me"], parts["mine"])
        assert np.array_equal(named["claimed_by_rival"], parts["rivals"])
        assert np.array_equal(named["dice"], parts["dice"].reshape(4, faces))
        for name in ("runners", "to_move", "phase", "runners_left", "steps", "steps_left"):
            assert np.array_equal(named[name], parts[name])
