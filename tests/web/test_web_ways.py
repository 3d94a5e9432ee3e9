"""How the browser explains a roll: one way the dice make each choice, and the log's dice."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cantstop import PRESETS, new_game
from cantstop.core.state import ROLL, Phase, State
from cantstop.table import Move, what_happened
from cantstop.web.games.describe import display_name, display_names, log_lines, state_json
from cantstop.web.games.ways import roll_ways


def positions(variant: str, seed: int, steps: int) -> list[State]:
    """The CHOOSE positions of a random walk through a game (random dice, random choices)."""
    rng = random.Random(seed)
    v = PRESETS[variant]
    state = new_game(variant, num_players=v.min_players)
    seen = []
    for _ in range(steps):
        if state.is_over:
            break
        if state.phase is Phase.ROLL:
            state = state.roll(tuple(rng.randint(1, v.faces) for _ in range(v.dice)))
        else:
            if state.phase is Phase.CHOOSE:
                seen.append(state)
            state = state.play(rng.choice(state.legal_actions()))
    return seen


def check(state: State) -> None:
    ways = roll_ways(state)
    assert len(ways) == len(state.options)
    assert state.dice is not None
    v = state.variant
    for choice, way in zip(state.options, ways, strict=True):
        # The sums played are the choice, and each sum is its two dice as they count.
        assert sorted(s for s, used in zip(way.sums, way.used, strict=True) if used) == list(choice)
        assert [way.values[a] + way.values[b] for a, b in way.pairs] == list(way.sums)
        # A die counts as what it shows, unless it is wild (then as any face).
        for i, (shown, counted) in enumerate(zip(state.dice, way.values, strict=True)):
            wild = v.wild_face is not None and i < v.wild_dice and shown == v.wild_face
            assert counted == shown or (wild and 1 <= counted <= v.faces)
        # Pairs split the four dice; a relay captain is in each of its three pairs.
        dice = [i for pair in way.pairs for i in pair]
        if way.captain is None:
            assert sorted(dice) == [0, 1, 2, 3]
        else:
            assert all(way.captain in pair for pair in way.pairs) and len(way.pairs) == 3


@settings(max_examples=60, deadline=None)
@given(variant=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 10**6))
def test_every_choice_of_every_roll_is_explained_by_its_dice(variant: str, seed: int) -> None:
    for state in positions(variant, seed, 120):
        check(state)


def test_the_rulebook_example_pairs_the_dice_as_a_player_would() -> None:
    # Runners on 3 and 6, roll 2-4-5-5: {6,10} is 2+4 and 5+5; {7} and {9} leave a sum unplayed.
    state = new_game("classic", 2).roll((1, 2, 1, 5)).play((3, 6)).play(ROLL).roll((2, 4, 5, 5))
    assert state.options == ((6, 10), (7,), (9,))
    ways = dict(zip(state.options, roll_ways(state), strict=True))
    assert ways[(6, 10)].pairs == ((0, 1), (2, 3)) and ways[(6, 10)].used == (True, True)
    assert ways[(7,)].sums == (7, 9) and ways[(7,)].used == (True, False)  # 2+5 and 4+5: no runner for 9
    assert ways[(9,)].used == (False, True)


def test_a_turtle_die_counts_as_the_value_that_makes_the_choice() -> None:
    state = new_game("turtles", 2).roll((1, 6, 6, 6))
    ways = dict(zip(state.options, roll_ways(state), strict=True))
    assert (12, 12) in ways  # the turtle as a 6: 6+6 twice
    assert ways[(12, 12)].values[0] == 6
    assert ways[(7, 12)].values[0] == 1  # as it shows, when that is enough


def test_the_game_json_sends_the_ways_beside_the_legal_choices() -> None:
    state = new_game("turtles-relay", 2).roll((1, 4, 5, 5))
    data = state_json(state)
    assert len(data["ways"]) == len(data["legal"])
    assert data["pairing"] == "captain" and data["wild_dice"] == 4
    assert all(w["captain"] is not None for w in data["ways"])
    assert state_json(new_game("classic", 2))["ways"] == []  # nothing to explain before a roll


def lines_of(before: State, dice: tuple[int, ...], names: list[str]) -> list[dict[str, Any]]:
    """The log lines of a roll of `dice` from `before`, as the table tells it."""
    move = Move.rolled(dice)
    return log_lines(what_happened(before, move, before.roll(dice)), names, before.variant)


def test_the_log_writes_dice_with_dashes_and_a_turtle_as_T() -> None:
    before = new_game("classic", 2)
    (line,) = lines_of(before, (4, 6, 2, 6), ["Ann", "bot:rule28"])
    assert line["text"] == "Ann rolls 4-6-2-6" and line["dice"] == [4, 6, 2, 6]
    assert lines_of(new_game("turtles", 2), (1, 6, 2, 6), ["Ann", "Bob"])[0]["text"] == "Ann rolls T-6-2-6"


def test_a_bust_names_the_bot_by_its_display_name() -> None:
    state = new_game("classic", 2, first=1).roll((1, 1, 1, 2)).play((2, 3)).play(ROLL)
    state = state.roll((1, 1, 1, 3)).play((2, 4)).play(ROLL)  # runners on 2, 3 and 4: none left
    lines = lines_of(state, (6, 6, 6, 6), ["Ann", "bot:rule28"])
    assert [(line["kind"], line["text"], line["dice"]) for line in lines] == [("bust", "Rule-of-28 bot busts on 6-6-6-6", [6, 6, 6, 6])]


def test_display_names() -> None:
    assert display_name("bot:rule28") == "Rule-of-28 bot"
    assert display_name("bot:expert") == "Expert bot"
    assert display_name("bot:gone") == "bot:gone"  # a bot this server lacks keeps its name
    assert display_name("Ann") == "Ann"
    # Two of the same bot in one game are told apart by their seat letters.
    assert display_names(["bot:random", "Ann", "bot:random"]) == ["Random bot A", "Ann", "Random bot C"]
