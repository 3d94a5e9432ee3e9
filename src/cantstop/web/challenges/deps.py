"""What the challenges room's routes take from a request: its service."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends
from starlette.requests import HTTPConnection

from cantstop.web.challenges.service import Challenges
from cantstop.web.deps import get_service


def get_challenges(conn: HTTPConnection) -> Challenges:
    return get_service(conn).challenges


ChallengesDep = Annotated[Challenges, Depends(get_challenges)]
