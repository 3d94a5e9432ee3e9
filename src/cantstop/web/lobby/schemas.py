"""What a client may send to the lobby, and what it answers: anything else is refused before use."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, Field

from cantstop.web.games.clock import CLOCKS, REAL_TIME, TURN_BASED, duration_text
from cantstop.web.schemas import Strict


def a_clock(seconds: int) -> int:
    # A check after the int rather than Literal[0, 30, ...], which matches by equality and so
    # let false, 0.0 and 30.0 through.
    if seconds not in CLOCKS:
        raise ValueError(
            f"a move clock is one of {', '.join(map(str, CLOCKS))} (seconds): none, real time ({' or '.join(map(duration_text, REAL_TIME))})"
            f" or turn-based ({', '.join(map(duration_text, TURN_BASED))})"
        )
    return seconds


class NewGame(Strict):
    variant: str = Field("classic", max_length=100, description="a preset such as 'classic' or 'turtles', or 'classic+to_win=4'")
    seats: list[Annotated[str, Field(max_length=40)]] = Field(
        min_length=1, max_length=4, description="one entry per seat: 'open' (for a person) or 'bot:NAME' / 'bot:LEVEL'"
    )
    rated: bool = Field(False, description="rated (signed-in people, a rated variant: ratings move) or friendly (anyone; no rating moves)")
    clock: Annotated[int, AfterValidator(a_clock)] = Field(
        0, json_schema_extra={"enum": list(CLOCKS)},
        description="seconds each person has for a move (0: no clock): 30 or 120 to play in real time, 43200 (12 h), 86400 (a day)"
        " or 259200 (3 days) for turn-based play; when they run out, the table plays for them, and the third timeout in a row"
        " (by default) forfeits the seat",
    )
    take: list[Join] = Field(
        default_factory=list, max_length=4,
        description="open seats this client takes at once, for people playing at this screen; their tokens come back in the reply",
    )


class Rematch(Strict):
    tokens: list[Annotated[str, Field(max_length=100)]] = Field(
        default_factory=list, max_length=4,
        description="the tokens of the seats people at this screen hold (a seat joined online is known by its cookie or bearer token)",
    )


class Join(Strict):
    seat: int = Field(ge=0, le=3)
    name: str | None = Field(None, min_length=1, max_length=40, description="a guest's name; a signed-in person sits under their account's")
    screen: bool = Field(
        False,
        description="for one more person at this screen (friendly games): the token comes back in the reply only and no"
        " cookie is set, so a browser keeps the seats it holds already and plays them all in turn",
    )


JoinIn = Join


class Joined(BaseModel):
    game: str
    seat: int
    token: str = Field(description="the seat's secret, shown once (a join also sets it as an HttpOnly cookie)")


class Created(BaseModel):
    id: str
    url: str
    taken: list[Joined] | None = Field(None, description="the seats taken with `take` and their secret tokens (only then)")


class HeldToken(Strict):
    game: str = Field(max_length=64)
    token: str = Field(max_length=100)


class HeldSeats(Strict):
    tokens: list[HeldToken] = Field(default_factory=list, max_length=100, description="seats the page keeps for people at its screen")


class LinkCode(Strict):
    code: str = Field(max_length=100, description="the code from the link's #seat= part")
