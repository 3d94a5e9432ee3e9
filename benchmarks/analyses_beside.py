"""Game analyses beside another load: finished games made to analyse, and a steady stream of
requests for their analyses.

`benchmarks/web_load.py --analyses 20` runs the stream in a process of its own beside its game
clients, in spells, and reports the action p99 during and between them (the way it measures
sign-ins). Each request asks for a game not analysed yet, so each is a whole analysis in the
server's analysis process: the server answers 202 while it computes, and the request asks
again after Retry-After, as the game page does, until the analysis comes.
"""

from __future__ import annotations

import asyncio
import time
from typing import NamedTuple

import httpx

from sign_in import Spells  # a script beside this one

BOTS = ["bot:rule28", "bot:expert"]  # a classic game of 20 to 30 turns: about a second of analysis


class Analyses(NamedTuple):
    answered: list[tuple[float, float]]  # (sent, answered with the analysis) as `time.monotonic()`
    refused: int  # answered anything but 200 or 202 (the server's reason is counted, not timed)


async def finished_games(url: str, count: int, most: float = 600) -> list[str]:
    """`count` classic games between two bots, played to their end on the server (whose bots
    must move without delay: `cantstop serve --bot-delay 0`), before any timing."""
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        made = [(await http.post("/api/games", json={"variant": "classic", "seats": BOTS})).json()["id"] for _ in range(count)]
        deadline = time.monotonic() + most
        waiting = set(made)
        while waiting:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{len(waiting)} of the bots' games did not end in {most:g} s")
            for game_id in list(waiting):
                if (await http.get(f"/api/games/{game_id}")).json()["status"] == "over":
                    waiting.discard(game_id)
            await asyncio.sleep(0.5)
    return made


async def analyses_beside(url: str, games: list[str], per_minute: float, seconds: float, spells: Spells) -> Analyses:
    """Ask for the analysis of one more of `games` `per_minute` times a minute for `seconds`
    (in the `spells` that are on), each on time whether or not the last has come."""
    answered: list[tuple[float, float]] = []
    refused = 0
    gap = 60.0 / per_minute

    async def one(game_id: str) -> None:
        nonlocal refused
        async with httpx.AsyncClient(base_url=url, timeout=120) as http:
            sent = time.monotonic()
            for _ in range(300):  # a page asks again while the answer is 202
                answer = await http.get(f"/api/games/{game_id}/analysis")
                if answer.status_code != 202:
                    break
                await asyncio.sleep(float(answer.headers.get("retry-after", "2")))
            if answer.status_code != 200:
                refused += 1
                return
            answered.append((sent, time.monotonic()))

    tasks = []
    for k in range(int(seconds / gap)):
        at = spells.begin + k * gap
        if spells.on(at):
            if len(tasks) >= len(games):
                raise RuntimeError(f"only {len(games)} finished games were made for the stream: make more")
            await asyncio.sleep(max(0.0, at - time.monotonic()))
            tasks.append(asyncio.create_task(one(games[len(tasks)])))
    await asyncio.gather(*tasks)
    return Analyses(answered, refused)


def analyses_in_process(url: str, games: list[str], per_minute: float, seconds: float, spells: Spells) -> Analyses:
    """`analyses_beside` on an event loop of its own: web_load.py runs it in another process."""
    return asyncio.run(analyses_beside(url, games, per_minute, seconds, spells))
