"""What a client may send the review room: an answer to a practice position."""

from __future__ import annotations

from pydantic import Field

from cantstop.web.schemas import Strict


class AnswerIn(Strict):
    game: str = Field(max_length=64, pattern=r"^[A-Za-z0-9_-]+$", description="the game the position comes from")
    ply: int = Field(ge=0, le=100_000, description="the decision's event in the game's record")
    action: str = Field(min_length=1, max_length=32, description="'roll', 'stop' or a choice such as '6+10', as the position offers them")
