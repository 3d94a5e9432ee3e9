"""One-line position notation (like chess's FEN) and its JSON twin; both round-trip.

    classic 00300500000/00000000000 00000600000 A decide 3 14

Fields, space-separated: variant spec; each seat's pieces (one base-36 digit per
column, lowest column first, seats joined by '/'; a seat that has left the game is
`-`); the runners in the same form;
the seat to move (A-D; the winner once the game is over); the phase (`roll`,
`choose:DDDD` with the dice on the table, `decide`, `over`); steps taken this turn;
turns finished. A piece on a column's top space has claimed that column.
"""

from __future__ import annotations

import json
import string
from typing import Any

from cantstop.core.dice import Dice
from cantstop.core.errors import NotationError, VariantError
from cantstop.core.state import Phase, State, make_state
from cantstop.core.variant import Variant, preset, variant_spec

DIGITS = string.digits + string.ascii_lowercase
SEATS = "ABCD"
_PHASES = {"roll": Phase.ROLL, "choose": Phase.CHOOSE, "decide": Phase.DECIDE, "over": Phase.OVER}


def seat_letter(seat: int) -> str:
    return SEATS[seat]


def action_json(action: object) -> Any:
    """A legal action as JSON: a choice as its list of columns, any other by its name."""
    return list(action) if isinstance(action, tuple) else str(action)


def format_dice(dice: Dice) -> str:
    return "".join(str(d) for d in dice)


def parse_dice(text: str, variant: Variant) -> Dice:
    """'1546' to (1, 5, 4, 6), checked against the variant's dice."""
    if len(text) != variant.dice or not text.isdigit():
        raise NotationError(f"bad dice {text!r}: write {variant.dice} digits, e.g. 1546")
    dice = tuple(int(ch) for ch in text)
    if not all(1 <= d <= variant.faces for d in dice):
        raise NotationError(f"bad dice {text!r}: each die shows 1..{variant.faces}")
    return dice


def to_notation(state: State) -> str:
    """The one-line notation of `state`."""
    columns = state.variant.columns
    pieces = "/".join(
        "-" if p in state.out else "".join(DIGITS[row[c]] for c in columns) for p, row in enumerate(state.pieces)
    )
    runners = "".join(DIGITS[state.runners[c]] for c in columns)
    phase = state.phase.name.lower()
    if state.phase is Phase.CHOOSE:
        assert state.dice is not None
        phase += ":" + format_dice(state.dice)
    return " ".join(
        (
            variant_spec(state.variant),
            pieces,
            runners,
            seat_letter(state.seat),
            phase,
            str(state.steps),
            str(state.turn),
        )
    )


def _spaces(text: str, variant: Variant, what: str) -> tuple[int, ...]:
    if len(text) != len(variant.heights):
        raise NotationError(
            f"{what} {text!r} has {len(text)} digits; the variant has {len(variant.heights)} columns"
        )
    values = [0, 0]
    for c, ch in zip(variant.columns, text):
        value = DIGITS.find(ch.lower())
        if not 0 <= value <= variant.height(c):
            raise NotationError(
                f"{what}: {ch!r} in column {c} is not a space 0..{variant.height(c)}"
            )
        values.append(value)
    return tuple(values)


def from_notation(text: str) -> State:
    """Read a position; a `NotationError` names the field that is wrong."""
    fields = text.split()
    if len(fields) != 7:
        raise NotationError(
            f"a position has 7 fields (variant pieces runners seat phase steps turn), "
            f"not {len(fields)}: {text!r}"
        )
    spec, pieces_text, runners_text, seat, phase_text, steps, turn = fields
    try:
        variant = preset(spec)
    except VariantError as error:
        raise NotationError(str(error)) from None
    rows = pieces_text.split("/")
    out = tuple(i for i, row in enumerate(rows[:4]) if row == "-")
    blank = "0" * len(variant.heights)
    pieces = tuple(
        _spaces(blank if i in out else row, variant, f"pieces of seat {SEATS[i]}") for i, row in enumerate(rows[:4])
    )
    runners = _spaces(runners_text, variant, "runners")
    if seat not in SEATS[: len(pieces)]:
        raise NotationError(f"seat {seat!r} is not one of {SEATS[: len(pieces)]}")
    name, _, dice_text = phase_text.partition(":")
    if name not in _PHASES:
        raise NotationError(f"phase {phase_text!r} is not one of roll, choose:DDDD, decide, over")
    phase = _PHASES[name]
    if (phase is Phase.CHOOSE) != bool(dice_text):
        raise NotationError("dice go with the choose phase only, as choose:1546")
    dice = parse_dice(dice_text, variant) if dice_text else None
    if not (steps.isdigit() and turn.isdigit()):
        raise NotationError(f"steps and turn must be whole numbers, not {steps!r} and {turn!r}")
    return build_state(variant, pieces, runners, SEATS.index(seat), phase, dice, int(steps), int(turn), len(rows), out)


def build_state(
    variant: Variant,
    pieces: tuple[tuple[int, ...], ...],
    runners: tuple[int, ...],
    seat: int,
    phase: Phase,
    dice: Dice | None,
    steps: int,
    turn: int,
    num_players: int | None = None,
    out: tuple[int, ...] = (),
) -> State:
    """A state from its parts after checking that they make a reachable position."""
    num_players = len(pieces) if num_players is None else num_players
    playing = [p for p in range(len(pieces)) if p not in out]
    if why := variant.players_text(num_players):
        raise NotationError(f"{num_players} seats, but {why}")
    problems = []
    for c in variant.columns:
        top = variant.height(c)
        owners = [p for p, row in enumerate(pieces) if row[c] == top]
        if len(owners) > 1:
            problems.append(f"column {c} is topped by more than one seat")
        elif owners and any(row[c] for p, row in enumerate(pieces) if p != owners[0]):
            problems.append(f"column {c} is claimed, yet another seat has a piece in it")
        if runners[c]:
            if owners:
                problems.append(f"a runner stands in claimed column {c}")
            elif runners[c] <= pieces[seat][c]:
                problems.append(f"the runner in column {c} is not above the mover's piece")
    used = sum(1 for r in runners if r)
    if used > variant.runners:
        problems.append(f"{used} runners, but the variant has {variant.runners}")
    if used and phase is Phase.OVER:
        problems.append("runners on the board of a finished game")
    if phase is Phase.CHOOSE and dice is None:
        problems.append("the choose phase needs dice")
    if variant.step_limit is not None and steps > variant.step_limit:
        problems.append(f"{steps} steps taken, beyond the limit of {variant.step_limit}")
    if steps < used:
        problems.append(f"{used} runners on the board need at least {used} steps taken")
    wins = [sum(1 for c in variant.columns if row[c] == variant.height(c)) for row in pieces]
    if seat in out:
        problems.append(f"seat {SEATS[seat]} has left the game, so it cannot be the one to move")
    if phase is Phase.OVER and wins[seat] < variant.to_win and playing != [seat]:
        problems.append(f"the game is over but seat {SEATS[seat]} has not won")
    if phase is not Phase.OVER and max(wins) >= variant.to_win:
        problems.append("a seat has claimed enough columns to win, yet the game goes on")
    if phase is not Phase.OVER and len(playing) < 2 <= len(pieces):
        problems.append("one seat is left in the game, so the game is over")
    if problems:
        raise NotationError("impossible position: " + "; ".join(problems))
    state = make_state(variant, pieces, runners, seat, phase, dice, steps, turn, tuple(sorted(set(out))))
    if phase is Phase.CHOOSE and not state.options:
        assert dice is not None
        raise NotationError(f"dice {format_dice(dice)} bust here, so they cannot be on the table")
    return state


def to_json(state: State) -> dict[str, Any]:
    """A JSON-ready dict: columns are keyed by number, seats are 0-based."""
    columns = state.variant.columns
    return {
        "variant": variant_spec(state.variant),
        "pieces": [{str(c): row[c] for c in columns if row[c]} for row in state.pieces],
        "runners": {str(c): state.runners[c] for c in columns if state.runners[c]},
        "player": state.seat,
        "phase": state.phase.name.lower(),
        "dice": list(state.dice) if state.dice else None,
        "steps": state.steps,
        "turn": state.turn,
        **({"out": list(state.out)} if state.out else {}),
    }


def from_json(data: dict[str, Any] | str) -> State:
    """Read `to_json`'s form (a dict or its JSON text); errors name the key at fault."""
    try:
        obj = json.loads(data) if isinstance(data, str) else data
        variant = preset(str(obj["variant"]))
        size = 2 + len(variant.heights)

        def spaces(mapping: dict[str, int], what: str) -> tuple[int, ...]:
            row = [0] * size
            for key, value in mapping.items():
                c = int(key)
                if c not in variant.columns or not isinstance(value, int) or not 0 <= value <= variant.height(c):
                    raise NotationError(f"{what}: {key}={value!r} is not a column and space of {variant.name}")
                row[c] = value
            return tuple(row)

        pieces = tuple(spaces(row, "pieces") for row in obj["pieces"])
        runners = spaces(obj.get("runners", {}), "runners")
        phase = _PHASES[obj["phase"]]
        dice = tuple(obj["dice"]) if obj.get("dice") else None
        if dice is not None:
            dice = parse_dice("".join(str(d) for d in dice), variant)
        seat, steps, turn = (int(obj[k]) for k in ("player", "steps", "turn"))
        out = tuple(int(p) for p in obj.get("out", ()))
    except NotationError:
        raise
    except (KeyError, TypeError, ValueError, json.JSONDecodeError) as error:
        raise NotationError(
            f"bad position JSON ({type(error).__name__}: {error}); expected keys: "
            "variant, pieces, runners, player, phase, dice, steps, turn (and out, the seats that left)"
        ) from None
    if not 0 <= seat < len(pieces):
        raise NotationError(f"player {seat} is not a seat 0..{len(pieces) - 1}")
    if any(not 0 <= p < len(pieces) or any(pieces[p]) for p in out):
        raise NotationError(f"out {list(out)}: each must be a seat 0..{len(pieces) - 1} with no pieces on the board")
    return build_state(variant, pieces, runners, seat, phase, dice, steps, turn, None, out)
