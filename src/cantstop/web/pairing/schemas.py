"""What a client may send the pairing room: anything else is refused before use."""

from __future__ import annotations

from pydantic import Field

from cantstop.web.schemas import Strict


class Ask(Strict):
    variant: str = Field("classic", max_length=100, description="the rules: a preset (GET /api/variants), rated ones for a rated game")
    players: int = Field(2, ge=2, le=4, description="players at the game: 2, 3 or 4")
    clock: int = Field(
        120, description="seconds each player has for a move: 30 or 120 (real time), 43200, 86400 or 259200 (turn-based)",
    )
    rated: bool = Field(False, description="rated (signed-in players only, a rated variant) or friendly")
    name: str | None = Field(None, min_length=1, max_length=40, description="a guest's name; a signed-in player is paired under their account's")
