"""Which database: `CANTSTOP_DB`, or a SQLite file in the user's data directory."""

from __future__ import annotations

import os
from pathlib import Path


def default_url() -> str:
    """`CANTSTOP_DB`, or a SQLite file in the user's data directory (created if need be)."""
    if os.environ.get("CANTSTOP_DB"):
        return os.environ["CANTSTOP_DB"]
    import platformdirs

    folder = Path(platformdirs.user_data_dir("cantstop"))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'cantstop.sqlite3'}"
