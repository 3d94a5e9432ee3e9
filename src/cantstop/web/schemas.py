"""The base of every model a client's input is read into: each room's `schemas.py` holds its
own (what it may be sent), so anything else is refused before use."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    """No unknown fields and no coercion: `true` is not a seat, nor "3" a version, nor "6" a column."""

    model_config = ConfigDict(extra="forbid", strict=True)
