"""The engine of one database URL (SQLite tuned for one writer), its migrations, its checkpoints."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine

MIGRATIONS = Path(__file__).parent.parent / "migrations"


def is_sqlite(url: str) -> bool:
    return url.startswith("sqlite")


def open_engine(url: str, autocommit: bool = False) -> Engine:
    """A pooled engine; SQLite in WAL mode with the pragmas below on every connection. With
    `autocommit` (not for SQLite), one whose connections run each statement on its own."""
    kwargs: dict[str, Any] = {}
    if is_sqlite(url):
        kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
    else:
        kwargs["pool_size"] = 10
        kwargs["max_overflow"] = 20
    if autocommit:
        # Its own pool, its connections in autocommit for good. An engine derived with
        # `execution_options(isolation_level=...)` switched each connection to autocommit as
        # it was taken and back as it was returned, rolled back the transaction it did not
        # have, and ran every statement through a joined event dispatcher: a PostgreSQL read
        # took 790 Python calls where it now takes 510 (docs/performance.md).
        kwargs["isolation_level"] = "AUTOCOMMIT"
        kwargs["skip_autocommit_rollback"] = True
    engine = create_engine(url, **kwargs)
    if is_sqlite(url):
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def migrate(engine: Engine, url: str, target: str = "head") -> None:
    """Bring the schema up to date with the migrations shipped in the package (or up to
    the revision `target`: tests build an older database with it)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, target)


def checkpoint(engine: Engine) -> None:
    """SQLite: copy what the write-ahead log holds into the database file, without waiting
    for (or holding up) anyone, so that the log is started over."""
    with engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    # WAL lets readers work while a writer commits. NORMAL sync: a commit is written to the
    # log but not flushed to the disk, so a killed process loses nothing and only a power
    # cut or an operating system crash can lose the last commits (docs/deploy.md).
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    # No checkpoint inside a commit: one flushes the disk twice, and on a busy disk held up
    # every action of the batch for 100-300 ms. The server checkpoints in the background
    # (`Recorder`); the last connection to close checkpoints too, as always.
    cursor.execute("PRAGMA wal_autocheckpoint=0")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()
