"""What the analysis says of each bot: accuracy, loss per decision, grades, against its match results.

Each bot plays `--games` two-player classic games against one opponent (`expert` by
default): deals 0, 1, ... each played in both seatings, dice and bots seeded as the arena
seeds them. Every game is analysed (`cantstop.analysis`); the bot's decisions give its
accuracy (grades.accuracy over all its decisions), its mean loss per decision that had
something at stake, its grades per hundred decisions and the share of games it won. The
opponent's decisions feed the loss percentiles the grade thresholds were chosen from.

Run: `python benchmarks/analysis_calibration.py --games 2000 --jobs 2 --out runs/calibration`
(prints a Markdown table; writes one JSON line per game into OUT, and resumes from them).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import platform
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cantstop.analysis import Grade, Units, analyse
from cantstop.analysis.grades import accuracy, grade
from cantstop.arena.match import MatchSpec, play_game
from cantstop.arena.player import make_players
from cantstop.arena.schedule import Task
from cantstop.arena.stats import wilson
from cantstop.core.record import read_record

BOTS = ("random", "cautious", "rule28", "ga", "ppo", "expert", "expert2", "rivals")
_PLAYERS: dict[tuple[str, str], Any] = {}


def one_game(job: tuple[str, str, int, int]) -> dict[str, Any]:
    """Play deal `deal` with `bot` in seat `seat` against `opponent`; its analysis, in short."""
    bot, opponent, deal, seat = job
    spec = MatchSpec((bot, opponent), (bot, opponent + "#2" if opponent == bot else opponent), "classic", 0, 600_000, 2.0)
    players = _PLAYERS.get((bot, opponent))
    if players is None:
        players = _PLAYERS[(bot, opponent)] = make_players(spec, None)
    order = (0, 1) if seat == 0 else (1, 0)
    result = play_game(spec, Task(2 * deal + seat, deal, order), players)
    if result.forfeit is not None:
        raise SystemExit(f"{spec.labels[order[result.forfeit]]} forfeited deal {deal}: {result.reason}")
    started = time.process_time()
    analysis = analyse(read_record(result.record))
    cpu = time.process_time() - started

    def decisions(s: int) -> list[list[float | str]]:
        return [[d.loss, d.stakes, d.grade.value] for d in analysis.decisions if d.seat == s and d.grade is not Grade.FORCED]

    return {
        "bot": bot, "opponent": opponent, "deal": deal, "seat": seat, "won": analysis.winner == seat,
        "turns": analysis.points[-1].turn, "events": len(analysis.points) - 1, "cpu": cpu,
        "mine": decisions(seat), "theirs": decisions(1 - seat),
        "luck": analysis.reports[seat].luck, "corrections": [c.change for c in analysis.corrections],
    }


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per bot (rounded up to both seatings)")
    parser.add_argument("--bots", nargs="+", default=list(BOTS))
    parser.add_argument("--opponent", default="expert")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True, help="folder for the games' lines (resumed if present)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    deals = -(-args.games // 2)
    rows = []
    for bot in args.bots:
        lines = args.out / f"{bot}.jsonl"
        done = [json.loads(line) for line in lines.read_text(encoding="utf-8").splitlines()] if lines.exists() else []
        seen = {(g["deal"], g["seat"]) for g in done}
        jobs = [(bot, args.opponent, d, s) for d in range(deals) for s in (0, 1) if (d, s) not in seen]
        started = time.perf_counter()
        with lines.open("a", encoding="utf-8") as out, multiprocessing.Pool(args.jobs) as pool:
            for i, game in enumerate(pool.imap_unordered(one_game, jobs, chunksize=4), 1):
                out.write(json.dumps(game) + "\n")
                out.flush()
                done.append(game)
                if i % 50 == 0:
                    print(f"{bot}: {len(done)}/{2 * deals} games, {time.perf_counter() - started:.0f} s", file=sys.stderr)
        rows.append(summary(bot, done))
    print(f"\n{len(rows)} bots against {args.opponent}, classic, 2 players; "
          f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.machine()}, Python {platform.python_version()}\n")
    print("| bot | games | wins vs " + args.opponent + " (95%) | accuracy | loss per decision at stake (points) "
          "| inaccuracies / mistakes / blunders per 100 decisions | analysis CPU s per game (median) |")
    print("|---|---:|---|---:|---:|---|---:|")
    for row in rows:
        print(row)
    theirs = [float(loss) for bot in args.bots for g in read(args.out / f"{bot}.jsonl") for loss, _, _ in g["theirs"]]
    at_stake = [x for x in theirs if x > 1e-7]
    print(f"\n{args.opponent}'s nonzero losses (points), {len(at_stake)} of {len(theirs)} decisions: "
          + ", ".join(f"p{100 * q:g} {percentile(at_stake, q):.2f}" for q in (0.5, 0.75, 0.9, 0.95, 0.99, 0.999)))
    corrections = [abs(c) for bot in args.bots for g in read(args.out / f"{bot}.jsonl") for c in g["corrections"]]
    if corrections:
        print(f"corrections where turns start: mean |c| {statistics.fmean(corrections):.2f} points, "
              f"median {statistics.median(corrections):.2f}, p99 {percentile(corrections, 0.99):.2f}, over {len(corrections)} turns")
    return 0


def read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def summary(bot: str, games: list[dict[str, Any]]) -> str:
    mine = [(float(loss), float(stakes), grade) for g in games for loss, stakes, grade in g["mine"]]
    wins = sum(g["won"] for g in games)
    low, high = wilson(wins, len(games))
    staked = [loss for loss, stakes, _ in mine if stakes > 1e-7]
    graded = [grade(loss, Units.CHANCE) for loss, _, _ in mine]  # today's thresholds, whatever the line says
    per_hundred = [100 * graded.count(g) / max(1, len(mine)) for g in (Grade.INACCURACY, Grade.MISTAKE, Grade.BLUNDER)]
    score = accuracy((loss, stakes) for loss, stakes, _ in mine)
    cpu = statistics.median(g["cpu"] for g in games) if games else float("nan")
    return (f"| `{bot}` | {len(games):,} | {100 * wins / max(1, len(games)):.1f}% ({100 * low:.1f}–{100 * high:.1f}) | "
            f"{score if score is None else round(score, 1)} | {statistics.fmean(staked) if staked else 0.0:.2f} | "
            f"{' / '.join(f'{x:.1f}' for x in per_hundred)} | {cpu:.2f} |")


if __name__ == "__main__":
    sys.exit(main())
