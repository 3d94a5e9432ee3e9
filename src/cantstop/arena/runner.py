"""A whole match: games across worker processes, results gathered in schedule order.

Every game's outcome depends only on (seed, deal, seat order): the dice are
addressed by deal and turn, each bot's random source is seeded per game and seat,
and results are consumed in the schedule's order. So the tables, records and the
point where a sequential test stops are the same whatever the number of jobs.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
from collections import Counter
from collections.abc import Callable, Generator
from dataclasses import asdict, dataclass, field
from multiprocessing.util import Finalize
from pathlib import Path
from types import FrameType
from typing import Any

from cantstop.arena.match import GameResult, MatchSpec, play_game
from cantstop.arena.player import COMMAND_PREFIX, close_players, make_players
from cantstop.arena.schedule import Task, schedule
from cantstop.arena.sprt import Sprt, llr, pair_class
from cantstop.arena.stats import Fit, bradley_terry, connected, wilson
from cantstop.bots import get_bot
from cantstop.core.errors import SetupError
from cantstop.core.variant import Variant, preset
from cantstop.protocol.client import ProtocolPlayer
from cantstop.table.failure import SeatFailed
from cantstop.table.players import WATCHDOG, Player

RECORDS = "games"
SUMMARY_LINES = "games.jsonl"


def bot_labels(bots: list[str], tolerance: float = 2.0, variant: Variant | None = None) -> tuple[str, ...]:
    """Unique display names: a built-in bot's registered name, an outside bot's `id name`.

    Starting each outside bot once here also checks that it answers the handshake,
    so a wrong command fails before the match instead of forfeiting every game; with a
    `variant`, each built-in bot is asked whether it can play it.

    Raises `SetupError` for an outside bot that does not start, `UnknownBotError` for a
    name no bot has and `BotUnfitError` for a bot that cannot play `variant`.
    """
    names = []
    for bot in bots:
        if bot.startswith(COMMAND_PREFIX):
            command = bot[len(COMMAND_PREFIX) :].strip()
            if not command:
                raise SetupError("cmd: needs a command after it, e.g. cmd:python examples/mybot.py")
            player = ProtocolPlayer(command, tolerance)
            try:
                player.start()
                names.append(player.name)
            except SeatFailed as error:
                raise SetupError(f"{bot!r} does not play: {error.reason}") from None
            finally:
                player.close()
        else:
            info = get_bot(bot)
            if variant is not None:
                info.check(variant, len(bots))
            names.append(info.name)
    labels = []
    for i, name in enumerate(names):
        same = [j for j, other in enumerate(names) if other == name]
        labels.append(f"{name}#{same.index(i) + 1}" if len(same) > 1 else name)
    return tuple(labels)


# ------------------------------------------------------------------ workers
_WORKER: tuple[MatchSpec, list[Player]] | None = None


def _init_worker(spec: MatchSpec, log_dir: Path | None) -> None:
    global _WORKER
    players = make_players(spec, log_dir)
    _WORKER = (spec, players)
    # Outside programs are told to quit when the pool closes, and killed if it is terminated.
    Finalize(None, close_players, args=(players,), exitpriority=10)

    def terminate(signum: int, frame: FrameType | None) -> None:
        close_players(players)
        os._exit(0)

    signal.signal(signal.SIGTERM, terminate)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    WATCHDOG.start()  # for the worker's whole life


def _play(task: Task) -> GameResult:
    assert _WORKER is not None
    spec, players = _WORKER
    return play_game(spec, task, players)


def _results(
    spec: MatchSpec, tasks: tuple[Task, ...], jobs: int, log_dir: Path | None, ray_address: str | None = None
) -> Generator[GameResult, None, None]:
    """Results in schedule order; closing the iterator stops the workers."""
    if ray_address is not None:  # a Ray cluster (extra 'ray'), imported only when asked for
        from cantstop.arena.ray_backend import ray_results

        yield from ray_results(spec, tasks, jobs, ray_address, log_dir)
        return
    if jobs <= 1:
        players = make_players(spec, log_dir)
        try:
            for task in tasks:
                with WATCHDOG.running_here():  # not across the yield: the caller's code is not timed
                    result = play_game(spec, task, players)
                yield result
        finally:
            close_players(players)
        return
    pool = multiprocessing.Pool(jobs, _init_worker, (spec, log_dir))
    finished = False
    try:
        chunk = max(1, min(8, len(tasks) // (jobs * 4)))
        yield from pool.imap(_play, tasks, chunksize=chunk)
        finished = True
    finally:
        if finished:
            pool.close()
        else:
            pool.terminate()
        pool.join()


# ------------------------------------------------------------------ tallies
@dataclass
class Tally:
    """Running totals of a match, by bot index."""

    labels: tuple[str, ...]
    games: int = 0
    wins: list[int] = field(default_factory=list)
    draws: list[int] = field(default_factory=list)
    forfeits: list[Counter[str]] = field(default_factory=list)
    first_reason: list[str | None] = field(default_factory=list)
    pairwise: list[list[float]] = field(default_factory=list)  # pairwise[i][j]: i beat j
    pairs: list[int] = field(default_factory=lambda: [0] * 5)  # pentanomial, for bot 0
    _pending: dict[int, float] = field(default_factory=dict)  # deal -> bot 0's points so far
    _seen: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        n = len(self.labels)
        self.wins = [0] * n
        self.draws = [0] * n
        self.forfeits = [Counter() for _ in range(n)]
        self.first_reason = [None] * n
        self.pairwise = [[0.0] * n for _ in range(n)]

    def add(self, result: GameResult) -> bool:
        """Count one game; True when it completed a pair of swapped games (two bots)."""
        self.games += 1
        order = result.order
        seats = range(len(order))
        if result.forfeit is not None:
            loser = order[result.forfeit]
            self.forfeits[loser][str(result.fault)] += 1
            if self.first_reason[loser] is None:
                self.first_reason[loser] = f"{result.fault}: {result.reason}"
            for s in seats:
                if s != result.forfeit:
                    self.pairwise[order[s]][loser] += 1
        elif result.winner is not None:
            for s in seats:
                if s != result.winner:
                    self.pairwise[order[result.winner]][order[s]] += 1
        else:
            for s in seats:
                self.draws[order[s]] += 1
                for t in seats:
                    if s != t:
                        self.pairwise[order[s]][order[t]] += 0.5
        if result.winner is not None:
            self.wins[order[result.winner]] += 1
        if len(self.labels) != 2:
            return False
        points = 1.0 if result.winner is not None and order[result.winner] == 0 else 0.0
        if result.winner is None and result.forfeit is None:
            points = 0.5
        self._pending[result.deal] = self._pending.get(result.deal, 0.0) + points
        self._seen[result.deal] = self._seen.get(result.deal, 0) + 1
        if self._seen[result.deal] == 2:
            self.pairs[pair_class(self._pending.pop(result.deal))] += 1
            del self._seen[result.deal]
            return True
        return False

    @property
    def forfeited(self) -> int:
        """Games that ended in a forfeit (a crash, a timeout, an illegal move) instead of by play."""
        return sum(sum(faults.values()) for faults in self.forfeits)

    def fit(self) -> Fit:
        """The Bradley–Terry fit; half a virtual win each way per pair if the plain fit diverges."""
        prior = 0.0 if connected(self.pairwise) else 0.5
        return bradley_terry(self.pairwise, prior)


@dataclass
class Outcome:
    spec: MatchSpec
    tally: Tally
    scheduled: int
    out: Path
    sprt: Sprt | None = None
    llr: float = 0.0
    verdict: str | None = None
    interrupted: bool = False

    def summary(self) -> dict[str, Any]:
        t = self.tally
        fit = t.fit()
        n = len(t.labels)
        data: dict[str, Any] = {
            "spec": asdict(self.spec),
            "games": t.games,
            "scheduled": self.scheduled,
            "interrupted": self.interrupted,
            "forfeited": t.forfeited,
            "bots": [
                {
                    "bot": label,
                    "wins": t.wins[i],
                    "win_rate": t.wins[i] / t.games if t.games else 0.0,
                    "win_rate_95": wilson(t.wins[i], t.games),
                    "draws": t.draws[i],
                    "forfeits": dict(t.forfeits[i]),
                    "first_forfeit": t.first_reason[i],
                }
                for i, label in enumerate(t.labels)
            ],
            "elo": [
                {
                    "bot": t.labels[i],
                    "versus": t.labels[j],
                    "elo": fit.elo(i, j),
                    "elo_95": fit.elo_interval(i, j),
                }
                for i in range(n)
                for j in range(i + 1, n)
            ],
            "elo_prior": fit.prior,
        }
        if self.sprt is not None:
            data["sprt"] = {
                **asdict(self.sprt),
                "lower": self.sprt.lower,
                "upper": self.sprt.upper,
                "llr": self.llr,
                "pairs": t.pairs,
                "verdict": self.verdict,
            }
        return data


def run_match(
    spec: MatchSpec,
    games: int,
    jobs: int,
    out: Path,
    sprt: Sprt | None = None,
    on_game: Callable[[int, int], None] | None = None,
    ray_address: str | None = None,
) -> Outcome:
    """Play the match, writing records and summary lines into `out` as results arrive.

    `on_game(done, scheduled)` is called after each game (a progress bar). With a
    sequential test the match ends at the first pair whose LLR crosses a bound.
    With `ray_address` the games run on a Ray cluster (see `arena.ray_backend`).
    """
    if sprt is not None and len(spec.bots) != 2:
        raise ValueError(f"the sequential test compares two bots, not {len(spec.bots)}")
    if why := preset(spec.variant).players_text(len(spec.bots)):
        raise SetupError(why)  # otherwise every game would be scored a draw at max_turns
    tasks = schedule(len(spec.bots), games)
    records = out / RECORDS
    records.mkdir(parents=True, exist_ok=True)
    log_dir = out / "logs" if any(b.startswith(COMMAND_PREFIX) for b in spec.bots) else None
    if log_dir is not None:
        log_dir.mkdir(exist_ok=True)
    outcome = Outcome(spec, Tally(spec.labels), len(tasks), out, sprt)
    results = _results(spec, tasks, jobs, log_dir, ray_address)
    try:
        with open(out / SUMMARY_LINES, "w", encoding="utf-8") as lines:
            for result in results:
                name = f"{RECORDS}/{result.index:06d}.txt"
                (out / name).write_text(result.record, encoding="utf-8")
                lines.write(result.summary_line(spec.labels, name) + "\n")
                paired = outcome.tally.add(result)
                if on_game is not None:
                    on_game(outcome.tally.games, len(tasks))
                if sprt is not None and paired:
                    outcome.llr = llr(outcome.tally.pairs, sprt)
                    outcome.verdict = sprt.verdict(outcome.llr)
                    if outcome.verdict is not None:
                        break
    except KeyboardInterrupt:
        outcome.interrupted = True  # keep what was played: the summary below still counts it
    finally:
        results.close()
    (out / "summary.json").write_text(json.dumps(outcome.summary(), indent=2) + "\n", encoding="utf-8")
    return outcome
