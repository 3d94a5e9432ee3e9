"""The application as `cantstop serve` runs it: settings from the environment, one per process."""

from __future__ import annotations

import os

from fastapi import FastAPI
from sqlalchemy.engine import make_url

from cantstop.web.app import create_app
from cantstop.web.settings import Settings
from cantstop.web.storage import Storage, default_url


def describe_url(url: str) -> str:
    """The URL with any password hidden: it is printed and logged."""
    return make_url(url).render_as_string(hide_password=True)


def build_app() -> FastAPI:
    """Each server process calls this: its own connection pool, its own live games."""
    storage = Storage(os.environ.get("CANTSTOP_DB") or default_url())
    return create_app(storage, Settings.from_env())
