"""What a client may send the challenges room: anything else is refused before use."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from cantstop.web.games.clock import CLOCKS
from cantstop.web.lobby.schemas import a_clock
from cantstop.web.schemas import Strict


class NewChallenge(Strict):
    to: str = Field(min_length=1, max_length=40, description="the account challenged, by name")
    rules: str = Field("classic", max_length=100, description="a preset such as 'classic' or 'turtles', or 'classic+to_win=4'; for two players")
    clock: Annotated[int, AfterValidator(a_clock)] = Field(
        0, json_schema_extra={"enum": list(CLOCKS)},
        description="seconds each player has for a move (0: no clock; 30 or 120 in real time; 43200, 86400 or 259200 turn-based)",
    )
    rated: bool = Field(False, description="rated (rules a rated game is played on) or friendly")
    # A Literal, not the enum: a strict model takes an enum's members only, never its values as sent.
    seats: Literal["first", "second", "random"] = Field(
        "random", description="the challenger's seat: 'first' (A), 'second' (B), or 'random', drawn when accepted (the roll-off picks who starts)",
    )
