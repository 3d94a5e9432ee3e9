"""The application as `cantstop serve` runs it: settings from the environment, one per process."""

from __future__ import annotations

import gc
import os

from fastapi import FastAPI
from sqlalchemy.engine import make_url

from cantstop.web.app import create_app
from cantstop.web.db.storage import Storage
from cantstop.web.db.url import default_url
from cantstop.web.settings import Settings


def describe_url(url: str) -> str:
    """The URL with any password hidden: it is printed and logged."""
    return make_url(url).render_as_string(hide_password=True)


def build_app() -> FastAPI:
    """Each server process calls this: its own connection pool, its own live games."""
    storage = Storage(os.environ.get("CANTSTOP_DB") or default_url())
    app = create_app(storage, Settings())
    # What is loaded by now (the framework, the database layer, the app) lives as long as
    # the process: frozen, it is no longer walked by the full collections that play's
    # garbage sets off, which took 80-200 ms each, holding up every game, under load.
    gc.collect()
    gc.freeze()
    return app
