"""Web counts: what the server does per action, counted instead of timed.

Run: `python benchmarks/web_counts.py [--games 12] [--accounts] [--instructions | --load SECONDS]
[--only sqlite|postgresql] [--pg URL] [--src PATH] [--out FILE.json] [--pstats FILE]`,
then `python benchmarks/web_counts.py --compare A.json B.json` (the databases both hold).

Timings on a shared machine cannot settle a question of a few percent; counts can. For
each database this starts one server process, `cantstop serve` as shipped (the same uvicorn
protocols, middleware and settings; the rate limits raised out of the way, and the
sweeper's periodic look and SQLite's checkpoints put off, as they are work per minute or
per second, not per action), with two changes that alter no path of a move: its dice are
seeded (`SeededDice`), so every run deals the very same dice, and it counts. Two games are
played to warm it up, then the counting starts, and `--games` two-player games are played
one after another, one action at a time, over the seats' WebSockets: each client picks its
moves from a seeded random source as `web_load.py`'s do, and waits for the acknowledgement
and both seats' updates before the next action. Nothing overlaps, so the same code plays
the same games and runs the same path on every run: the games are fingerprinted (every
action and its version), and `--compare` says whether two runs played the same ones.

With `--accounts` the two seats are signed-in people, as with `web_load.py --accounts`: two
accounts made before the warm-up, every game rated, created and joined with the session
cookie and its CSRF token, the WebSockets signed in by the cookie; the window closes once
every rating the server is writing is written. Besides the sweeper, two things a server does
per minute of wall time are put off: writing down a session's last use and reading an
account's "your turn" hook again (each is read once, in the warm-up).

What is counted in the server between the first and the last of those games (creating and
joining them included, as in `web_load.py`'s CPU per action), divided by the actions:

- by default, Python function calls (cProfile's call counts, which unlike its times do not
  depend on the machine), on the event loop and on the worker threads, by package and by
  function, JSON encodes and decodes and sends on the WebSockets among them. Under cProfile
  the server runs a few times slower. A call count weighs a property read like a query:
  read it for what runs, not for what it costs;
- with `--instructions`, the machine instructions the server process executes in user
  space, all threads, by shared object and by C function (valgrind's callgrind, switched on
  only for the counted games; a few minutes a database for 6 games): the CPU cost, C
  included (the JSON encoder, the database driver, SQLite itself). The same code counts the
  same to 0.1%; between two commits, differences under half a percent can come from where
  objects fall in dictionaries rather than from the code. System calls (socket writes,
  database round trips) are not in it;
- always, SQL statements as SQLAlchemy hands them to the driver (its dialect's
  `do_execute` and `do_executemany`), with the rows of each executemany; transactions
  committed and rolled back; connections taken from the pool; tasks handed to a thread pool
  (executor submits: hops off the event loop). These are counted by wrapping the methods
  SQLAlchemy's events fire from rather than by listening to its events, as a listener
  turns on event dispatch for every statement (since 2026-11-27; counts before then
  include that dispatch);

and in the clients, the frames they received, by type, and their bytes.

`--load SECONDS` counts under concurrency instead: `web_load.py`'s clients (200 connections,
each at most 10 actions a second) play for that long against the counting server, cProfile
off; it reports the SQL, transactions and pool figures per action, the server's CPU per
action, the rate and the 99th percentile. These depend on timing (how many actions one
commit groups): compare runs made back to back.

`--src PATH` serves another checkout's code (its `src` folder, put first on the server's
`PYTHONPATH`) with this script and this environment: `--src ../before/src` then
`--compare` puts two commits side by side on the same games, with the statements and the
functions whose counts per action changed most (a function of the web package is matched
by its name, wherever its module moved). `--out` writes a run as JSON; `--pstats FILE`
also writes the event loop's profile (warm-up included) for `pstats`' callers.

With `--pg` the server uses a fresh schema of that database; without it, a throwaway
PostgreSQL is started as the tests start one.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import hashlib
import importlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

WARM_UP = 2  # games played before counting starts
SEED = 1
QUIET = {"CANTSTOP_SWEEP_EVERY": "86400"}  # a sweep in the window or not would make two runs differ
DAY = 86400.0
LOAD_CONNECTIONS = 200  # --load: web_load.py's clients, two a game
MODES = ("calls", "instructions", "load")


# ----------------------------------------------------------------------------- the server


def short(filename: str) -> str:
    """A code object's file as a module path: 'sqlalchemy/engine/base.py', 'cantstop/web/app.py'."""
    for marker in ("/site-packages/", "/src/", "/lib/python3"):
        if marker in filename:
            rest = filename.split(marker, 1)[1]
            return rest.split("/", 1)[1] if marker == "/lib/python3" else rest
    return filename


def label(code: Any) -> str:
    if isinstance(code, str):  # a built-in: "<method 'write' of ...>", "<built-in method json.dumps>"
        return code
    return f"{short(code.co_filename)}:{code.co_qualname}"


def calls_of(profilers: list[cProfile.Profile]) -> Counter[str]:
    """Calls per function. The garbage collector is held off meanwhile: a finalizer run in
    the middle would be profiled, and that reshapes the profiler's tree as it is read
    (entries read twice or not at all). Nothing else runs: the other threads wait for the GIL."""
    gc.disable()
    try:
        stats = [profiler.getstats() for profiler in profilers]
    finally:
        gc.enable()
    calls: Counter[str] = Counter()
    for entries in stats:
        for entry in entries:
            calls[label(entry.code)] += entry.callcount
    return calls


class Counting:
    """The counters of one server process; `mark` takes a snapshot of them all."""

    def __init__(self, profile: bool) -> None:
        self.profile = profile
        self.loop = cProfile.Profile()  # the main thread: uvicorn's event loop
        self.workers: list[cProfile.Profile] = []  # one per other thread, made as it starts
        self.lock = threading.Lock()
        self.sql: Counter[str] = Counter()  # statement -> executions
        self.rows: Counter[str] = Counter()  # statement -> parameter sets (executemany's rows)
        self.events: Counter[str] = Counter()  # commit, rollback, checkout, reset, submit
        self.marks: list[dict[str, Any]] = []

    def install(self) -> None:
        """Count by wrapping the methods that SQLAlchemy's events would fire from, not by
        listening to those events: a listener turns on the engine's event dispatch for every
        statement, which the server does not run (and which costs more on PostgreSQL's
        autocommit engine than on SQLite's)."""
        from sqlalchemy.engine import Connection
        from sqlalchemy.engine.default import DefaultDialect
        from sqlalchemy.pool.base import _ConnectionFairy

        for name in ("do_execute", "do_execute_no_params", "do_executemany"):  # where a statement goes to the driver
            setattr(DefaultDialect, name, self._statement(getattr(DefaultDialect, name), many=name == "do_executemany"))
        for cls, name, what in ((Connection, "_commit_impl", "commit"), (Connection, "_rollback_impl", "rollback"),
                                (_ConnectionFairy, "_reset", "reset")):  # where the events of those names fire
            setattr(cls, name, self._counted(getattr(cls, name), what))
        checkout = _ConnectionFairy._checkout.__func__  # type: ignore[attr-defined]
        _ConnectionFairy._checkout = classmethod(self._counted(checkout, "checkout"))  # type: ignore[assignment,method-assign]
        ThreadPoolExecutor.submit = self._counted(ThreadPoolExecutor.submit, "submit")  # type: ignore[method-assign]
        if self.profile:
            threading.setprofile(self._start_thread)
            self.loop.enable()

    def _start_thread(self, *_: Any) -> None:
        """The first profile event of a new thread: from here on its own profiler counts."""
        profiler = cProfile.Profile()
        with self.lock:
            self.workers.append(profiler)
        profiler.enable()

    def _statement(self, method: Any, many: bool) -> Any:
        """`method` of the dialect (statement, parameters after the cursor), counting each statement."""

        def counted(dialect: Any, cursor: Any, statement: str, *args: Any, **kwargs: Any) -> Any:
            text = " ".join(statement.split())
            with self.lock:
                self.sql[text] += 1
                self.rows[text] += len(args[0]) if many else 1
            return method(dialect, cursor, statement, *args, **kwargs)

        return counted

    def _counted(self, method: Any, name: str) -> Any:
        """`method`, counting its calls under `name`."""

        def counted(*args: Any, **kwargs: Any) -> Any:
            with self.lock:
                self.events[name] += 1
            return method(*args, **kwargs)

        return counted

    def mark(self) -> None:
        if self.profile:
            self.loop.disable()  # its own reading is not counted
        with self.lock:
            workers = list(self.workers)
            sql, rows, events = Counter(self.sql), Counter(self.rows), Counter(self.events)
        self.marks.append({"loop": calls_of([self.loop]), "workers": calls_of(workers), "sql": sql, "rows": rows, "events": events})
        if self.profile:
            self.loop.enable()

    def window(self) -> dict[str, dict[str, int]]:
        """What was counted between the first two marks."""
        start, end = self.marks[0], self.marks[1]
        return {key: {k: v for k, v in (end[key] - start[key]).items() if v} for key in start}


def hold_checkpoints() -> None:
    """SQLite's write-ahead log is checkpointed once a second of wall time, however many
    actions that second held: under a profiler or valgrind, seconds are many times longer,
    and whether one falls in the window is chance. Held off here (the log just grows), and
    the recorder's round of them put off to a day: a checkpoint that does nothing still cost
    a hop to its thread each second."""
    for module in ("cantstop.web.db.storage", "cantstop.web.storage"):  # where it lives now, and did before
        try:
            storage = importlib.import_module(module)
        except ImportError:
            continue
        storage.Storage.checkpoint = lambda self: None
        break
    for module in ("cantstop.web.db.recorder", "cantstop.web.recorder"):
        try:
            recorder = importlib.import_module(module).Recorder
        except (ImportError, AttributeError):
            continue
        def rarely(self: Any, *args: Any, init: Any = recorder.__init__, **kwargs: Any) -> None:
            init(self, *args, **kwargs)
            self.checkpoint_every = DAY

        recorder.__init__ = rarely
        return


def hold_per_minute() -> None:
    """A signed-in server writes down a session's last use at most once a minute and trusts
    an account's "your turn" hook for a minute: how often either falls in the window depends
    on how long the window lasts (under a profiler or valgrind, many minutes). Both are put
    off to a day here, so each is done once, in the warm-up; under a real load they come to
    a few hundredths of a database call per action."""
    from datetime import timedelta

    for module, name, value in (("cantstop.web.identity.sessions", "SEEN_EVERY", timedelta(seconds=DAY)),
                                ("cantstop.web.identity.hooks", "HOOK_FRESH", DAY)):
        try:
            setattr(importlib.import_module(module), name, value)
        except ImportError:  # an older commit, without accounts
            continue


def live_games() -> list[Any]:
    """Every `LiveGames` the server makes, kept as it is made (to wait for its ratings)."""
    made: list[Any] = []
    try:
        from cantstop.web.games.live import LiveGames
    except ImportError:
        return made
    init = LiveGames.__init__

    def kept(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        made.append(self)

    LiveGames.__init__ = kept  # type: ignore[method-assign]
    return made


def serve(port: int, db: str, out: Path, mode: str, pstats: str) -> None:
    """The server process: `cantstop serve` with seeded dice and the counters on. SIGUSR1
    marks the start of the window, SIGUSR2 its end, once the ratings being written are
    written: the counts then go to `out`, and the event loop's profile since the start to
    `pstats` unless that is '-'."""
    import cantstop.core.dice as dice

    seeded = dice.SeededDice  # every game the service deals comes from one seeded source, in order
    dice.SecureDice = lambda: seeded(SEED)  # type: ignore[assignment,misc]
    hold_checkpoints()
    hold_per_minute()
    services = live_games()
    ending: list[asyncio.Task[None]] = []  # held, so that the end's task is not collected
    counting = Counting(profile=mode == "calls")
    counting.install()

    def end() -> None:
        counting.mark()
        out.write_text(json.dumps(counting.window()))
        if counting.profile and pstats != "-":
            counting.loop.dump_stats(pstats)

    async def rated_then_end() -> None:
        # A rated game's last move is answered before its rating is written: the window
        # holds every rating of its games, however the last one's thread was scheduled.
        for games in services:
            if hasattr(games, "ratings_written"):
                await games.ratings_written()
        end()

    def on_signal(signum: int, _frame: Any) -> None:
        if signum == signal.SIGUSR1:
            counting.mark()
            out.with_suffix(".started").touch()
            return
        # A signal handler runs on the event loop's thread, between two steps of the loop.
        loop = asyncio.get_running_loop()
        loop.call_soon_threadsafe(lambda: ending.append(loop.create_task(rated_then_end())))

    signal.signal(signal.SIGUSR1, on_signal)
    signal.signal(signal.SIGUSR2, on_signal)
    from cantstop.cli.serve import serve as command

    command.main(["--port", str(port), "--db", db], standalone_mode=False)


# ----------------------------------------------------------------------------- the clients


class Tally:
    """What the clients saw: actions, frames by type and their bytes, and a fingerprint of the games."""

    def __init__(self) -> None:
        self.actions = 0
        self.games = 0
        self.frames: Counter[str] = Counter()
        self.bytes = 0
        self.digest = hashlib.sha256()
        self.extra: dict[str, Any] = {}

    def saw(self, text: str | bytes) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(text)
        self.frames[message["type"]] += 1
        self.bytes += len(text)
        return message


async def until(ws: ClientConnection, tally: Tally, done: Any) -> dict[str, Any]:
    """Read frames (each counted) until one for which `done(frame)` holds."""
    while True:
        async with asyncio.timeout(600):
            message = tally.saw(await ws.recv())
        if done(message):
            return message


def updated_to(version: int) -> Any:
    return lambda m: m["type"] == "update" and m["game"]["version"] == version


People = tuple[dict[str, str], dict[str, str]]  # two signed-in accounts' headers (web_load.signed_up)


async def one_game(url: str, number: int, rng: random.Random, tally: Tally, people: People | None) -> None:
    """Two seats play one game to its end, one action at a time: guests with a seat token
    each, or (`people`) two signed-in accounts playing a rated game, as web_load.py's do."""
    from web_load import pick

    # An HTTP connection of its own for each game's set-up: one kept alive from game to game
    # sat idle through a game, longer under a profiler than the server keeps one open, and
    # a request sent just as the server closed it failed.
    async with httpx.AsyncClient(base_url=url, timeout=600) as http:
        if people is None:
            game_id = (await http.post("/api/games", json={"variant": "classic", "seats": ["open", "open"]})).json()["id"]
            joined = [await http.post(f"/api/games/{game_id}/join", json={"seat": s, "name": f"p{s}-{number}"}) for s in (0, 1)]
            auths = [{"Authorization": f"Bearer {j.json()['token']}"} for j in joined]
        else:
            made = await http.post("/api/games", json={"variant": "classic", "seats": ["open", "open"], "rated": True, "take": [{"seat": 0}]},
                                   headers=people[0])
            game_id = made.raise_for_status().json()["id"]
            (await http.post(f"/api/games/{game_id}/join", json={"seat": 1}, headers=people[1])).raise_for_status()
            auths = [{"Cookie": person["Cookie"]} for person in people]  # the account's seat, by its session
    ws_url = url.replace("http", "ws") + f"/ws/games/{game_id}"
    sockets = [await connect(ws_url, additional_headers=auth, compression=None) for auth in auths]
    try:
        game = (await until(sockets[0], tally, lambda m: m["type"] == "hello"))["game"]
        await until(sockets[1], tally, lambda m: m["type"] == "hello")
        await until(sockets[0], tally, lambda m: m["type"] == "presence" and m["connected"] == [0, 1])
        rolls = 0
        while game["state"]["winner"] is None:
            state, version = game["state"], game["version"]
            mover = sockets[state["player"]]
            action, rolls = pick(state, rolls, rng)
            await mover.send(json.dumps({"type": "action", "version": version, "action": action}))
            tally.actions += 1
            tally.digest.update(f"{version} {action};".encode())
            ack = await until(mover, tally, lambda m: m["type"] in ("ok", "error"))
            if ack["type"] == "error":
                raise RuntimeError(f"action {action!r} on version {version} refused: {ack}")
            game = (await asyncio.gather(*(until(ws, tally, updated_to(version + 1)) for ws in sockets)))[0]["game"]
        tally.games += 1
    finally:
        await sockets[0].close()
        if not sockets[1].close_code:  # the other seat hears that seat 0 left: then it closes too
            await until(sockets[1], tally, lambda m: m["type"] == "presence" and m["connected"] == [1])
        await sockets[1].close()


async def drive(url: str, args: argparse.Namespace, server: subprocess.Popen[bytes], out: Path) -> Tally:
    """Warm up, then play what is counted between the two marks."""
    from web_load import signed_up, wait_until_up

    rng = random.Random(args.seed)
    async with httpx.AsyncClient(base_url=url, timeout=600) as http:
        await wait_until_up(http, server)
        people: People | None = None
        pairs: list[People] | None = None
        if args.accounts:  # made before the warm-up: a sign-up hashes a password
            people = (await signed_up(url, "counted one"), await signed_up(url, "counted two"))
            if args.mode == "load":  # one pair a game, as web_load.py's
                made = [await signed_up(url, f"loaded {i}") for i in range(LOAD_CONNECTIONS)]
                pairs = [(made[i], made[i + 1]) for i in range(0, LOAD_CONNECTIONS, 2)]
        for number in range(WARM_UP):
            await one_game(url, number, rng, Tally(), people)
        await marked(server, signal.SIGUSR1, out.with_suffix(".started"))
        if args.mode == "instructions":
            callgrind(server.pid, "--instr=on")
        tally = Tally()
        if args.mode == "load":
            await under_load(url, args, server.pid, tally, pairs)
        else:
            for number in range(WARM_UP, WARM_UP + args.games):
                await one_game(url, number, rng, tally, people)
        await marked(server, signal.SIGUSR2, out)  # after the ratings being written
        if args.mode == "instructions":
            callgrind(server.pid, "--dump")
        return tally


async def under_load(url: str, args: argparse.Namespace, pid: int, tally: Tally, pairs: list[People] | None) -> None:
    """`web_load.py`'s clients (guests, or the signed-in `pairs`) for `--load` seconds; the
    server's CPU and the latency in `tally.extra`."""
    from web_load import cpu_seconds, latency, play

    cpu = cpu_seconds(pid)
    load, elapsed = await play(url, LOAD_CONNECTIONS, args.load, 10, args.seed, pairs)
    spent = cpu_seconds(pid)
    tally.actions, tally.games = len(load.latencies), load.games
    tally.extra = {**latency(load, elapsed), "refused": dict(load.errors)}
    if cpu is not None and spent is not None and tally.actions:
        tally.extra["cpu_ms_per_action"] = round((spent - cpu) * 1000 / tally.actions, 3)


def callgrind(pid: int, what: str) -> None:
    subprocess.run(["callgrind_control", what, str(pid)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


async def marked(server: subprocess.Popen[bytes], signum: int, answer: Path) -> None:
    """Signal the server and wait until it has taken its snapshot."""
    server.send_signal(signum)
    for _ in range(6000):
        if answer.exists():
            return
        await asyncio.sleep(0.05)
    raise RuntimeError("the server did not answer the signal")


def count(db: str, args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """One server process on `db`, the games played, and what it counted."""
    # Imported here, not at the top: the server process may run another commit's code.
    from web_load import LIMITS_AWAY, free_port

    port = free_port()
    name = db.split(":")[0].split("+")[0]
    counts = folder / f"counts-{port}.json"
    env = {**os.environ, **LIMITS_AWAY, **QUIET}
    if args.src:
        env["PYTHONPATH"] = os.pathsep.join([str(Path(args.src).resolve()), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    pstats = str(Path(args.pstats).resolve().with_suffix(f".{name}.pstats")) if args.pstats else "-"
    command = [sys.executable, __file__, "--serve", str(port), db, str(counts), args.mode, pstats]
    if args.mode == "instructions":  # counted only between the marks: callgrind_control turns it on, and dumps
        command = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={folder}/callgrind.%p", *command]
        env["PYTHONHASHSEED"] = "0"
    log = folder / f"server-{port}.log"
    with log.open("wb") as sink:
        server = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, env=env)
        try:
            tally = asyncio.run(drive(f"http://127.0.0.1:{port}", args, server, counts))
        except BaseException:
            print(log.read_text()[-3000:], file=sys.stderr)
            raise
        finally:
            server.terminate()
            server.wait(60)
    window = json.loads(counts.read_text())
    if args.mode == "instructions":
        window.update(instructions(folder / f"callgrind.{server.pid}.1"))
    return {
        "database": name,
        "mode": args.mode,
        "accounts": args.accounts,
        "commit": commit_of(Path(args.src) if args.src else Path(__file__).parent),
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "games": tally.games,
        "actions": tally.actions,
        "fingerprint": tally.digest.hexdigest()[:16] if args.mode != "load" else "load",
        "client_frames": dict(tally.frames),
        "client_bytes": tally.bytes,
        "load": tally.extra,
        **window,
    }


ANNOTATED = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*?)(?:\s+\[(.*)\])?$")


def instructions(dump: Path) -> dict[str, Any]:
    """A callgrind dump's instructions: in all, by shared object and by (C) function."""
    text = subprocess.run(["callgrind_annotate", "--threshold=100", "--inclusive=no", str(dump)], capture_output=True, text=True, check=True).stdout
    total = 0
    objects: Counter[str] = Counter()
    functions: Counter[str] = Counter()
    for line in text.splitlines():
        found = ANNOTATED.match(line)
        if found is None:
            continue
        cost, where, obj = int(found[1].replace(",", "")), found[2], found[3]
        if where.startswith("PROGRAM TOTALS"):
            total = cost
        elif obj is not None:
            library = Path(obj).name.split(".cpython")[0]
            objects[library] += cost
            functions[f"{where.split(':', 1)[-1]} [{library}]"] += cost
    return {"instructions": total, "objects": dict(objects), "functions": dict(functions.most_common(400))}


def commit_of(path: Path) -> str:
    found = subprocess.run(["git", "-C", str(path), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    if found.returncode != 0:
        return "unknown"
    dirty = subprocess.run(["git", "-C", str(path), "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True)
    return found.stdout.strip() + ("+changes" if dirty.stdout.strip() else "")


# ----------------------------------------------------------------------------- the report

# The calls that answer the usual questions, by their labels (the same in every commit).
MARKERS = [
    ("thread hops (anyio, for sync dependencies)", ("anyio/_backends/_asyncio.py:run_sync_in_worker_thread",)),
    ("asyncio.create_task calls", ("asyncio/tasks.py:create_task",)),
    ("JSON encodes (JSONEncoder.encode)", ("json/encoder.py:JSONEncoder.encode",)),
    ("JSON decodes (json.loads)", ("json/__init__.py:loads",)),
    ("pydantic validations", ("<method 'validate_python' of 'pydantic_core._pydantic_core.SchemaValidator' objects>",)),
    ("WebSocket sends (Starlette's WebSocket.send)", ("starlette/websockets.py:WebSocket.send",)),
]

def package(name: str) -> str:
    """The package of a function label, as the report groups them ('cantstop.web', 'sqlalchemy', 'built-ins')."""
    if name.startswith("<"):
        return "built-ins"
    parts = name.split(":", 1)[0].split("/")
    if parts[0] == "cantstop" and len(parts) > 2:
        return f"cantstop.{parts[1]}"
    return parts[0].removesuffix(".py")


def figures(run: dict[str, Any]) -> dict[str, float]:
    """The headline figures of one run, per action."""
    n = max(run["actions"], 1)
    loop, workers = Counter(run["loop"]), Counter(run["workers"])
    out: dict[str, float] = {}
    if "instructions" in run:
        out["machine instructions (thousands)"] = run["instructions"] / n / 1000
    if run.get("load"):
        out |= {k: float(v) for k, v in run["load"].items() if isinstance(v, int | float) and v is not None}
    if loop:
        out |= {"Python calls, event loop": sum(loop.values()) / n, "Python calls, threads": sum(workers.values()) / n}
    out |= {
        "SQL statements": sum(run["sql"].values()) / n,
        "SQL rows (executemany's counted one by one)": sum(run["rows"].values()) / n,
        "transactions committed": run["events"].get("commit", 0) / n,
        "transactions rolled back": run["events"].get("rollback", 0) / n,
        "connections from the pool": run["events"].get("checkout", 0) / n,
        "executor submits (hops to a thread)": run["events"].get("submit", 0) / n,
    }
    for what, labels in MARKERS if loop else []:
        out[what] = sum((loop + workers)[name] for name in labels) / n
    out["frames received by clients"] = sum(run["client_frames"].values()) / n
    out["bytes received by clients"] = run["client_bytes"] / n
    return out


def by_package(run: dict[str, Any]) -> Counter[str]:
    grouped: Counter[str] = Counter()
    for name, calls in (Counter(run["loop"]) + Counter(run["workers"])).items():
        grouped[package(name)] += calls
    return grouped


def per_name(run: dict[str, Any], what: str) -> dict[str, float]:
    """Counts per action under names that survive a move: a function of the web package by
    its name alone (its module may have moved between two commits), no addresses."""
    found: Counter[str] = Counter()
    for name, calls in run[what].items():
        name = re.sub(r" at 0x[0-9a-f]+", "", name)
        if name.startswith("cantstop/web/"):
            name = "cantstop/web/...:" + name.split(":", 1)[1]
        found[name] += calls
    return {k: v / max(run["actions"], 1) for k, v in found.items()}


def show(runs: list[dict[str, Any]], top: int) -> None:
    """Each figure per action, one column per run; with two runs, the change, and the
    statements and functions whose counts per action changed most."""
    heads = [f"{r['database']}{' signed in' if r.get('accounts') else ''} {r['commit']}" for r in runs]
    print("| per action | " + " | ".join(heads) + (" | change |" if len(runs) == 2 else " |"))
    print("|---" * (len(runs) + 1 + (len(runs) == 2)) + "|")
    rows: list[tuple[str, list[float]]] = [("actions (count)", [r["actions"] for r in runs]), ("games (count)", [r["games"] for r in runs])]
    per = [figures(r) for r in runs]
    rows += [(key, [p.get(key, 0.0) for p in per]) for key in per[0]]
    if all("objects" in r for r in runs):
        objects = sorted({k for r in runs for k in r["objects"]}, key=lambda k: -max(r["objects"].get(k, 0) for r in runs))
        rows[3:3] = [(f"  of which in {k} (thousands)", [r["objects"].get(k, 0) / r["actions"] / 1000 for r in runs]) for k in objects[:10]]
    frames = sorted({k for r in runs for k in r["client_frames"]})
    rows += [(f"frames received: {k}", [r["client_frames"].get(k, 0) / max(r["actions"], 1) for r in runs]) for k in frames]
    packages = [by_package(r) for r in runs]
    names = sorted({k for p in packages for k in p}, key=lambda k: -max(p[k] / max(r["actions"], 1) for p, r in zip(packages, runs)))
    rows += [(f"calls in {k}", [p[k] / max(r["actions"], 1) for p, r in zip(packages, runs)]) for k in names[:20]]
    for key, values in rows:
        change = ""
        if len(values) == 2:
            change = f" | {values[1] - values[0]:+,.2f}" + (f" ({(values[1] / values[0] - 1) * 100:+.1f}%)" if values[0] else "")
        print(f"| {key} | " + " | ".join(f"{v:,.2f}" if isinstance(v, float) else f"{v:,}" for v in values) + change + " |")
    prints = {r["fingerprint"] for r in runs}
    print("games played: " + ", ".join(r["fingerprint"] for r in runs)
          + (" (the same games)" if len(prints) == 1 and "load" not in prints else " (not the same games)"))
    if len(runs) != 2:
        return
    a, b = runs
    for what in ("sql", "loop", "workers", "functions"):
        if what not in a or what not in b:
            continue
        ca, cb = per_name(a, what), per_name(b, what)
        if what == "functions":
            ca, cb = {k: v / 1000 for k, v in ca.items()}, {k: v / 1000 for k, v in cb.items()}
        changed = sorted(set(ca) | set(cb), key=lambda k: -abs(cb.get(k, 0) - ca.get(k, 0)))
        title = {"sql": "SQL statements", "loop": "calls on the event loop", "workers": "calls on threads",
                 "functions": "instructions (thousands, its own) of the C functions"}[what]
        print(f"\n{title} per action that changed most ({heads[0]} -> {heads[1]}):")
        for k in changed[:top]:
            diff = cb.get(k, 0) - ca.get(k, 0)
            if abs(diff) < 0.005:
                break
            print(f"  {ca.get(k, 0):9.3f} -> {cb.get(k, 0):9.3f}  {diff:+9.3f}  {k[:160]}")


def main() -> None:
    if len(sys.argv) == 7 and sys.argv[1] == "--serve":
        serve(int(sys.argv[2]), sys.argv[3], Path(sys.argv[4]), sys.argv[5], sys.argv[6])
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=12, help="games counted on each database (after two to warm up)")
    parser.add_argument("--accounts", action="store_true", help="signed-in people playing rated games, as web_load.py --accounts")
    parser.add_argument("--instructions", action="store_true", help="count machine instructions (valgrind) instead of Python calls")
    parser.add_argument("--load", type=float, default=None, metavar="SECONDS", help="count under web_load.py's clients for this long instead")
    parser.add_argument("--only", choices=("sqlite", "postgresql"), help="one database instead of both")
    parser.add_argument("--pg", default=None, help="PostgreSQL URL (default: a throwaway server; a fresh schema in it either way)")
    parser.add_argument("--src", default=None, help="serve the code of this src folder (another checkout's) instead of this one's")
    parser.add_argument("--seed", type=int, default=SEED, help="the clients' choices")
    parser.add_argument("--out", default=None, help="write the counts as JSON to this file")
    parser.add_argument("--pstats", default=None, metavar="FILE", help="also write the event loop's profile to FILE.<database>.pstats")
    parser.add_argument("--top", type=int, default=30, help="statements and functions listed by --compare")
    parser.add_argument("--compare", nargs=2, metavar="FILE", help="compare two --out files (database by database)")
    args = parser.parse_args()
    if args.compare:
        loaded = [json.loads(Path(f).read_text()) for f in args.compare]
        for name in sorted(set.intersection(*({r["database"] for r in runs} for runs in loaded))):
            print(f"\n## {name}\n")
            show([next(r for r in runs if r["database"] == name) for runs in loaded], args.top)
        return
    args.mode = "instructions" if args.instructions else "load" if args.load else "calls"
    from web_load import fresh_schema, throwaway_postgres

    folder = Path(tempfile.mkdtemp(prefix="cantstop-counts-"))
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average {os.getloadavg()[0]:.1f}", file=sys.stderr)
    results = []
    for name in ("sqlite", "postgresql"):
        if args.only not in (None, name):
            continue
        db = f"sqlite:///{folder / 'counts.sqlite3'}" if name == "sqlite" else fresh_schema(args.pg or throwaway_postgres())
        results.append(count(db, args, folder))
        print(f"  {name}: {results[-1]['actions']} actions counted, load average {os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(results))
    for r in results:
        print(f"\n## {r['database']}\n")
        show([r], args.top)


if __name__ == "__main__":
    main()
