"""A seat's secret token: given to its holder once, stored only as a hash."""

from __future__ import annotations

import hashlib
import secrets


def new_token() -> str:
    """A seat's secret: 192 random bits, URL-safe."""
    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
