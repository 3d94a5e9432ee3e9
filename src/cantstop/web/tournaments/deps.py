"""What the tournaments room's routes take from a request: the room's service."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends
from starlette.requests import HTTPConnection

from cantstop.web.deps import get_service
from cantstop.web.tournaments.service import Tournaments


def get_tournaments(conn: HTTPConnection) -> Tournaments:
    return get_service(conn).tournaments


TournamentsDep = Annotated[Tournaments, Depends(get_tournaments)]
