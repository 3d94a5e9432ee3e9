"""The hot reads and the group commit, run on PostgreSQL's driver itself.

Each statement is written once with SQLAlchemy Core (`queries`) and compiled once to
psycopg's SQL; it runs on a psycopg cursor of a pooled autocommit connection and its rows
come back as psycopg makes them, plain tuples of Python values (psycopg itself turns
timestamps, JSON and booleans into Python values). SQLAlchemy's execution wrapped each
statement in Python calls that cost more than psycopg's own work (an execution context, a
result and its columns built from the cursor's description, a look in the compiled cache):
the group commit, one statement per action, and the reads of a game, its seats, its moves
and a session ran through it (docs/performance.md, 2026-11-27 evening). SQLite keeps
SQLAlchemy's execution (`sqlalchemy_reading`): it stores timestamps and JSON as text, which
SQLAlchemy's result processing turns into values.

A driver error comes out as SQLAlchemy's (an `IntegrityError`, an `OperationalError` that
keeps psycopg's `sqlstate`), as every caller of storage expects, and a connection lost
is dropped from the pool rather than handed out again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple, cast

import psycopg
from sqlalchemy.engine import Engine
from sqlalchemy.engine.interfaces import DBAPICursor
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql import Executable

Rows = list[Sequence[Any]]
Read = Callable[[Executable, Mapping[str, Any]], Rows]  # a statement and its parameters -> its rows


class Compiled(NamedTuple):
    statement: Executable
    sql: str  # psycopg's
    fixed: dict[str, Any]  # the parameters the statement holds its values for


class Driver:
    """Statements run on the driver's cursors of `engine`'s pool (a PostgreSQL one whose
    connections are in autocommit), each compiled on its first use."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._compiled: dict[int, Compiled] = {}  # by the statement's id (the statement kept alive in it)

    def compiled(self, statement: Executable) -> Compiled:
        found = self._compiled.get(id(statement))
        if found is None:
            compiled = statement.compile(dialect=self.engine.dialect)  # type: ignore[attr-defined]
            # A value written into the statement (`kind != 'end'`) is a parameter of its own.
            fixed = {name: bind.value for name, bind in compiled.binds.items() if not bind.required}
            found = self._compiled[id(statement)] = Compiled(statement, str(compiled), fixed)
        return found

    @contextmanager
    def reading(self) -> Iterator[Read]:
        """A function that runs a statement and returns its rows, on one connection, each
        statement on its own (autocommit). Raises SQLAlchemy's `DBAPIError` family."""
        with self._cursor() as run:

            def read(statement: Executable, params: Mapping[str, Any]) -> Rows:
                return run(statement, params).fetchall()

            yield read

    def execute(self, statement: Executable, params: Mapping[str, Any]) -> None:
        """Run one statement (autocommit: it is committed once it returns). Raises
        SQLAlchemy's `DBAPIError` family: `IntegrityError` for a key taken, say."""
        with self._cursor() as run:
            run(statement, params)

    @contextmanager
    def _cursor(self) -> Iterator[Callable[[Executable, Mapping[str, Any]], psycopg.Cursor[Any]]]:
        """A pooled connection's cursor, as a function that runs a statement on it."""
        connection = self.engine.raw_connection()
        driver: psycopg.Connection[Any] = connection.driver_connection  # type: ignore[assignment]
        try:
            with driver.cursor() as cursor:

                def run(statement: Executable, params: Mapping[str, Any]) -> psycopg.Cursor[Any]:
                    sql, fixed = self.compiled(statement)[1:]
                    if fixed:
                        params = {**fixed, **params}
                    try:
                        # The dialect's own step of handing a statement to the driver (a call of
                        # cursor.execute), so that what counts SQLAlchemy's statements counts these.
                        self.engine.dialect.do_execute(cast(DBAPICursor, cursor), sql, params, None)
                        return cursor
                    except psycopg.Error as error:
                        lost = self.engine.dialect.is_disconnect(cast(Any, error), connection, None)  # psycopg's error is DB-API's
                        if lost:  # as SQLAlchemy's own execution does: the pool opens a new one next time
                            connection.invalidate(error)
                        raise DBAPIError.instance(sql, params, error, psycopg.Error, connection_invalidated=lost,
                                                  dialect=self.engine.dialect) from error

                yield run
        finally:
            connection.close()


@contextmanager
def sqlalchemy_reading(engine: Engine) -> Iterator[Read]:
    """`Driver.reading` through SQLAlchemy's execution (SQLite): rows with the same values."""
    with engine.connect() as conn:

        def read(statement: Executable, params: Mapping[str, Any]) -> Rows:
            return list(conn.execute(statement, params).all())

        yield read
