"""One sentence per happening, for every front end."""

from __future__ import annotations

from cantstop import SeededDice, preset
from cantstop.core.dice import roll_off
from cantstop.core.notation import from_notation
from cantstop.core.odds import percent
from cantstop.table import Busted, Chose, Claimed, Fault, FellBack, Forfeited, Rolled, Stopped, Won
from cantstop.table.wording import roll_off_line, roll_off_text, say

CLASSIC = preset("classic")
NAMES = ["Ann", "You", "Cy"]


def test_each_happening_has_its_sentence_and_you_are_spoken_to() -> None:
    before = from_notation("classic 00000000000/00000000000/00000000000 30000000000 A decide 3 0")
    cases = {
        Rolled(0, (1, 5, 4, 6), ((6, 10), (7, 9))): "Ann rolls 1 5 4 6: 6+10, 7+9",
        Rolled(1, (1, 5, 4, 6), ((6, 10),)): "You roll 1 5 4 6: 6+10",
        Busted(0, (1, 1, 1, 1), before): "Ann busts. Rolled 1 1 1 1: sums 2+2. Nothing fits: the runner in 2 is at the top.",
        Chose(1, (7, 7)): "You play 7+7",
        Stopped(0, ((6, 1), (10, 2))): "Ann stops (6→1, 10→2).",
        Claimed(1, 2, (0, 2)): "You claim column 2! Removed from 2: Ann, Cy.",
        Won(2, 12, alone=False): "Cy wins after 12 turns.",
        Won(0, 1, alone=True): "Ann finishes after 1 turn.",
        FellBack(2, Fault.CRASH, "RuntimeError: boom", (6, 10)): "Cy failed (RuntimeError: boom); it plays 6+10",
        Forfeited(0, Fault.TIMEOUT, "no answer", None): "Ann forfeits (timeout: no answer).",
        Forfeited(1, None, "resigned", 0): "You resign; Ann wins.",
    }
    for happening, sentence in cases.items():
        assert say(happening, NAMES, CLASSIC) == sentence
    assert say(Busted(0, (1, 1, 1, 1), before), NAMES, CLASSIC, brief=True) == "Ann busts on 1 1 1 1"


def test_the_roll_off_and_percents_read_alike_everywhere() -> None:
    rolled = roll_off(CLASSIC, 2, SeededDice(1))
    assert roll_off_line(roll_off_text(rolled)).startswith("Roll-off for the first turn: A:")
    assert [percent(x) for x in (0, 0.001, 0.5, 0.999, 1)] == ["0%", "<1%", "50%", ">99%", "100%"]
    assert percent(0.4444, 2) == "44.44%" and percent(0.00001, 2) == "<0.01%"
