"""What a client may send the social room: anything else is refused before use."""

from __future__ import annotations

from pydantic import Field

from cantstop.web.schemas import Strict
from cantstop.web.social.rows import REPORT_REASON

NAME = Field(min_length=1, max_length=40, description="an account's name")


class Named(Strict):
    name: str = NAME


class ReportIn(Strict):
    message: int | None = Field(None, ge=1, description="the chat line reported: its id (the `id` of its chat frame)")
    player: str | None = Field(None, min_length=1, max_length=40, description="the player reported: an account's name")
    reason: str = Field(min_length=1, max_length=REPORT_REASON, description="what is wrong, for the moderators")
