"""Rules parameters as data: every preset is a `Variant` value, never a branch."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

from cantstop.core.errors import VariantError

if TYPE_CHECKING:
    from cantstop.core.dice import RollCatalog


class Pairing(StrEnum):
    """How four dice become the sums a player may play."""

    PAIRS = "pairs"  # split into two pairs: three ways, two sums each
    CAPTAIN = "captain"  # relay race: one captain die added to each other die


CLASSIC_HEIGHTS = (3, 5, 7, 9, 11, 13, 11, 9, 7, 5, 3)
# Turtle races: (classic height + 1) / 2 chips; 2, 7, 8 and 12 are confirmed by the box.
TURTLE_HEIGHTS = tuple((h + 1) // 2 for h in CLASSIC_HEIGHTS)


@dataclass(frozen=True)
class Variant:
    """Everything the engine needs to know about a rule set.

    Columns are numbered from 2 (the smallest sum of two dice) upwards; `heights`
    gives the spaces of each, top space included. Rules that make no game raise one
    `VariantError` naming every fault.

    >>> Variant(to_win=2).columns
    range(2, 13)
    >>> Variant(runners=0, faces=7)
    Traceback (most recent call last):
    ...
    cantstop.core.errors.VariantError: invalid variant: 7-faced dice make 13 sums, so heights needs 13 columns, not 11; ...
    """

    name: str = field(default="classic", compare=False)  # a label: rules decide equality
    heights: tuple[int, ...] = CLASSIC_HEIGHTS
    runners: int = 3
    to_win: int = 3
    faces: int = 6
    wild_face: int | None = None  # the face that shows a turtle and counts as any value
    wild_dice: int = 0  # how many of the four dice carry the wild face (the first ones)
    pairing: Pairing = Pairing.PAIRS
    step_limit: int | None = None  # chips in the box: most steps one turn may take
    skip: bool = False  # runners hop over spaces holding another player's piece
    no_stop_on_occupied: bool = False  # no stopping while a runner shares a rival's space
    min_players: int = 1
    max_players: int = 4
    dice: int = field(default=4, init=False)

    def __post_init__(self) -> None:
        problems = []
        if not 2 <= self.faces <= 9:
            problems.append(f"faces must be 2..9, not {self.faces}")
        if len(self.heights) != 2 * self.faces - 1:
            problems.append(
                f"{self.faces}-faced dice make {2 * self.faces - 1} sums, "
                f"so heights needs {2 * self.faces - 1} columns, not {len(self.heights)}"
            )
        if any(not 1 <= h <= 35 for h in self.heights):
            problems.append("every column height must be 1..35")
        if not 1 <= self.runners <= len(self.heights):
            problems.append(f"runners must be 1..{len(self.heights)}, not {self.runners}")
        if not 1 <= self.to_win <= len(self.heights):
            problems.append(f"to_win must be 1..{len(self.heights)}, not {self.to_win}")
        if self.wild_face is not None and not 1 <= self.wild_face <= self.faces:
            problems.append(f"wild_face must be 1..{self.faces}, not {self.wild_face}")
        if not 0 <= self.wild_dice <= self.dice:
            problems.append(f"wild_dice must be 0..{self.dice}, not {self.wild_dice}")
        if (self.wild_face is None) != (self.wild_dice == 0):
            problems.append("wild_face and wild_dice go together (both set or both unset)")
        if self.step_limit is not None and self.step_limit < 1:
            problems.append(f"step_limit must be at least 1, not {self.step_limit}")
        if not 1 <= self.min_players <= self.max_players <= 4:
            problems.append("players must satisfy 1 <= min_players <= max_players <= 4")
        elif self.most_players < self.min_players:
            problems.append(f"to_win={self.to_win} with {len(self.heights)} columns leaves no player count whose game must end")
        if problems:
            raise VariantError("invalid variant: " + "; ".join(problems))

    @property
    def most_players(self) -> int:
        """The most players a game of this board takes: `max_players`, or fewer where that many
        could claim every column with nobody at `to_win` ((to_win - 1) x players >= columns).
        No roll could then end the game, as every roll busts. The book's longer game to 5
        columns is such a game for 3 players (4 + 4 + 3 of the 11 columns): it is played by 2."""
        if self.to_win <= 1:
            return self.max_players
        return min(self.max_players, (len(self.heights) - 1) // (self.to_win - 1))

    def players_text(self, players: int) -> str:
        """Why `players` cannot play this board ('' when they can), naming the allowed range."""
        if self.min_players <= players <= self.most_players:
            return ""
        why = f"{self.name} is for {self.min_players}..{self.most_players} players, not {players}"
        if self.most_players < players <= self.max_players:
            why += (f": {players} players could claim all {len(self.heights)} columns with nobody at {self.to_win},"
                    " and that game could never end")
        return why

    @property
    def columns(self) -> range:
        """The column numbers, e.g. 2..12."""
        return range(2, 2 + len(self.heights))

    def height(self, column: int) -> int:
        """Spaces in `column` (a column number such as 7)."""
        return self.heights[column - 2]

    def with_options(self, **changes: object) -> Variant:
        """A copy with some fields changed; the name becomes 'custom' unless given."""
        changes.setdefault("name", "custom")
        return replace(self, **changes)  # type: ignore[arg-type]

    @cached_property
    def catalog(self) -> RollCatalog:
        """Precomputed rolls, weights and sum groups (built once per variant value)."""
        from cantstop.core.dice import RollCatalog

        return RollCatalog(self)


_CLASSIC = Variant()
_TURTLES = Variant(
    name="turtles", heights=TURTLE_HEIGHTS, wild_face=1, wild_dice=4, step_limit=18, min_players=2
)

PRESETS: dict[str, Variant] = {
    "classic": _CLASSIC,
    "solitaire": replace(_CLASSIC, name="solitaire", max_players=1),
    "classic-long": replace(_CLASSIC, name="classic-long", to_win=4, min_players=2, max_players=3),
    "classic-skip": replace(_CLASSIC, name="classic-skip", skip=True),
    "classic-no-stop-on-occupied": replace(
        _CLASSIC, name="classic-no-stop-on-occupied", no_stop_on_occupied=True
    ),
    "turtles": _TURTLES,
    "turtles-relay": replace(_TURTLES, name="turtles-relay", pairing=Pairing.CAPTAIN),
    "turtles-long": replace(_TURTLES, name="turtles-long", to_win=4, max_players=3),
}

# What a menu shows for each preset; its name stays what commands and records use.
PRESET_TITLES: dict[str, str] = {
    "classic": "Classic",
    "solitaire": "Solitaire (one player)",
    "classic-long": "Classic, longer game (4 columns to win)",
    "classic-skip": "Classic, skipping occupied spaces",
    "classic-no-stop-on-occupied": "Classic, no stopping on an occupied space",
    "turtles": "Can't Stop the Turtles",
    "turtles-relay": "Turtles, relay race",
    "turtles-long": "Turtles, longer game (4 races to win)",
}


def variant_title(spec: str) -> str:
    """What people read for a variant spec: its preset's title, with any changes after it as
    written ('Classic + to_win=4'); a spec that names no preset is shown as it is.

    >>> variant_title("classic-no-stop-on-occupied")
    'Classic, no stopping on an occupied space'
    >>> variant_title("turtles+to_win=2")
    "Can't Stop the Turtles + to_win=2"
    """
    base, *changes = spec.strip().split("+")
    title = PRESET_TITLES.get(base)
    return spec if title is None else " + ".join([title, *changes])


_SPEC_FIELDS = (
    "heights",
    "runners",
    "to_win",
    "faces",
    "wild_face",
    "wild_dice",
    "pairing",
    "step_limit",
    "skip",
    "no_stop_on_occupied",
    "min_players",
    "max_players",
)


@lru_cache(maxsize=256)
def preset(spec: str) -> Variant:
    """A variant by name, e.g. 'classic', or a preset with changes: 'classic+to_win=5+skip'.

    Changes are `field=value` (heights as dot-separated numbers, e.g. 3.5.7) or a bare
    flag name for a true boolean. The same spec gives the same object, so positions read
    from text share one roll catalog and choice cache. Raises `VariantError` naming the
    presets, the options or the values a field takes.

    >>> preset("classic+to_win=4+skip").to_win
    4
    >>> preset("classic+to_win=lots")
    Traceback (most recent call last):
    ...
    cantstop.core.errors.VariantError: bad value 'lots' for to_win in variant 'classic+to_win=lots': write a whole number
    """
    base, *changes = spec.strip().split("+")
    if base not in PRESETS:
        raise VariantError(f"unknown variant {base!r}; known variants: {', '.join(PRESETS)}")
    if not changes:
        return PRESETS[base]
    values: dict[str, object] = {}
    for change in changes:
        key, _, text = change.partition("=")
        if key not in _SPEC_FIELDS:
            raise VariantError(
                f"unknown variant option {key!r} in {spec!r}; options: {', '.join(_SPEC_FIELDS)}"
            )
        if key in values:
            raise VariantError(f"{key} is changed twice in {spec!r}; give each option once")
        values[key] = _parse_value(key, text if _ else "true", spec)
    return replace(PRESETS[base], name=spec.strip(), **values)  # type: ignore[arg-type]


def _parse_value(key: str, text: str, spec: str) -> object:
    try:
        if key == "heights":
            return tuple(int(h) for h in text.split("."))
        if key == "pairing":
            return Pairing(text)
        if key in ("skip", "no_stop_on_occupied"):
            if text not in ("true", "false"):
                raise ValueError
            return text == "true"
        if key in ("wild_face", "step_limit") and text == "none":
            return None
        return int(text)
    except ValueError:
        allowed = _ALLOWED_VALUES.get(key, "a whole number")
        raise VariantError(f"bad value {text!r} for {key} in variant {spec!r}: write {allowed}") from None


_ALLOWED_VALUES = {  # what `_parse_value` reads, for its error message
    "heights": "whole numbers joined by dots, e.g. 3.5.7.5.3",
    "pairing": " or ".join(p.value for p in Pairing),
    "skip": "true or false",
    "no_stop_on_occupied": "true or false",
    "wild_face": "a whole number or none",
    "step_limit": "a whole number or none",
}


@lru_cache(maxsize=256)  # the server writes a position on every move: work a spec out once
def variant_spec(variant: Variant) -> str:
    """The shortest spec `preset` reads back as an equal variant: a preset name plus changes."""
    specs = []
    for name, base in PRESETS.items():
        changes = [
            _format_value(key, getattr(variant, key))
            for key in _SPEC_FIELDS
            if getattr(variant, key) != getattr(base, key)
        ]
        specs.append((len(changes), len("+".join(changes)), "+".join([name, *changes])))
    return min(specs)[2]


def _format_value(key: str, value: object) -> str:
    if key == "heights":
        return "heights=" + ".".join(str(h) for h in value)  # type: ignore[attr-defined]
    if isinstance(value, Pairing):
        return f"pairing={value.value}"
    if value is True:
        return key
    if value is False:
        return f"{key}=false"
    if value is None:
        return f"{key}=none"
    return f"{key}={value}"
