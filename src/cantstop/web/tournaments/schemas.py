"""What a client may send the tournaments room: anything else is refused before use."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from cantstop.web.lobby.schemas import a_clock
from cantstop.web.schemas import Strict
from cantstop.web.tournaments.service import MAX_PLAYERS, MAX_ROUNDS, NAME_CHARS


class NewTournament(Strict):
    name: str = Field(min_length=1, max_length=NAME_CHARS, description="what the tournament is called")
    variant: str = Field("classic", max_length=100, description="the rules: a preset such as 'classic', or 'classic+to_win=4'")
    seats: int = Field(2, ge=2, le=4, description="players at each game: 2, or 3 or 4 (tables by score; a round may seat one fewer at some)")
    clock: Annotated[int, AfterValidator(a_clock)] = Field(
        86400, description="seconds each player has for a move (turn-based: 43200, 86400, 259200; real time: 30, 120); not 0",
    )
    rated: bool = Field(False, description="whether its games are rated (a rated variant then)")
    rounds: int = Field(ge=1, le=MAX_ROUNDS, description=f"rounds to play, 1 to {MAX_ROUNDS}")
    capacity: int = Field(16, ge=2, le=MAX_PLAYERS, description=f"the most players who may enter, 2 to {MAX_PLAYERS}")
    starts: str = Field(max_length=40, description="when entry closes and round 1 begins: ISO 8601 with a time zone, in the future")
