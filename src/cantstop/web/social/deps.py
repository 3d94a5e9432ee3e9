"""What the social room's routes take from a request: its service."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends
from starlette.requests import HTTPConnection

from cantstop.web.deps import get_service
from cantstop.web.social.service import Social


def get_social(conn: HTTPConnection) -> Social:
    return get_service(conn).social


SocialDep = Annotated[Social, Depends(get_social)]
