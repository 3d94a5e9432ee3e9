"""Idle scale: what waiting costs one server process, and whether play stays quick beside it.

Run: `python benchmarks/idle_scale.py [--games 100000] [--active 1000] [--seconds 60]`.

It starts one `cantstop serve` process (a temporary SQLite file, or `--db URL`) and:

1. reads its resident memory (RSS) once it stops moving;
2. runs the load test of `web_load.py` (200 clients playing 100 games, `--seconds` long):
   the action latency of an idle server (skip it with `--no-baseline`);
3. creates `--games` turn-based games (a day a move), both seats taken at creation, so each
   is started and waits for its first move: `--through-server` of them by the API (each is
   then held by the server until it lets it go), the rest written straight into the
   database before the server starts, as a server restarted on a busy site finds them
   (on a shared machine the API makes only some tens of games a second); reads the memory
   again, and how many games the server holds in memory (its metrics);
4. makes `--active` of them active: both players open them (a WebSocket each, with the
   seat's token), so the server counts them present, and each makes its first roll over
   its socket; reads the memory a third time;
5. runs the same load test again beside the waiting games and the open ones.

It prints the memory per waiting game and per socket, the server's peak memory (VmHWM), the
games it holds, and the load test's actions per second, median and 99th-percentile latency,
before and beside. The server's rate limits
and its cap on connections per address are raised out of the way, since every client comes
from this one address; the open-file limit is raised for both sides (each socket takes a
descriptor on each). Progress goes to standard error; if the server stops, the run says so
with the end of its log, which is kept in a file named at the start.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import resource
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

from web_load import LIMITS_AWAY, cpu_seconds, free_port, latency, play, wait_until_up

DAY = 86400
TRIES = 5  # a request that fails on the way (a connection reset on a loaded machine) is tried again this often


def rss_mib(pid: int) -> float:
    """Resident memory of a process (Linux /proc), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc (Linux only)")


def peak_mib(pid: int) -> float:
    """The most resident memory the process has had (VmHWM), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc (Linux only)")


METRICS_TOKEN = "idle-scale"


async def held_games(http: httpx.AsyncClient) -> int | None:
    """How many games the server holds in memory, from its metrics (None if they cannot be read)."""
    try:
        text = (await http.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})).text
    except httpx.TransportError:
        return None
    for line in text.splitlines():
        if line.startswith("cantstop_held_games "):
            return int(float(line.split()[1]))
    return None


def say(text: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {text}", file=sys.stderr, flush=True)


def stored_games(db: str, count: int) -> list[tuple[str, list[str]]]:
    """`count` started turn-based games written straight into the database (the schema made
    by the server's migrations), in transactions of a thousand: (id, the seats' tokens)."""
    from cantstop.web.db.rows import GAMES, SEATS, now
    from cantstop.web.db.storage import Storage
    from cantstop.web.db.tokens import hash_token, new_token

    storage = Storage(db)
    storage.migrate()
    made: list[tuple[str, list[str]]] = []
    stamp = now()
    tags = {"Site": "cantstop serve", "Date": stamp.strftime("%Y.%m.%d"), "RollOff": "A starts"}
    try:
        for start in range(0, count, 1000):
            games, seats = [], []
            for _ in range(min(1000, count - start)):
                game_id, tokens = secrets.token_urlsafe(9), [new_token(), new_token()]
                made.append((game_id, tokens))
                games.append({"id": game_id, "variant": "classic", "first": 0, "tags": {**tags, "Game": game_id}, "status": "playing",
                              "version": 0, "clock": DAY, "created": stamp, "updated": stamp, "rated": False, "to_move": 0})
                seats += [{"game_id": game_id, "seat": i, "kind": "person", "bot": None, "name": name, "token_hash": hash_token(token),
                           "account_id": None} for i, (name, token) in enumerate(zip(("Ann", "Bob"), tokens))]
            with storage.engine.begin() as conn:
                conn.execute(GAMES.insert(), games)
                conn.execute(SEATS.insert(), seats)
    finally:
        storage.close()
    return made


class Run:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.folder = Path(tempfile.mkdtemp(prefix="cantstop-idle-"))
        self.db = args.db or f"sqlite:///{self.folder / 'idle.sqlite3'}"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = self.folder / "server.log"
        self.server: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        cantstop = Path(sys.executable).with_name("cantstop")
        say(f"server log: {self.log}")
        with self.log.open("wb") as out:
            self.server = subprocess.Popen(
                [str(cantstop), "serve", "--port", str(self.port), "--db", self.db, "--log-level", "warning"],
                stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **LIMITS_AWAY, "CANTSTOP_METRICS_TOKEN": METRICS_TOKEN},
            )

    def alive(self) -> None:
        """Stop the run, saying why, if the server has stopped."""
        assert self.server is not None
        if self.server.poll() is not None:
            tail = self.log.read_text(errors="replace").splitlines()[-20:]
            raise RuntimeError(f"the server stopped (exit code {self.server.returncode}); the end of its log:\n" + "\n".join(tail))

    async def settled(self) -> float:
        """RSS once it stops moving (the server finishes what the last requests set off)."""
        assert self.server is not None
        last = rss_mib(self.server.pid)
        for _ in range(30):
            await asyncio.sleep(1)
            self.alive()
            now = rss_mib(self.server.pid)
            if abs(now - last) < 0.5:
                return now
            last = now
        return last

    async def post(self, http: httpx.AsyncClient, path: str, body: dict[str, Any]) -> Any:
        for attempt in range(TRIES):
            try:
                response = await http.post(path, json=body)
                if response.status_code < 500:
                    response.raise_for_status()
                    return response.json()
            except httpx.TransportError:
                pass
            self.alive()
            await asyncio.sleep(0.2 * 2**attempt)
        raise RuntimeError(f"POST {path} failed {TRIES} times")

    async def create_games(self, count: int, concurrency: int = 16) -> list[tuple[str, list[str]]]:
        """`count` started turn-based games: (id, the seats' tokens)."""
        made: list[tuple[str, list[str]]] = []
        body = {"variant": "classic", "seats": ["open", "open"], "clock": DAY,
                "take": [{"seat": 0, "name": "Ann"}, {"seat": 1, "name": "Bob"}]}
        started = time.monotonic()

        async def worker(http: httpx.AsyncClient, n: int) -> None:
            for _ in range(n):
                created = await self.post(http, "/api/games", body)
                made.append((created["id"], [t["token"] for t in sorted(created["taken"], key=lambda t: t["seat"])]))
                if len(made) % 1000 == 0:
                    say(f"{len(made)} games created, {time.monotonic() - started:.0f} s")

        share = [count // concurrency + (1 if i < count % concurrency else 0) for i in range(concurrency)]
        async with httpx.AsyncClient(base_url=self.url, timeout=120) as http:
            await asyncio.gather(*(worker(http, n) for n in share))
        return made

    async def open_sockets(self, games: list[tuple[str, list[str]]], concurrency: int = 25) -> list[ClientConnection]:
        """Both players of each game open it (a WebSocket each), and the one to move rolls."""
        opened: list[ClientConnection] = []
        ws_url = self.url.replace("http", "ws")

        async def seat(game_id: str, token: str) -> tuple[ClientConnection, dict[str, Any]]:
            for attempt in range(TRIES):
                try:
                    ws = await connect(f"{ws_url}/ws/games/{game_id}", additional_headers={"Authorization": f"Bearer {token}"},
                                       compression=None, max_size=2**20, open_timeout=60)
                    hello: dict[str, Any] = json.loads(await ws.recv())
                    opened.append(ws)
                    if len(opened) % 500 == 0:
                        say(f"{len(opened)} sockets open")
                    return ws, hello
                except (OSError, TimeoutError) as error:
                    self.alive()
                    if attempt == TRIES - 1:
                        raise RuntimeError(f"a socket could not be opened: {error}") from None
                    await asyncio.sleep(0.2 * 2**attempt)
            raise AssertionError("unreachable")

        async def one(game_id: str, tokens: list[str]) -> None:
            both = [await seat(game_id, token) for token in tokens]
            ws, hello = both[0]
            mover = hello["game"]["state"]["player"]
            ws = both[mover][0]
            await ws.send(json.dumps({"type": "action", "action": "roll", "version": hello["game"]["version"]}))
            for _ in range(20):  # the answer, past the updates and presence that both sockets are sent
                if json.loads(await ws.recv())["type"] in ("ok", "error"):
                    return

        for i in range(0, len(games), concurrency):
            await asyncio.gather(*(one(g, t) for g, t in games[i:i + concurrency]))
        return opened

    async def load(self, label: str) -> dict[str, Any]:
        assert self.server is not None
        say(f"load test {label}: {self.args.connections} clients, {self.args.seconds:g} s")
        cpu_start = cpu_seconds(self.server.pid)
        try:
            load, elapsed = await play(self.url, self.args.connections, self.args.seconds, self.args.pace, self.args.seed)
        except (OSError, TimeoutError) as error:  # a client could not connect: no figure of this test can be trusted
            self.alive()
            say(f"load test {label} failed: {error!r}")
            return {"label": label, "failed": repr(error)}
        cpu_end = cpu_seconds(self.server.pid)
        self.alive()
        found = latency(load, elapsed)
        # The server's own CPU per action: unlike the rates, it hardly moves with the machine's load.
        cpu = None if cpu_start is None or cpu_end is None or not found["actions"] else round((cpu_end - cpu_start) * 1000 / found["actions"], 3)
        return {"label": label, **found, "cpu_ms_per_action": cpu, "refused": dict(load.errors)}

    async def main(self) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        args = self.args
        stored = args.games - args.through_server
        say(f"writing {stored} turn-based games into the database")
        self.stored = stored_games(self.db, stored) if stored else []
        self.start()
        assert self.server is not None
        sockets: list[ClientConnection] = []
        try:
            async with httpx.AsyncClient(base_url=self.url) as http:
                await wait_until_up(http, self.server)
            base = await self.settled()
            loads = [await self.load("before")] if args.baseline else []
            settled_after_load = await self.settled() if args.baseline else base
            say(f"creating {args.through_server} turn-based games by the API")
            started = time.monotonic()
            games = await self.create_games(args.through_server) + self.stored
            created_in = time.monotonic() - started
            with_games = await self.settled()
            async with httpx.AsyncClient(base_url=self.url) as http:
                held_with_games = await held_games(http)
            say(f"RSS {with_games:.0f} MiB with the games ({settled_after_load:.0f} before), {held_with_games} held in memory")
            say(f"opening {args.active} games as their players ({2 * args.active} sockets)")
            sockets = await self.open_sockets(games[len(games) - args.active:])  # written into the database: read back when opened
            with_sockets = await self.settled()
            async with httpx.AsyncClient(base_url=self.url) as http:
                held_with_sockets = await held_games(http)
            say(f"RSS {with_sockets:.0f} MiB with the sockets, {held_with_sockets} held in memory")
            loads.append(await self.load(f"beside {args.games} waiting games, {args.active} of them open ({len(sockets)} sockets)"))
            still_open = sum(1 for ws in sockets if ws.state.name == "OPEN")
            peak = peak_mib(self.server.pid)
            end = rss_mib(self.server.pid)
        finally:
            for ws in sockets:
                await ws.close()
            self.server.terminate()
            self.server.wait(30)
        memory = {
            "games": args.games, "through_server": args.through_server, "sockets": len(sockets), "still_open": still_open, "base": base, "after_load": settled_after_load,
            "with_games": with_games, "with_sockets": with_sockets, "created_in": created_in, "peak": peak, "end": end,
            "held_with_games": held_with_games, "held_with_sockets": held_with_sockets,
            "per_game": (with_games - settled_after_load) * 1024 / args.games,
            "per_socket": (with_sockets - with_games) * 1024 / len(sockets) if sockets else 0.0,
        }
        return memory, loads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100_000, help="started turn-based games nobody plays")
    parser.add_argument("--through-server", type=int, default=10_000,
                        help="of them, games made by the API (the others are written into the database before the server starts)")
    parser.add_argument("--active", type=int, default=1_000, help="of them, games both players open (two WebSockets each) and move in")
    parser.add_argument("--connections", type=int, default=200, help="clients of the load test (two per game)")
    parser.add_argument("--seconds", type=float, default=60, help="how long each load test plays")
    parser.add_argument("--pace", type=float, default=10, help="most actions a second per client of the load test")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-baseline", dest="baseline", action="store_false", help="skip the load test before the idle games")
    parser.add_argument("--db", default=None, help="database URL (default: a temporary SQLite file)")
    args = parser.parse_args()
    args.through_server = min(args.through_server, args.games)
    args.active = min(args.active, args.games)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = 2 * args.active + args.connections + 1000
    if hard != resource.RLIM_INFINITY and hard < need:
        raise SystemExit(f"the open-file limit is {hard}; {need} are needed (raise it: ulimit -Hn)")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, need), hard))  # ours and the server's, which inherits it
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip() or "?"
    print(f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_implementation()} {platform.python_version()},"
          f" commit {commit}, load average {os.getloadavg()[0]:.1f} at the start, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    memory, loads = asyncio.run(Run(args).main())
    m = memory
    print(f"{m['through_server']} of the games made by the API, the others written into the database before the server started")
    print("| games | sockets | RSS at start MiB | after a load test | with the games | with the sockets | after the last load test | peak |"
          " KiB per game | KiB per socket | seconds to create the games |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    print(f"| {m['games']} | {m['sockets']} | {m['base']:.0f} | {m['after_load']:.0f} | {m['with_games']:.0f} | {m['with_sockets']:.0f} |"
          f" {m['end']:.0f} | {m['peak']:.0f} | {m['per_game']:.2f} | {m['per_socket']:.1f} | {m['created_in']:.0f} |")
    print(f"games held in memory: {m['held_with_games']} with the games, {m['held_with_sockets']} with the sockets")
    print(f"sockets still open after the last load test: {m['still_open']} of {m['sockets']}")
    print("| load test | actions | actions/s | p50 ms | p99 ms | server CPU ms/action | refused |")
    print("|---|---|---|---|---|---|---|")
    for r in loads:
        if "failed" in r:
            print(f"| {r['label']} | failed: {r['failed']} |||||")
            continue
        print(f"| {r['label']} | {r['actions']} | {r['actions_per_s']} | {r['p50_ms']} | {r['p99_ms']} | {r['cpu_ms_per_action']} | {r['refused'] or '-'} |")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    if any("failed" in r for r in loads):
        raise SystemExit("a load test failed: its figures are not given")


if __name__ == "__main__":
    main()
