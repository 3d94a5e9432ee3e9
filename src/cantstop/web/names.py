"""People's names as the server accepts them."""

from __future__ import annotations

import re

from cantstop.core.notation import seat_letter
from cantstop.web.errors import ApiError

NAME = re.compile(r"^[^\x00-\x1f;\"\\\[\]{}]{1,40}$")


def checked_name(name: str, seat: int | None = None) -> str:
    """A person's name, trimmed; refused (naming the seat, if given) unless it fits a record's tags."""
    name = name.strip()
    if not NAME.match(name) or name.lower().startswith("bot:"):
        where = "" if seat is None else f"seat {seat_letter(seat)}: "
        raise ApiError(422, "bad_name", f"{where}a name is 1..40 characters, without ; \" \\ [ ] {{ }} or a 'bot:' prefix")
    return name


def same_name(a: str, b: str) -> bool:
    """Whether two people's names would be told apart by nobody."""
    return a.lower() == b.lower()
