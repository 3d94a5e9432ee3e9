"""Idle scale: the memory one server process spends per waiting game and per open socket.

Run: `python benchmarks/idle_scale.py [--games 10000] [--sockets 2000]`.
It starts `cantstop serve` on a temporary SQLite file, reads its resident memory (RSS),
creates --games two-player games whose seats are taken at creation (so each is started
and held in memory, its table built, nobody moving: a turn-based game waiting for its
players), reads the memory again, opens --sockets WebSockets on those games (as
spectators: each gets its hello and then waits), reads it a third time, and reports the
memory per game and per socket. The server's rate limits and its cap on connections per
address are raised out of the way, since every client comes from this one address.
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

import httpx
from websockets.asyncio.client import ClientConnection, connect

from web_load import LIMITS_AWAY, free_port


def rss_mib(pid: int) -> float:
    """Resident memory of a process (Linux /proc), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc (Linux only)")


async def settled(pid: int) -> float:
    """RSS once it stops moving (the server finishes what the last requests set off)."""
    last = rss_mib(pid)
    for _ in range(20):
        await asyncio.sleep(1)
        now = rss_mib(pid)
        if abs(now - last) < 0.5:
            return now
        last = now
    return last


async def create_games(http: httpx.AsyncClient, count: int, concurrency: int = 16) -> list[str]:
    ids: list[str] = []
    body = {"variant": "classic", "seats": ["open", "open"], "take": [{"seat": 0, "name": "Ann"}, {"seat": 1, "name": "Bob"}]}

    async def worker(n: int) -> None:
        for _ in range(n):
            response = await http.post("/api/games", json=body)
            response.raise_for_status()
            ids.append(response.json()["id"])

    share = [count // concurrency + (1 if i < count % concurrency else 0) for i in range(concurrency)]
    await asyncio.gather(*(worker(n) for n in share))
    return ids


async def open_sockets(url: str, game_ids: list[str], count: int) -> list[ClientConnection]:
    sockets: list[ClientConnection] = []
    ws_url = url.replace("http", "ws")
    for i in range(count):
        ws = await connect(f"{ws_url}/ws/games/{game_ids[i % len(game_ids)]}", compression=None, max_size=2**20)
        await ws.recv()  # the hello
        sockets.append(ws)
    return sockets


async def run(args: argparse.Namespace) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, args.sockets + 1000)), hard))  # ours and the server's
    folder = tempfile.mkdtemp(prefix="cantstop-idle-")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    cantstop = Path(sys.executable).with_name("cantstop")
    server = subprocess.Popen(
        [str(cantstop), "serve", "--port", str(port), "--db", f"sqlite:///{Path(folder) / 'idle.sqlite3'}"],
        stdout=subprocess.DEVNULL, env={**os.environ, **LIMITS_AWAY},
    )
    try:
        async with httpx.AsyncClient(base_url=url, timeout=60) as http:
            for _ in range(600):
                try:
                    await http.get("/healthz")
                    break
                except httpx.TransportError:
                    await asyncio.sleep(0.05)
            base = await settled(server.pid)
            started = time.monotonic()
            game_ids = await create_games(http, args.games)
            created_in = time.monotonic() - started
            with_games = await settled(server.pid)
        sockets = await open_sockets(url, game_ids, args.sockets)
        with_sockets = await settled(server.pid)
        for ws in sockets:
            await ws.close()
    finally:
        server.terminate()
        server.wait(30)
    per_game = (with_games - base) * 1024 / args.games
    per_socket = (with_sockets - with_games) * 1024 / args.sockets if args.sockets else 0.0
    print(f"| {args.games} | {args.sockets} | {base:.0f} | {with_games:.0f} | {with_sockets:.0f} | {per_game:.1f} | {per_socket:.1f} | {created_in:.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10_000, help="started games nobody plays")
    parser.add_argument("--sockets", type=int, default=2_000, help="WebSockets opened on them")
    args = parser.parse_args()
    print(f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_implementation()} {platform.python_version()},"
          f" load average {os.getloadavg()[0]:.1f} at the start, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print("| games | sockets | RSS at start MiB | with the games MiB | with the sockets MiB | KiB per game | KiB per socket | seconds to create the games |")
    print("|---|---|---|---|---|---|---|---|")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
