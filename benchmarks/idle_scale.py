"""Idle scale: what waiting costs one server process, and whether play stays quick beside it.

Run: `python benchmarks/idle_scale.py [--games 10000] [--sockets 2000] [--seconds 60]`.

It starts one `cantstop serve` process (a temporary SQLite file, or `--db URL`) and:

1. reads its resident memory (RSS) once it stops moving;
2. runs the load test of `web_load.py` (200 clients playing 100 games, `--seconds` long):
   the action latency of an idle server (skip it with `--no-baseline`);
3. creates `--games` turn-based games (a day a move), both seats taken at creation, so each
   is started and waits for its first move; reads the memory again;
4. opens `--sockets` WebSockets on them, as their players (each seat's token), two per game,
   so the server counts a player present in each; reads the memory a third time;
5. runs the same load test again beside the waiting games and open sockets.

It prints the memory per waiting game and per socket, and the load test's actions per
second, median and 99th-percentile latency, before and beside. The server's rate limits
and its cap on connections per address are raised out of the way, since every client comes
from this one address; the open-file limit is raised for both sides (each socket takes a
descriptor on each). Progress goes to standard error; if the server stops, the run says so
with the end of its log, which is kept in a file named at the start.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import resource
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


def say(text: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {text}", file=sys.stderr, flush=True)


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
                stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **LIMITS_AWAY},
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

    async def open_sockets(self, games: list[tuple[str, list[str]]], count: int, concurrency: int = 50) -> list[ClientConnection]:
        """`count` WebSockets, each a seat's player with its game open (two per game)."""
        seats = [(game_id, token) for game_id, tokens in games for token in tokens][:count]
        opened: list[ClientConnection] = []
        ws_url = self.url.replace("http", "ws")

        async def one(game_id: str, token: str) -> None:
            for attempt in range(TRIES):
                try:
                    ws = await connect(f"{ws_url}/ws/games/{game_id}", additional_headers={"Authorization": f"Bearer {token}"},
                                       compression=None, max_size=2**20, open_timeout=60)
                    await ws.recv()  # the hello
                    opened.append(ws)
                    if len(opened) % 500 == 0:
                        say(f"{len(opened)} sockets open")
                    return
                except (OSError, TimeoutError) as error:
                    self.alive()
                    if attempt == TRIES - 1:
                        raise RuntimeError(f"a socket could not be opened: {error}") from None
                    await asyncio.sleep(0.2 * 2**attempt)

        for i in range(0, len(seats), concurrency):
            await asyncio.gather(*(one(g, t) for g, t in seats[i:i + concurrency]))
        return opened

    async def load(self, label: str) -> dict[str, Any]:
        assert self.server is not None
        say(f"load test {label}: {self.args.connections} clients, {self.args.seconds:g} s")
        cpu_start = cpu_seconds(self.server.pid)
        load, elapsed = await play(self.url, self.args.connections, self.args.seconds, self.args.pace, self.args.seed)
        cpu_end = cpu_seconds(self.server.pid)
        self.alive()
        found = latency(load, elapsed)
        # The server's own CPU per action: unlike the rates, it hardly moves with the machine's load.
        cpu = None if cpu_start is None or cpu_end is None or not found["actions"] else round((cpu_end - cpu_start) * 1000 / found["actions"], 3)
        return {"label": label, **found, "cpu_ms_per_action": cpu, "refused": dict(load.errors)}

    async def main(self) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        args = self.args
        self.start()
        assert self.server is not None
        sockets: list[ClientConnection] = []
        try:
            async with httpx.AsyncClient(base_url=self.url) as http:
                await wait_until_up(http)
            base = await self.settled()
            loads = [await self.load("before")] if args.baseline else []
            settled_after_load = await self.settled() if args.baseline else base
            say(f"creating {args.games} turn-based games")
            started = time.monotonic()
            games = await self.create_games(args.games)
            created_in = time.monotonic() - started
            with_games = await self.settled()
            say(f"opening {args.sockets} sockets")
            sockets = await self.open_sockets(games, args.sockets)
            with_sockets = await self.settled()
            loads.append(await self.load(f"beside {args.games} waiting games and {len(sockets)} sockets"))
            still_open = sum(1 for ws in sockets if ws.state.name == "OPEN")
        finally:
            for ws in sockets:
                await ws.close()
            self.server.terminate()
            self.server.wait(30)
        memory = {
            "games": args.games, "sockets": len(sockets), "still_open": still_open, "base": base, "after_load": settled_after_load,
            "with_games": with_games, "with_sockets": with_sockets, "created_in": created_in,
            "per_game": (with_games - settled_after_load) * 1024 / args.games,
            "per_socket": (with_sockets - with_games) * 1024 / len(sockets) if sockets else 0.0,
        }
        return memory, loads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10_000, help="started turn-based games nobody plays")
    parser.add_argument("--sockets", type=int, default=2_000, help="WebSockets opened on them, two per game (at most twice --games)")
    parser.add_argument("--connections", type=int, default=200, help="clients of the load test (two per game)")
    parser.add_argument("--seconds", type=float, default=60, help="how long each load test plays")
    parser.add_argument("--pace", type=float, default=10, help="most actions a second per client of the load test")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-baseline", dest="baseline", action="store_false", help="skip the load test before the idle games")
    parser.add_argument("--db", default=None, help="database URL (default: a temporary SQLite file)")
    args = parser.parse_args()
    args.sockets = min(args.sockets, 2 * args.games)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = args.sockets + args.connections + 1000
    if hard != resource.RLIM_INFINITY and hard < need:
        raise SystemExit(f"the open-file limit is {hard}; {need} are needed (raise it: ulimit -Hn)")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, need), hard))  # ours and the server's, which inherits it
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip() or "?"
    print(f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_implementation()} {platform.python_version()},"
          f" commit {commit}, load average {os.getloadavg()[0]:.1f} at the start, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    memory, loads = asyncio.run(Run(args).main())
    m = memory
    print("| games | sockets | RSS at start MiB | after a load test | with the games | with the sockets | KiB per game | KiB per socket | seconds to create the games |")
    print("|---|---|---|---|---|---|---|---|---|")
    print(f"| {m['games']} | {m['sockets']} | {m['base']:.0f} | {m['after_load']:.0f} | {m['with_games']:.0f} | {m['with_sockets']:.0f} |"
          f" {m['per_game']:.1f} | {m['per_socket']:.1f} | {m['created_in']:.0f} |")
    print(f"sockets still open after the last load test: {m['still_open']} of {m['sockets']}")
    print("| load test | actions | actions/s | p50 ms | p99 ms | server CPU ms/action | refused |")
    print("|---|---|---|---|---|---|---|")
    for r in loads:
        print(f"| {r['label']} | {r['actions']} | {r['actions_per_s']} | {r['p50_ms']} | {r['p99_ms']} | {r['cpu_ms_per_action']} | {r['refused'] or '-'} |")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
