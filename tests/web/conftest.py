"""Fixtures for the web tests: a fresh SQLite database and a test client per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from cantstop.web.app import create_app
from cantstop.web.storage import Storage


@pytest.fixture
def storage(tmp_path: Path) -> Iterator[Storage]:
    store = Storage(f"sqlite:///{tmp_path / 'test.sqlite3'}")
    store.migrate()
    yield store
    store.close()


@pytest.fixture
def client(storage: Storage) -> Iterator[TestClient]:
    with TestClient(create_app(storage, bot_delay=0)) as test_client:
        yield test_client
