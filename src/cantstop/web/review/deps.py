"""What the review room's routes take from a request: its service."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends
from starlette.requests import HTTPConnection

from cantstop.web.deps import get_service
from cantstop.web.review.service import Reviews


def get_reviews(conn: HTTPConnection) -> Reviews:
    return get_service(conn).reviews


ReviewsDep = Annotated[Reviews, Depends(get_reviews)]
