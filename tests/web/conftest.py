"""Fixtures for the web tests: a fresh SQLite database and a test client per test, and the
servers' clock that a test moves on."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from web_helpers import NO_LIMITS, Clock, pg_schema, postgres_url

from cantstop.web.app import create_app
from cantstop.web.db import storage as storage_module
from cantstop.web.db.storage import Storage
from cantstop.web.games.sweeper import stamp

# The analysis processes start with the first request that needs them, not with every test's
# server (each would spawn and warm one up); the tests of the warm-up ask for it themselves.
os.environ.setdefault("CANTSTOP_ANALYSIS_WARM", "0")


@pytest.fixture
def storage(tmp_path: Path) -> Iterator[Storage]:
    store = Storage(f"sqlite:///{tmp_path / 'test.sqlite3'}")
    store.migrate()
    yield store
    store.close()


@pytest.fixture
def client(storage: Storage) -> Iterator[TestClient]:
    with TestClient(create_app(storage, bot_delay=0, **NO_LIMITS)) as test_client:
        yield test_client


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def any_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'any.sqlite3'}"
        return
    url = postgres_url()
    with pg_schema(url) as scoped:
        yield scoped


@pytest.fixture
def any_storage(any_url: str) -> Iterator[Storage]:
    store = Storage(any_url)
    store.migrate()
    yield store
    store.close()


def servers_clock(monkeypatch: pytest.MonkeyPatch, clock: Clock) -> Clock:
    """`clock` as the clock of a test's servers (their `now`), the times they store included."""
    monkeypatch.setattr(storage_module, "now", lambda: stamp(clock()))
    return clock


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The servers' clock: real time, and as far ahead as the test moves it."""
    return servers_clock(monkeypatch, Clock())


@pytest.fixture
def still_clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The servers' clock, standing still but when the test moves it: what a server reads
    twice is the same time."""
    return servers_clock(monkeypatch, Clock(time.time()))
