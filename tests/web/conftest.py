"""Fixtures for the web tests: a fresh SQLite database and a test client per test."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

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


def postgres_url() -> str | None:
    """CANTSTOP_TEST_PG, a URL of a database the tests may create schemas in."""
    url = os.environ.get("CANTSTOP_TEST_PG")
    if not url:
        if os.environ.get("CI") == "true":
            pytest.fail("CI must run the PostgreSQL tests: set CANTSTOP_TEST_PG (see .ci/run)")
        pytest.skip("set CANTSTOP_TEST_PG=postgresql+psycopg://... to run the PostgreSQL tests")
    return url


@contextmanager
def pg_schema(url: str) -> Iterator[str]:
    """A fresh schema for one test (tests run in parallel): yields a URL that uses it."""
    schema = "t_" + uuid.uuid4().hex[:12]
    admin = create_engine(url)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    try:
        yield f"{url}{'&' if '?' in url else '?'}options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def any_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'any.sqlite3'}"
        return
    url = postgres_url()
    assert url is not None
    with pg_schema(url) as scoped:
        yield scoped


@pytest.fixture
def any_storage(any_url: str) -> Iterator[Storage]:
    store = Storage(any_url)
    store.migrate()
    yield store
    store.close()
