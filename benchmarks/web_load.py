"""Web load: many games played by clients over WebSockets against a real server, on SQLite
and on PostgreSQL in one run.

Run: `python benchmarks/web_load.py [--connections 200] [--seconds 60] [--only sqlite|postgresql] [--pg URL]
[--accounts] [--sign-ins 200] [--analyses 20 --spell 12]`.
For each database it starts `cantstop serve` on a free loopback port (a temporary SQLite
file; for PostgreSQL `--pg URL`, else a throwaway server started the way the tests start
one), pairs the connections into 2-player games whose seats play random legal moves, each
client pacing itself like a quick person (at most --pace actions a second), and replaces
every finished game with a new one until the time is up. It reports actions per second
and the latency from sending an action to its acknowledgement, then checks the stored
events: every acknowledged action stored exactly once.

With `--accounts` every client is a signed-in person (an account made before the timing
starts): the games are rated, created and joined with the session cookie and its CSRF
token, the WebSockets signed in by the cookie, and each finished game rated (the repeated
pairs' weights included). With `--sign-ins N` each database is run twice: once without
sign-ins (the figures above), then with N sign-ins a minute beside the load
(`sign_in.py`'s stream, from a process of its own: argon2id on the server) in alternate
spells of `--spell` seconds after a 5 s start. The sign-ins' effect is read inside that
second run: the action p99 of actions sent during the spells of sign-ins against that of
actions sent between them once every sign-in had answered. Run against run, the p99
moves by some 20 ms with no change at all (a set-up wave of games, the machine), as much
as the effect to be measured; spells in one run put both sides under the same conditions.

With `--analyses N` each database is run once more, with N game analyses a minute beside the
load, in spells, measured the same way (`analyses_beside.py`'s stream, from a process of its
own). Before the timing the server's bots play enough classic games to the end (its bots move
without delay; the load's games have none) and it analyses no game as it ends
(CANTSTOP_ANALYSE_AFTER=none), so that the stream alone decides how many are analysed: each
request asks for a game not analysed yet, a whole analysis in the server's analysis process,
and asks again while the answer is 202. An analysis takes a second or more: spells of 12 s
or so (`--spell 12`) hold a few each.

All clients come from one address, so the server's per-address rate limits and its cap
on connections per address are raised far out of the way (not switched off: their cost
per action is part of the figure).
The clients run on the same machine as the server: on a small machine they take a good
share of the CPU, so the figures are a floor. Targets (issue 16): SQLite >= 1,000
actions/s with p99 <= 100 ms; PostgreSQL >= 800 actions/s with p99 <= 150 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import multiprocessing
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from http.cookiejar import CookieJar, DefaultCookiePolicy
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

try:  # the clients' own event loop, as light as the server's (uvicorn's "standard" extra brings it)
    from uvloop import new_event_loop
except ImportError:  # not on Windows: the standard loop, and the clients take more of the machine
    from asyncio import new_event_loop

from cantstop.core.record import Record
from cantstop.web.db.storage import Storage

sys.path.insert(0, str(Path(__file__).resolve().parent))
from analyses_beside import Analyses, analyses_in_process, finished_games  # scripts beside this one
from sign_in import SignIns, Spells, make_accounts, sign_ins_in_process

PASSWORD = "a passphrase for the load run"


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def post(http: httpx.AsyncClient, path: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> Any:
    """POST, trying again when a kept-alive connection was closed by the server just then."""
    for _ in range(4):
        try:
            return (await http.post(path, json=body, headers=headers)).json()
        except httpx.TransportError:
            await asyncio.sleep(0.1)
    return (await http.post(path, json=body, headers=headers)).json()  # the last try lets its error through


async def signed_up(url: str, name: str) -> dict[str, str]:
    """A new account's headers for every request it makes: its session cookie, and the CSRF
    token a change needs (the shared client keeps no cookies between people)."""
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        (await http.post("/api/account/sign-up", json={"name": name, "password": PASSWORD})).raise_for_status()
        session, token = http.cookies["cantstop_session"], http.cookies["cantstop_csrf"]
    return {"Cookie": f"cantstop_session={session}; cantstop_csrf={token}", "X-CSRF-Token": token}


def pick(state: dict[str, Any], rolls: int, rng: random.Random) -> tuple[Any, int]:
    """A quick player's move, and the rolls of the turn after it: after a roll a random
    choice, then roll again until two rolls are made, then stop."""
    if state["phase"] == "choose":
        return rng.choice(state["legal"]), rolls
    if state["phase"] == "decide" and rolls >= 2 and "stop" in state["legal"]:
        return "stop", 0
    return "roll", rolls + 1


class Load:
    def __init__(self, url: str, deadline: float, pace: float) -> None:
        self.url, self.deadline, self.pace = url, deadline, pace
        self.latencies: list[float] = []
        self.sent: list[float] = []  # when each of those actions was sent (`time.monotonic()`)
        self.acks: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.games = 0

    async def pair(self, http: httpx.AsyncClient, rng: random.Random, people: tuple[dict[str, str], dict[str, str]] | None) -> None:
        """Two connections playing one game after another until the deadline: guests with a
        seat token each, or (`people`) two signed-in accounts playing rated games."""
        while time.monotonic() < self.deadline:
            if people is None:
                game_id = (await post(http, "/api/games", {"variant": "classic", "seats": ["open", "open"]}))["id"]
                joins = [await post(http, f"/api/games/{game_id}/join", {"seat": s, "name": f"p{s}-{game_id[:6]}"}) for s in (0, 1)]
                auths = [{"Authorization": f"Bearer {joined['token']}"} for joined in joins]
            else:
                made = await post(http, "/api/games", {"variant": "classic", "seats": ["open", "open"], "rated": True, "take": [{"seat": 0}]}, people[0])
                game_id = made["id"]
                await post(http, f"/api/games/{game_id}/join", {"seat": 1}, people[1])
                auths = [{"Cookie": person["Cookie"]} for person in people]  # the account's seat, by its session
            finished = await asyncio.gather(*(self.seat(game_id, s, auths[s], rng) for s in (0, 1)))
            self.games += all(finished)

    async def seat(self, game_id: str, seat: int, auth: dict[str, str], rng: random.Random) -> bool:
        ws_url = self.url.replace("http", "ws") + f"/ws/games/{game_id}"
        async with connect(ws_url, additional_headers=auth, max_size=2**20, compression=None, open_timeout=60) as ws:
            sent_at: float | None = None
            last_send = 0.0
            rolls = 0
            while True:
                remaining = self.deadline - time.monotonic()
                if remaining <= 0 and sent_at is None:
                    return False
                try:  # past the deadline, still wait for the answer to an action in flight
                    async with asyncio.timeout(max(remaining, 0) + 30):  # wait_for costs a task per message
                        text = await ws.recv()
                    message = json.loads(text)
                except TimeoutError:
                    return False
                if message["type"] == "ok" and sent_at is not None:
                    self.latencies.append(time.monotonic() - sent_at)
                    self.sent.append(sent_at)
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
                action, rolls = pick(state, rolls, rng)
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
            moves = storage.events(game_id)
            stored += len(moves)
            if meta is None or meta.version != len(moves) or len(moves) != acked or any(m.out_of_band for m in moves):
                problems += 1
                continue
            Record.final(meta.record([m.event for m in moves]))  # replays every move through the engine
    finally:
        storage.close()
    return len(acks), stored, problems


TARGETS = {"sqlite": (1000, 100), "postgresql": (800, 150)}  # actions/s at least, p99 ms at most
SPELLS_AFTER = 5.0  # seconds: the first wave of games being set up, in neither side of the comparison

LIMITS_AWAY = {
    **{f"CANTSTOP_RATE_{what}": "1000000/second" for what in ("CREATE", "JOIN", "ACTION", "CHAT", "ANALYSIS")},
    "CANTSTOP_SOCKET_RATE": "0",
    "CANTSTOP_CONNECTIONS_PER_ADDRESS": "1000000",  # the connection guard's cap, as high as the rates
}


def cpu_seconds(pid: int) -> float | None:
    """CPU time a process has used (Linux /proc), or None where that cannot be read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def throwaway_postgres() -> str:
    """A private PostgreSQL (Debian's binaries, else the pgserver wheel), as the tests start one."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "web"))
    from web_helpers import postgres_url

    return str(postgres_url())


def fresh_schema(url: str) -> str:
    """A new empty schema in that database, so that each run starts from nothing."""
    from sqlalchemy import create_engine, text

    schema = f"load_{int(time.time())}_{random.randrange(10**6)}"
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    engine.dispose()
    return f"{url}{'&' if '?' in url else '?'}options=-csearch_path%3D{schema}"


async def wait_until_up(http: httpx.AsyncClient, server: subprocess.Popen[bytes] | None = None) -> None:
    """Until the server answers: 30 s at most or, given its process, as long as that runs
    (under valgrind a start takes minutes)."""
    tries = 0
    while (server.poll() is None) if server is not None else tries < 600:
        try:
            await http.get("/healthz")
            return
        except httpx.TransportError:
            tries += 1
            await asyncio.sleep(0.05)
    raise RuntimeError("the server did not come up")


People = tuple[dict[str, str], dict[str, str]]  # two signed-in accounts' headers


async def play(
    url: str, connections: int, seconds: float, pace: float, seed: int, pairs: list[People] | None = None,
) -> tuple[Load, float]:
    """`connections` clients (two per game) playing for `seconds`, guests, or the signed-in
    `pairs` (one pair a game); the load and the seconds it took."""
    # One client for every game's requests; it keeps no cookies: each request names its person's
    # (a jar would only be searched on every request, the client's costliest step after JSON).
    nobody = CookieJar(DefaultCookiePolicy(allowed_domains=[]))
    async with httpx.AsyncClient(base_url=url, timeout=30, limits=httpx.Limits(max_connections=50), cookies=nobody) as client:
        await wait_until_up(client)
        start = time.monotonic()
        load = Load(url, start + seconds, pace)
        rng = random.Random(seed)
        seated: list[People | None] = list(pairs) if pairs else [None] * (connections // 2)
        await asyncio.gather(*(load.pair(client, random.Random(rng.random()), people) for people in seated))
        return load, time.monotonic() - start


def p99_ms(seconds: list[float]) -> float | None:
    ordered = sorted(seconds)
    return round(ordered[int(len(ordered) * 0.99) - 1] * 1000, 1) if ordered else None


def latency(load: Load, elapsed: float) -> dict[str, Any]:
    """Actions, their rate, and the median and 99th percentile of their latency."""
    lat = load.latencies
    return {
        "actions": len(lat),
        "actions_per_s": round(len(lat) / elapsed, 1),
        "p50_ms": round(statistics.median(lat) * 1000, 1) if lat else None,
        "p99_ms": p99_ms(lat),
    }


def by_spell(load: Load, stream: SignIns | Analyses, spells: Spells) -> dict[str, Any]:
    """The action p99 during the spells of sign-ins (or analyses), and between them: from the
    moment every one sent before had answered (its hash, or its analysis, done) to the next spell."""
    assert spells.length is not None
    during: list[float] = []
    between: list[float] = []
    settled: dict[int, float] = {}  # a gap between spells: when the last sign-in sent before it answered
    for sent, took in zip(load.sent, load.latencies, strict=True):
        spell = spells.spell(sent)
        if spell < 0:
            continue
        if spell % 2 == 0:
            during.append(took)
            continue
        if spell not in settled:
            began = spells.begin + spells.warm + spell * spells.length
            settled[spell] = max((done for asked, done in stream.answered if asked < began), default=began)
        if sent >= settled[spell]:
            between.append(took)
    return {"actions_during": len(during), "p99_during_ms": p99_ms(during), "actions_between": len(between), "p99_between_ms": p99_ms(between)}


async def run(args: argparse.Namespace, db: str, sign_ins: float = 0, analyses: float = 0) -> dict[str, Any]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    cantstop = Path(sys.executable).with_name("cantstop")
    command = [str(cantstop), "serve", "--port", str(port), "--db", db, *(["--bot-delay", "0"] if analyses else [])]
    env = {**os.environ, **LIMITS_AWAY, **({"CANTSTOP_ANALYSE_AFTER": "none"} if analyses else {})}
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, env=env)
    signing = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) if sign_ins or analyses else None
    try:
        async with httpx.AsyncClient(base_url=url) as http:
            await wait_until_up(http)
        pairs: list[People] | None = None
        if args.accounts:  # made before the timing: each sign-up hashes a password
            tag = random.randrange(10**6)
            made = await asyncio.gather(*(signed_up(url, f"load {tag} {i}") for i in range(2 * (args.connections // 2))))
            pairs = [(made[2 * i], made[2 * i + 1]) for i in range(args.connections // 2)]
        signers = await make_accounts(url, 10) if sign_ins else []
        to_analyse = await finished_games(url, math.ceil(analyses * args.seconds / 60) + 2) if analyses else []
        # The sign-ins come from a process of their own, as they would from other people's
        # machines: on the game clients' event loop each one (a new client, a connection, the
        # answer) held that loop for milliseconds, and the acknowledgements waiting behind it
        # were counted as the server's latency. Started before the timing.
        loop = asyncio.get_running_loop()
        if signing is not None:
            await loop.run_in_executor(signing, int)
        cpu_start, own_start = cpu_seconds(server.pid), time.process_time()
        spells = Spells(time.monotonic(), SPELLS_AFTER, args.spell)
        beside: asyncio.Future[SignIns] | asyncio.Future[Analyses] | None = None
        if sign_ins:
            beside = loop.run_in_executor(signing, sign_ins_in_process, url, signers, sign_ins, args.seconds, spells)
        elif analyses:
            beside = loop.run_in_executor(signing, analyses_in_process, url, to_analyse, analyses, args.seconds, spells)
        load, elapsed = await play(url, args.connections, args.seconds, args.pace, args.seed, pairs)
        cpu_end, own_end = cpu_seconds(server.pid), time.process_time()
        stream = await beside if beside is not None else None
        took = sorted(done - sent for sent, done in stream.answered) if stream is not None else []
    finally:
        if signing is not None:
            signing.shutdown(cancel_futures=True)
        server.terminate()
        server.wait(10)
    games, stored, problems = check(db, load.acks)
    lat = load.latencies
    return {
        "database": db.split(":")[0].split("+")[0],
        "connections": args.connections,
        "seconds": round(elapsed, 1),
        **latency(load, elapsed),
        # The server's own CPU per action: unlike the rates, it hardly moves with the machine's load.
        "cpu_ms_per_action": round((cpu_end - cpu_start) * 1000 / len(lat), 3) if lat and cpu_start is not None and cpu_end is not None else None,
        # The clients' CPU per action: they share the machine with the server and take from it.
        "client_cpu_ms_per_action": round((own_end - own_start) * 1000 / len(lat), 3) if lat else None,
        "games_finished": load.games,
        "games_checked": games,
        "lost_or_duplicated": problems + abs(stored - len(lat)),
        "refused": {
            **dict(load.errors),
            **({"sign_in_throttled": stream.throttled} if isinstance(stream, SignIns) and stream.throttled else {}),
            **({"analysis_refused": stream.refused} if isinstance(stream, Analyses) and stream.refused else {}),
        },
        "accounts": args.accounts,
        "sign_ins_per_minute": sign_ins,
        "sign_ins": len(took) if sign_ins else 0,
        "sign_in_p99_ms": p99_ms(took) if sign_ins else None,
        "analyses_per_minute": analyses,
        "analyses": len(took) if analyses else 0,
        "analysis_median_s": round(statistics.median(took), 1) if analyses and took else None,
        **(by_spell(load, stream, spells) if stream is not None else {}),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--connections", type=int, default=200, help="WebSocket connections (two per game)")
    parser.add_argument("--seconds", type=float, default=60, help="how long to play on each database (at most)")
    parser.add_argument("--pace", type=float, default=10, help="most actions a second per client")
    parser.add_argument("--only", choices=("sqlite", "postgresql"), help="one database instead of both")
    parser.add_argument("--pg", default=None, help="PostgreSQL URL (default: a throwaway server; a fresh schema in it either way)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--accounts", action="store_true", help="signed-in clients playing rated games (accounts made before the timing)")
    parser.add_argument("--sign-ins", type=float, default=0, metavar="PER_MINUTE",
                        help="run each database twice: without, then with this many sign-ins a minute beside the load, in spells")
    parser.add_argument("--analyses", type=float, default=0, metavar="PER_MINUTE",
                        help="run each database once more, with this many game analyses a minute beside the load, in spells")
    parser.add_argument("--spell", type=float, default=4, metavar="SECONDS",
                        help="with --sign-ins or --analyses: how long each spell of them, and each gap between them, lasts")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="cantstop-load-")
    print(f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_implementation()} {platform.python_version()},"
          f" load average {os.getloadavg()[0]:.1f} at the start, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    results = []
    for name in ("sqlite", "postgresql"):
        if args.only not in (None, name):
            continue
        db = f"sqlite:///{Path(folder) / 'load.sqlite3'}" if name == "sqlite" else fresh_schema(args.pg or throwaway_postgres())
        runs = [(0.0, 0.0), *([(args.sign_ins, 0.0)] if args.sign_ins else []), *([(0.0, args.analyses)] if args.analyses else [])]
        for sign_ins, analyses in runs:
            extra = "sign-ins" if sign_ins else "analyses" if analyses else ""
            if extra and name == "postgresql":
                db = fresh_schema(args.pg or throwaway_postgres())  # each run from nothing
            elif extra:
                db = f"sqlite:///{Path(folder) / f'load-{extra}.sqlite3'}"
            with asyncio.Runner(loop_factory=new_event_loop) as runner:
                results.append(runner.run(run(args, db, sign_ins, analyses)))
            print(f"  {name}{f' with {extra}' if extra else ''}: done, load average {os.getloadavg()[0]:.1f}", flush=True)
    print("| database | clients | beside | seconds | actions | actions/s | p50 ms | p99 ms | sign-in p99 ms | analyses (median s) |"
          " server CPU ms/action | client CPU ms/action | games | lost or duplicated | refused | target |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        rate, p99 = TARGETS[r["database"]]
        met = "met" if r["actions_per_s"] >= rate and (r["p99_ms"] or 1e9) <= p99 else "missed"
        clients = f"{r['connections']} {'signed in' if r['accounts'] else 'guests'}"
        beside = (f"{r['sign_ins_per_minute']:g} sign-ins/min" if r["sign_ins_per_minute"] else f"{r['analyses_per_minute']:g} analyses/min"
                  if r["analyses_per_minute"] else "-") + (f" in {args.spell:g} s spells" if r["sign_ins_per_minute"] or r["analyses_per_minute"] else "")
        analysed = f"{r['analyses']} ({r['analysis_median_s']})" if r["analyses_per_minute"] else "-"
        print(f"| {r['database']} | {clients} | {beside} | {r['seconds']} | {r['actions']} | {r['actions_per_s']} | {r['p50_ms']} |"
              f" {r['p99_ms']} | {r['sign_in_p99_ms'] or '-'} | {analysed} | {r['cpu_ms_per_action']} | {r['client_cpu_ms_per_action']} |"
              f" {r['games_finished']} | {r['lost_or_duplicated']} | {r['refused'] or '-'} | >= {rate}/s, p99 <= {p99} ms: {met} |")
    for r in results:
        what = "sign-ins" if r["sign_ins_per_minute"] else "analyses" if r["analyses_per_minute"] else None
        if what is None:
            continue
        moved = (r["p99_during_ms"] or 0) - (r["p99_between_ms"] or 0)
        target = " (target: at most +20 ms)" if what == "sign-ins" else ""
        per_minute = r["sign_ins_per_minute"] or r["analyses_per_minute"]
        print(f"{r['database']}: {per_minute:g} {what} a minute moved the action p99 by {moved:+.1f} ms{target}:"
              f" {r['p99_during_ms']} ms over {r['actions_during']} actions sent during the spells of {what},"
              f" {r['p99_between_ms']} ms over {r['actions_between']} sent between them, once every one of them had answered;"
              f" the run's own p99 against the target: {r['p99_ms']} ms")


if __name__ == "__main__":
    main()
