"""Sign-in cost: argon2id alone at the server's parameters, whole sign-ins over HTTP, and a
steady stream of sign-ins beside another load.

Run: `python benchmarks/sign_in.py [--count 200]`. Hashes and checks a password `--count`
times in this process, then starts `cantstop serve` on a free loopback port with a temporary
SQLite file, makes one account and signs in to it `--count` times one after another,
timing each request from sending to the answer. Target (issue 22): p99 <= 250 ms.

Beside a load: `python benchmarks/sign_in.py --url http://HOST:PORT --per-minute 200
--seconds 60` signs in at that steady rate (each on time, whether or not the last one has
answered) to a server that is already running, and reports the sign-ins' latency.
`benchmarks/web_load.py --sign-ins 200` runs the same stream in a process of its own
beside its game clients, in spells, and reports the action p99 during and between them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

import httpx

from cantstop.web.identity.passwords import HASHER, MEMORY_KIB, PARALLELISM, TIME_COST

PASSWORD = "a passphrase for the timing run"


def summary(label: str, seconds: list[float]) -> str:
    ms = sorted(s * 1000 for s in seconds)
    p99 = ms[min(len(ms) - 1, round(0.99 * (len(ms) - 1)))]
    return f"{label}: median {statistics.median(ms):.1f} ms, p99 {p99:.1f} ms, max {ms[-1]:.1f} ms over {len(ms)}"


def timed(action: object, count: int) -> list[float]:
    times = []
    for _ in range(count):
        start = time.perf_counter()
        action()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return times


async def make_accounts(url: str, count: int) -> list[str]:
    """`count` new accounts to sign in to (made before any timing: a sign-up hashes too)."""
    tag = random.randrange(10**6)
    names = [f"signer {tag} {i}" for i in range(count)]
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        for name in names:
            (await http.post("/api/account/sign-up", json={"name": name, "password": PASSWORD})).raise_for_status()
    return names


# One TLS context for every client the stream opens. A client of its own makes one (the
# system's certificates read again) unless handed one: some 40 ms of this process's event
# loop each time, which web_load.py's game clients, on the same loop, counted as the
# server's latency.
TLS = ssl.create_default_context()


class Spells(NamedTuple):
    """When a stream signs in: after `warm` seconds from `begin` (a `time.monotonic()`),
    `length` seconds on, `length` off, and so on; always, without `length`."""
    begin: float
    warm: float = 0.0
    length: float | None = None

    def spell(self, at: float) -> int:
        """Which spell the moment `at` falls in (-1 before the warm-up ends): even ones on."""
        since = at - self.begin - self.warm
        return -1 if since < 0 else (0 if self.length is None else int(since // self.length))

    def on(self, at: float) -> bool:
        return self.spell(at) % 2 == 0


class SignIns(NamedTuple):
    answered: list[tuple[float, float]]  # (sent, answered) of those the server let in, as `time.monotonic()`
    throttled: int  # answered 429: the server's throttle, as sign-ins piled up from one address

    @property
    def times(self) -> list[float]:
        """Each sign-in's seconds, of those the server let in."""
        return [done - sent for sent, done in self.answered]


async def sign_ins_beside(url: str, names: list[str], per_minute: float, seconds: float, spells: Spells | None = None) -> SignIns:
    """Sign in at `per_minute` a minute for `seconds` (in the `spells` that are on), each on
    time whether or not the last has answered (as many people would), cycling through
    `names`. All come from one address, so when they pile up (a machine too busy to hash as
    fast as they come) the server's throttle refuses some: they are counted, not timed."""
    answered: list[tuple[float, float]] = []
    throttled = 0
    gap = 60.0 / per_minute
    spells = spells or Spells(time.monotonic())

    async def one(name: str) -> None:
        nonlocal throttled
        async with httpx.AsyncClient(base_url=url, timeout=60, verify=TLS) as http:  # a browser of its own, not signed in
            sent = time.monotonic()
            answer = await http.post("/api/account/sign-in", json={"name": name, "password": PASSWORD})
            if answer.status_code == 429:
                throttled += 1
                return
            answer.raise_for_status()
            answered.append((sent, time.monotonic()))

    tasks = []
    for k in range(int(seconds / gap)):
        at = spells.begin + k * gap
        if spells.on(at):
            await asyncio.sleep(max(0.0, at - time.monotonic()))
            tasks.append(asyncio.create_task(one(names[len(tasks) % len(names)])))
    await asyncio.gather(*tasks)
    return SignIns(answered, throttled)


def sign_ins_in_process(url: str, names: list[str], per_minute: float, seconds: float, spells: Spells) -> SignIns:
    """`sign_ins_beside` on an event loop of its own: web_load.py runs it in another process."""
    return asyncio.run(sign_ins_beside(url, names, per_minute, seconds, spells))


def beside(args: argparse.Namespace) -> None:
    names = asyncio.run(make_accounts(args.url, 10))
    print(f"{args.per_minute:g} sign-ins a minute for {args.seconds:g} s; load average {os.getloadavg()[0]:.1f}")
    done = asyncio.run(sign_ins_beside(args.url, names, args.per_minute, args.seconds))
    print(summary("sign-in beside the load", done.times))
    print(f"throttled (429): {done.throttled}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--url", help="a running server to sign in to at a steady rate (beside its load) instead")
    parser.add_argument("--per-minute", type=float, default=200, help="with --url: sign-ins a minute")
    parser.add_argument("--seconds", type=float, default=60, help="with --url: for how long")
    args = parser.parse_args()
    if args.url:
        beside(args)
        return
    print(f"argon2id t={TIME_COST} m={MEMORY_KIB} KiB p={PARALLELISM}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    stored = HASHER.hash(PASSWORD)
    print(summary("hash", timed(lambda: HASHER.hash(PASSWORD), args.count)))
    cpu = time.process_time()
    print(summary("verify", timed(lambda: HASHER.verify(stored, PASSWORD), args.count)))
    # CPU time depends far less than wall time on what else the machine runs.
    print(f"verify: {(time.process_time() - cpu) / args.count * 1000:.1f} ms of CPU each")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    folder = Path(tempfile.mkdtemp(prefix="cantstop-sign-in-"))
    cantstop = Path(sys.executable).with_name("cantstop")
    server = subprocess.Popen([str(cantstop), "serve", "--port", str(port), "--db", f"sqlite:///{folder / 'b.sqlite3'}"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                httpx.get(url + "/api/variants", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.05)
        with httpx.Client(base_url=url) as client:
            client.post("/api/account/sign-up", json={"name": "Bench", "password": PASSWORD}).raise_for_status()

            def sign_in() -> None:
                client.cookies.clear()
                client.post("/api/account/sign-in", json={"name": "Bench", "password": PASSWORD}).raise_for_status()

            print(summary("sign-in over HTTP", timed(sign_in, args.count)))
            print(f"load average after: {os.getloadavg()[0]:.1f}")
    finally:
        server.kill()
        server.wait()


if __name__ == "__main__":
    main()
