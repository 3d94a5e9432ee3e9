"""The words for what happens at a table: one sentence per happening, for every front end.

The terminal game, the replays and the CLI print these sentences as they are; a front
end may style them (colour, a dialog) but never composes its own. A seat called "You"
is spoken to: "You roll", "You bust".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import assert_never

from cantstop.core.choices import format_choice
from cantstop.core.dice import Dice, RollOff
from cantstop.core.notation import seat_letter
from cantstop.core.odds import percent
from cantstop.core.state import Action, State, describe_action
from cantstop.core.variant import Variant
from cantstop.table import happenings as kinds
from cantstop.table.happenings import Happening

__all__ = [
    "choices_text", "dice_words", "die_labels", "explain_bust", "percent", "roll_off_line", "roll_off_text", "say",
    "turns_text", "verb",
]

YOU = "You"
MAX_LISTED_SUMS = 12  # turtle dice pair up dozens of ways: past this, name the sums only


def verb(who: str, word: str) -> str:
    """'Ann rolls', 'Ann finishes', but 'You roll'."""
    if who == YOU:
        return f"{who} {word}"
    return f"{who} {word}{'es' if word.endswith(('s', 'sh', 'ch', 'x')) else 's'}"


def turns_text(turns: int) -> str:
    return f"{turns} turn{'s' if turns != 1 else ''}"


def die_labels(variant: Variant, dice: Dice) -> list[str]:
    """Each die as people read it: a wild (turtle) face as T."""
    return ["T" if i < variant.wild_dice and d == variant.wild_face else str(d) for i, d in enumerate(dice)]


def dice_words(variant: Variant, dice: Dice) -> str:
    """'4 3 T 6'."""
    return " ".join(die_labels(variant, dice))


def choices_text(options: Sequence[tuple[int, ...]]) -> str:
    return ", ".join(format_choice(c) for c in options)


def roll_off_text(roll_off: RollOff) -> str:
    """'A:7 B:9 / A:5 B:3': each round's totals; the record's RollOff tag holds this."""
    return " / ".join(" ".join(f"{seat_letter(seat)}:{total}" for seat, total in rnd) for rnd in roll_off.rounds)


def roll_off_line(text: str) -> str:
    """The sentence for a RollOff tag's text."""
    return f"Roll-off for the first turn: {text}."


def why_unusable(state: State, column: int) -> str:
    """Why a column can take no step for the player to move (the state the dice met)."""
    v = state.variant
    owner = state.claimed[column]
    if owner >= 0:
        return f"{column} is claimed by {seat_letter(owner)}"
    if state.runners[column] and state.runners[column] >= v.height(column):
        return f"the runner in {column} is at the top"
    if not state.runners[column] and state.runners_left == 0:
        return f"{column} has no runner and all {v.runners} are out"
    if v.step_limit is not None and state.steps >= v.step_limit:
        return f"the {v.step_limit}-step limit is reached"
    if state.room(column) == 0:
        return f"{column} has no free space left"
    return f"{column} cannot be played"


def explain_bust(before: State, dice: Dice) -> str:
    """'Rolled 2 2 4 6: sums 4+8, 6+6. Nothing fits: 4 is claimed by B; ...'."""
    v = before.variant
    catalog = v.catalog
    groups = catalog.groups[catalog.index[dice]]
    columns = sorted({c for g in groups for c in g})
    if len(groups) <= MAX_LISTED_SUMS:
        sums = "sums " + ", ".join("+".join(map(str, g)) for g in groups)
    else:
        sums = f"{len(groups)} ways to pair them, with sums {', '.join(map(str, columns))}"
    reasons = "; ".join(why_unusable(before, c) for c in columns)
    return f"Rolled {dice_words(v, dice)}: {sums}. Nothing fits: {reasons}."


def fallback_text(who: str, reason: str, action: Action) -> str:
    return f"{who} failed ({reason}); it plays {describe_action(action)}"


def say(
    happening: Happening,
    names: Sequence[str],
    variant: Variant,
    brief: bool = False,
    *,
    dice: Callable[[Variant, Dice], str] = dice_words,
    options: bool = True,
) -> str:
    """The sentence for `happening`, with the seats called by `names`; `brief` for a list
    of events (a bust names its dice, not why every sum fails). `dice` writes the dice as
    the medium shows them ("4 3 T 6" here, "4-3-T-6" in the browser's log); without
    `options` a roll does not list the choices it offers (a screen showing them as buttons)."""
    h = happening
    who = names[h.seat]
    match h:
        case kinds.Rolled():
            rolled = f"{verb(who, 'roll')} {dice(variant, h.dice)}"
            return f"{rolled}: {choices_text(h.options)}" if options else rolled
        case kinds.Busted() if brief:
            return f"{verb(who, 'bust')} on {dice(variant, h.dice)}"
        case kinds.Busted():
            return f"{verb(who, 'bust')}. {explain_bust(h.before, h.dice)}"
        case kinds.Chose():
            return f"{verb(who, 'play')} {format_choice(h.choice)}"
        case kinds.Stopped():
            return f"{verb(who, 'stop')} ({', '.join(f'{c}→{space}' for c, space in h.moved)})."
        case kinds.Claimed():
            line = f"{verb(who, 'claim')} column {h.column}!"
            if h.wiped:
                line += f" Removed from {h.column}: {', '.join(names[p] for p in h.wiped)}."
            return line
        case kinds.Won():
            return f"{verb(who, 'finish' if h.alone else 'win')} after {turns_text(h.turns)}."
        case kinds.FellBack():
            return fallback_text(who, h.reason, h.action)
        case kinds.Forfeited():
            line = verb(who, "resign") if h.fault is None else f"{verb(who, 'forfeit')} ({h.fault}: {h.reason})"
            if h.winner is not None:
                line += f"; {verb(names[h.winner], 'win')}"
            return line + "."
    assert_never(h)
