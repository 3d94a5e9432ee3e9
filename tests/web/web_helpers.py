"""Helpers shared by the web tests."""

from __future__ import annotations

import asyncio
import atexit
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError

from cantstop.core.state import ROLL, STOP, Phase, State
from cantstop.table import Move
from cantstop.web.db.storage import Storage
from cantstop.web.games.live import LiveGame
from cantstop.web.service import GameService

# Tests play far faster than people: the rate limits are off unless a test is about them.
NO_LIMITS: dict[str, Any] = {
    "rate_create": "off", "rate_join": "off", "rate_action": "off", "rate_chat": "off", "rate_analysis": "off", "socket_rate": 0.0,
}


# How long a test waits for what it is sure will come (a bot's move, a server starting): a
# bound on waiting on a loaded machine, never an assertion on speed.
WAIT = 120.0


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_game(client: TestClient, seats: list[str], variant: str = "classic") -> str:
    response = client.post("/api/games", json={"variant": variant, "seats": seats})
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def join(client: TestClient, game_id: str, seat: int, name: str) -> str:
    response = client.post(f"/api/games/{game_id}/join", json={"seat": seat, "name": name})
    assert response.status_code == 200, response.text
    client.cookies.clear()  # tests name the seat they act for explicitly
    return str(response.json()["token"])


def wait_for(client: httpx.Client, game_id: str, ready: Any, within: float = WAIT) -> dict[str, Any]:
    """Poll the game until `ready(game)` (bots play on the server's own loop meanwhile)."""
    deadline = time.monotonic() + within
    while True:
        game: dict[str, Any] = client.get(f"/api/games/{game_id}").json()
        if ready(game):
            return game
        if time.monotonic() > deadline:
            raise AssertionError(f"game {game_id} never became ready within {within:g} s: {game}")
        time.sleep(0.005)


def hearing(client: httpx.Client, within: float = WAIT) -> None:
    """Wait until a server hears what other processes store: on PostgreSQL /readyz answers
    `not_listening` from its start until its LISTEN has run (a test that acts through another
    process first would find its notices lost). Immediate on SQLite."""
    deadline = time.monotonic() + within
    while (ready := client.get("/readyz")).status_code == 503 and ready.json()["error"] == "not_listening":
        if time.monotonic() > deadline:
            raise AssertionError(f"the server did not listen within {within:g} s: {ready.text}")
        time.sleep(0.01)


async def settled(condition: Callable[[], bool], what: str, within: float = WAIT) -> None:
    """Wait on the event loop until `condition()` holds (a server's tasks run meanwhile), for
    at most `within` seconds: bounded by time, not by a count of polls a loaded machine stretches."""
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {within:g} s")
        await asyncio.sleep(0.005)


def until(ws: Any, kind: str) -> dict[str, Any]:
    """The next WebSocket message of type `kind` (others are skipped)."""
    for _ in range(50):
        message: dict[str, Any] = ws.receive_json()
        if message["type"] == kind:
            return message
    raise AssertionError(f"no {kind} message")


def pick(state: dict[str, Any], turn_rolls: int) -> Any:
    """A simple person: first choice, stops after three rolls in a turn."""
    if state["phase"] == "roll":
        return "roll"
    if state["phase"] == "choose":
        return state["legal"][0]
    return "stop" if turn_rolls >= 3 and "stop" in state["legal"] else "roll"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """A real `cantstop serve` process on a loopback port (killed, never left running)."""

    def __init__(
        self, db: str, bot_delay: float = 0.0, port: int | None = None, limits: bool = False,
        env: dict[str, str] | None = None, args: tuple[str, ...] = (), open_files: int | None = None,
    ) -> None:
        """`env`: more CANTSTOP_* settings; `args`: more options of `cantstop serve`;
        `open_files`: the process's RLIMIT_NOFILE (as a systemd service's 1024)."""
        self.db, self.bot_delay, self.limits = db, bot_delay, limits
        self.env, self.args, self.open_files = env or {}, args, open_files
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Server:
        cantstop = Path(sys.executable).with_name("cantstop")
        files = self.open_files

        def limit_files() -> None:  # runs in the child, before the server starts
            if files is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))

        self.process = subprocess.Popen(
            [str(cantstop), "serve", "--port", str(self.port), "--db", self.db, "--bot-delay", str(self.bot_delay), *self.args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            env={**os.environ, **({} if self.limits else {f"CANTSTOP_{k.upper()}": str(v) for k, v in NO_LIMITS.items()}), **self.env},
            preexec_fn=limit_files if files is not None else None,
        )
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"the server died: {self.process.stdout.read().decode() if self.process.stdout else ''}")
            try:
                with httpx.Client(base_url=self.url, timeout=5) as http:
                    hearing(http, deadline - time.monotonic())
                return self
            except httpx.TransportError:
                time.sleep(0.05)
        self.kill()
        raise AssertionError(f"the server did not come up within {WAIT:g} s")

    def kill(self) -> None:
        """SIGKILL: no shutdown handler runs, as in a crash."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.kill()


def postgres_url() -> str:
    """A PostgreSQL URL for the tests: CANTSTOP_TEST_PG, else a throwaway server we start."""
    if "url" not in _PG:
        _PG["url"] = os.environ.get("CANTSTOP_TEST_PG") or _debian_postgres() or _wheel_postgres()
    return _PG["url"]


_PG: dict[str, str] = {}


def _debian_postgres() -> str | None:
    """A private cluster from Debian's binaries (/usr/lib/postgresql/N/bin), which CI installs.

    As root, runs them as the `postgres` user, since PostgreSQL refuses to run as root.
    Stopped and deleted at exit.
    """
    bins = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    if not bins:
        return None
    bindir = bins[-1].parent
    folder = Path(tempfile.mkdtemp(prefix="cantstop-pg-"))
    data = folder / "data"
    as_user: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "check": True}
    subprocess.run([*as_user, str(bindir / "initdb"), "-D", str(data), "-U", "cantstop",
                    "--auth=trust", "-E", "UTF8"], **quiet)  # type: ignore[call-overload]
    options = f"-p {port} -k {folder} -h 127.0.0.1 -c fsync=off"
    subprocess.run([*as_user, str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-w",
                    "-l", str(folder / "log"), "start"], **quiet)  # type: ignore[call-overload]

    def stop() -> None:
        subprocess.run([*as_user, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate",
                        "stop"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(folder, ignore_errors=True)

    atexit.register(stop)
    return f"postgresql+psycopg://cantstop@127.0.0.1:{port}/postgres"


def _wheel_postgres() -> str:
    """Without Debian's PostgreSQL (a fresh machine): the binaries of the `pgserver` wheel,
    so that `make test` runs these tests anywhere. Stopped and deleted at exit."""
    import pgserver

    server = pgserver.get_server(tempfile.mkdtemp(prefix="cantstop-pg-"), cleanup_mode="delete")
    # get_uri() is postgresql://postgres:@/postgres?host=<socket folder>
    return str(server.get_uri()).replace("postgresql://", "postgresql+psycopg://", 1)


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
        for attempt in range(5):  # a connection of the test's server still closing may deadlock the drop: it loses, we retry
            try:
                with admin.begin() as conn:
                    conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
                break
            except OperationalError as error:
                if "deadlock" not in str(error) or attempt == 4:
                    raise
                time.sleep(0.2)
        admin.dispose()


@contextmanager
def storages(url: str, count: int) -> Iterator[list[Storage]]:
    """`count` storages of one database, migrated, as `count` server processes would have
    (each its own pools); closed after."""
    stores = [Storage(url) for _ in range(count)]
    try:
        stores[0].migrate()
        yield stores
    finally:
        for store in stores:
            store.close()


def unavailable(what: str, remedy: str) -> NoReturn:
    """A test that cannot run here: skipped on a developer's machine, failed in CI (CI=true),
    where a skip would hide that the check never ran. `remedy` says what makes it run."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI must run this test, but {what}: {remedy}")
    pytest.skip(f"{what}: {remedy}")


class Clock:
    """A server's clock in a test (seconds since the epoch), moved on by the test with
    `advance`: `Clock()` runs with real time, `Clock(at)` stands still at `at` otherwise."""

    def __init__(self, at: float | None = None) -> None:
        self.at = at
        self.ahead = 0.0

    def __call__(self) -> float:
        return (time.time() if self.at is None else self.at) + self.ahead

    def advance(self, seconds: float) -> None:
        self.ahead += seconds


def move_for(state: State) -> Move:
    """The move of a person who rolls, takes the first choice, and stops at once."""
    if state.phase is Phase.ROLL:
        return Move.of(ROLL)
    return Move.of(STOP) if state.phase is Phase.DECIDE else Move.of(state.options[0])


async def counted_down(game: LiveGame) -> None:
    """Wait for the game's countdown to act (its task may end cancelled: it restarts the clock for the next move)."""
    assert game.clock_task is not None
    await asyncio.wait([game.clock_task])


async def out_of_time(service: GameService, clock: Clock, game: LiveGame) -> None:
    """Let the move now due run out: the clock moves on past the deadline and the countdown acts."""
    deadline = game.deadline()
    assert deadline is not None
    clock.advance(deadline - clock() + 1)
    version = game.version
    service.clock.wake(game)
    await counted_down(game)
    assert game.version > version


def run_out(client: TestClient, game_id: str, clock: Clock) -> dict[str, Any]:
    """`out_of_time` in the server of a test client (whose clock is `clock`); the game as it
    is served then."""
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    client.portal.call(out_of_time, service, clock, service.games.held[game_id])  # type: ignore[union-attr]
    game: dict[str, Any] = client.get(f"/api/games/{game_id}").json()
    return game


def act(client: TestClient, game_id: str, token: str, action: Any) -> dict[str, Any]:
    """Play `action` for the seat of `token` at the game's current version; the game after it."""
    version = client.get(f"/api/games/{game_id}").json()["version"]
    response = client.post(f"/api/games/{game_id}/actions", json={"version": version, "action": action}, headers=auth(token))
    assert response.status_code == 200, response.text
    game: dict[str, Any] = response.json()
    return game
