"""A seat's secret token: given to its holder once, stored only as a hash; and a game's id, new and its shape."""

from __future__ import annotations

import hashlib
import re
import secrets

GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")  # what storage's game ids (token_urlsafe) are made of


def new_token() -> str:
    """A seat's secret: 192 random bits, URL-safe."""
    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_game_id() -> str:
    """A new game's id: 12 URL-safe characters, never starting with '-', so that it can be
    typed after a command (`cantstop analyse ID --db URL`) without being read as an option."""
    while True:
        found = secrets.token_urlsafe(9)
        if not found.startswith("-"):
            return found
