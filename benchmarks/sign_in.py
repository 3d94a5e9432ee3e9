"""Sign-in cost: argon2id alone at the server's parameters, and whole sign-ins over HTTP.

Run: `python benchmarks/sign_in.py [--count 200]`. Hashes and checks a password `--count`
times in this process, then starts `cantstop serve` on a free loopback port with a temporary
SQLite file, makes one account and signs in to it `--count` times one after another,
timing each request from sending to the answer. Target (issue 22): p99 <= 250 ms.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=200)
    args = parser.parse_args()
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
