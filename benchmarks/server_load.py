"""Server load: many bot-vs-bot games played by clients over WebSockets against a real server.

Run: `python benchmarks/server_load.py [--connections 200] [--seconds 60] [--db URL]`.
Starts `cantstop serve` on a free loopback port (a temporary SQLite file unless --db),
pairs the connections into 2-player games whose seats play random legal moves, each
client pacing itself like a quick person (at most --pace actions a second), and
replaces every finished game with a new one until the time is up. It reports
actions per second and the latency from sending an action to its acknowledgement,
then checks the stored events: every acknowledged action stored exactly once.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

from cantstop.core.record import Record
from cantstop.web.storage import Storage


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Load:
    def __init__(self, url: str, deadline: float, pace: float) -> None:
        self.url, self.deadline, self.pace = url, deadline, pace
        self.latencies: list[float] = []
        self.acks: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.games = 0

    async def pair(self, http: httpx.AsyncClient, rng: random.Random) -> None:
        """Two connections playing one game after another until the deadline."""
        while time.monotonic() < self.deadline:
            game_id = (await http.post("/api/games", json={"variant": "classic", "seats": ["open", "open"]})).json()["id"]
            tokens = [
                (await http.post(f"/api/games/{game_id}/join", json={"seat": s, "name": f"p{s}-{game_id[:6]}"})).json()["token"]
                for s in (0, 1)
            ]
            finished = await asyncio.gather(*(self.seat(game_id, s, tokens[s], rng) for s in (0, 1)))
            self.games += all(finished)

    async def seat(self, game_id: str, seat: int, token: str, rng: random.Random) -> bool:
        ws_url = self.url.replace("http", "ws") + f"/ws/games/{game_id}"
        async with connect(ws_url, additional_headers={"Authorization": f"Bearer {token}"}, max_size=2**20, compression=None) as ws:
            sent_at: float | None = None
            last_send = 0.0
            rolls = 0
            while True:
                remaining = self.deadline - time.monotonic()
                if remaining <= 0 and sent_at is None:
                    return False
                try:  # past the deadline, still wait for the answer to an action in flight
                    message = json.loads(await asyncio.wait_for(ws.recv(), max(remaining, 0) + 30))
                except TimeoutError:
                    return False
                if message["type"] == "ok" and sent_at is not None:
                    self.latencies.append(time.monotonic() - sent_at)
                    self.acks[game_id] += 1
                    sent_at = None
                    continue
                if message["type"] == "error":
                    self.errors[message["error"]] += 1
                    sent_at = None
                    continue
                if message["type"] not in ("hello", "update"):
                    continue
                game = message["game"]
                state = game["state"]
                if game["status"] == "over" or (state and state["winner"] is not None):
                    return True
                if state is None or state["player"] != seat or sent_at is not None or remaining <= 0:
                    continue
                if state["phase"] == "choose":
                    action: Any = rng.choice(state["legal"])
                elif state["phase"] == "decide" and rolls >= 2 and "stop" in state["legal"]:
                    action, rolls = "stop", 0
                else:
                    action, rolls = "roll", rolls + 1
                wait = last_send + 1 / self.pace - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                last_send = sent_at = time.monotonic()
                await ws.send(json.dumps({"type": "action", "version": game["version"], "action": action}))


def check(db: str, acks: Counter[str]) -> tuple[int, int, int]:
    """(games checked, actions stored, problems): stored events against acknowledgements."""
    storage = Storage(db)
    problems = stored = 0
    try:
        for game_id, acked in acks.items():
            meta = storage.game(game_id)
            events = storage.events(game_id)
            stored += len(events)
            if meta is None or meta.version != len(events) or len(events) != acked:
                problems += 1
                continue
            Record.final(meta.record(events))  # replays every event through the engine
    finally:
        storage.close()
    return len(acks), stored, problems


async def run(args: argparse.Namespace) -> dict[str, Any]:
    folder = tempfile.mkdtemp(prefix="cantstop-load-")
    db = args.db or f"sqlite:///{Path(folder) / 'load.sqlite3'}"
    port = free_port()
    url = args.url or f"http://127.0.0.1:{port}"
    cantstop = Path(sys.executable).with_name("cantstop")
    command = [str(cantstop), "serve", "--port", str(port), "--db", db]
    server = subprocess.Popen(["true"] if args.url else command, stdout=subprocess.DEVNULL)
    try:
        async with httpx.AsyncClient(base_url=url, timeout=30, limits=httpx.Limits(max_connections=50)) as http:
            for _ in range(200):
                try:
                    await http.get("/api/variants")
                    break
                except httpx.TransportError:
                    await asyncio.sleep(0.05)
            start = time.monotonic()
            load = Load(url, start + args.seconds, args.pace)
            rng = random.Random(args.seed)
            await asyncio.gather(*(load.pair(http, random.Random(rng.random())) for _ in range(args.connections // 2)))
            elapsed = time.monotonic() - start
    finally:
        server.terminate()
        server.wait(10)
    games, stored, problems = check(db, load.acks)
    lat = sorted(load.latencies)
    return {
        "connections": args.connections,
        "seconds": round(elapsed, 1),
        "actions": len(lat),
        "actions_per_s": round(len(lat) / elapsed, 1),
        "p50_ms": round(statistics.median(lat) * 1000, 1) if lat else None,
        "p99_ms": round(lat[int(len(lat) * 0.99) - 1] * 1000, 1) if lat else None,
        "games_finished": load.games,
        "games_checked": games,
        "events_stored": stored,
        "lost_or_duplicated": problems + abs(stored - len(lat)),
        "refused": dict(load.errors),
        "database": db.split(":")[0],
        "machine": f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--connections", type=int, default=200, help="WebSocket connections (two per game)")
    parser.add_argument("--seconds", type=float, default=60, help="how long to play (at most)")
    parser.add_argument("--pace", type=float, default=10, help="most actions a second per client")
    parser.add_argument("--db", default=None, help="SQLAlchemy URL (default: a temporary SQLite file)")
    parser.add_argument("--url", default=None, help="use a server already running there (with --db its database)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    result = asyncio.run(run(args))
    for key, value in result.items():
        print(f"{key:>20}: {value}")


if __name__ == "__main__":
    main()
