"""The docs' seeded figures, rerun: each figure, where it stands in a doc, the command that
makes it and how to read it from that command's output.

    python scripts/doc_figures.py                    # rerun every figure, compare with the docs
    python scripts/doc_figures.py --list             # the figures, their runs and what each costs here
    python scripts/doc_figures.py 'bots.solitaire.*' --jobs 2   # some, by name (shell patterns)
    python scripts/doc_figures.py --cheap            # the runs of under CHEAP_SECONDS (the tests')
    python scripts/doc_figures.py --update random    # write what the commands give into the docs

A figure is found in its doc by a pattern with one group, `figure`; the doc must hold it
exactly once. Exit status 1 when a figure differs from what its command gives now (or is
not found), unless --update wrote the new one in. The commands are the docs' own; `--jobs`
replaces their --jobs (no result depends on it). Run the long ones under `nice -n 19`, one
at a time. Measurements of time, and matches too long to rerun (the rivals bot's, the
100,000 games of expert2), are not here: the docs keep them as dated measurements with
their commands.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CHEAP_SECONDS = 30.0  # a run the tests rerun: about this long at most on the project's machine
CANTSTOP = ("-c", "from cantstop.cli import main; main(prog_name='cantstop')")
MINUS = "\u2212"  # the docs write negative numbers with a minus sign, not a hyphen


@dataclass(frozen=True)
class Result:
    """What a run left: its standard output and its --out folder (matches, tournaments)."""

    stdout: str
    out: Path

    def line(self, pattern: str) -> re.Match[str]:
        """The first line of the output that `pattern` matches; ValueError naming it if none does."""
        found = re.search(pattern, self.stdout, re.MULTILINE)
        if found is None:
            raise ValueError(f"no line matches {pattern!r} in:\n{self.stdout}")
        return found

    def json(self, name: str) -> Any:
        return json.loads((self.out / name).read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Run:
    """A command whose output figures are read from. `seconds`: about how long it takes on
    the project's 2-core machine with one job; `after`: runs it needs done first (a solve
    before a match on the solved board)."""

    name: str
    argv: tuple[str, ...]  # after the interpreter: CANTSTOP + arguments, or a script and arguments
    seconds: float
    after: tuple[str, ...] = ()

    @property
    def cheap(self) -> bool:
        return self.seconds <= CHEAP_SECONDS

    def command(self) -> str:
        """As a person would type it."""
        words = ["cantstop", *self.argv[len(CANTSTOP):]] if self.argv[:2] == CANTSTOP else ["python", *self.argv]
        return " ".join(w if re.fullmatch(r"[\w.,:=+/{}-]+", w) else f"'{w}'" for w in words)


@dataclass(frozen=True)
class Figure:
    """One figure of a doc: `pattern` finds it (its group `figure`), `value` makes it from the
    results of `runs`, in the doc's own format."""

    name: str
    doc: str
    pattern: str
    runs: tuple[str, ...]
    value: Callable[..., str]
    compiled: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "compiled", re.compile(self.pattern, re.MULTILINE))


# ------------------------------------------------------------------ formats
def signed(x: float, places: int = 0) -> str:
    text = f"{x:+.{places}f}"
    return text.replace("-", MINUS)


def share(x: float, places: int = 1) -> str:
    return f"{100 * x:.{places}f}%"


def with_interval(x: float, low: float, high: float) -> str:
    """'2.4% (1.8–3.2)': a win rate with its 95% interval."""
    return f"{share(x)} ({100 * low:.1f}–{100 * high:.1f})"


def mean_se(result: Result, bot: str) -> str:
    """'10.711 ± 0.027' from `cantstop solitaire`'s first line."""
    return result.line(rf"^{re.escape(bot)}: ([\d.]+ ± [\d.]+) turns")[1]


def mean_of(result: Result) -> float:
    """The exact mean turns of a `cantstop solitaire` run, from its histogram (the first line
    rounds it to three places)."""
    counts = [(int(t), int(n)) for t, n in re.findall(r"^\s*(\d+)\s+(\d+)\s+[\d.]+%", result.stdout, re.MULTILINE)]
    if not counts:
        raise ValueError(f"no histogram in:\n{result.stdout}")
    return sum(t * n for t, n in counts) / sum(n for _, n in counts)


def solved_value(result: Result) -> float:
    return float(result.line(r"from the empty board: ([\d.]+)$")[1])


def cell(first: str, cells: int, column: int) -> str:
    """The pattern of a table cell: in the row whose first cell is `first` (a regex) and which
    has `cells` cells after it, the cell `column` places after the first (0: the next one);
    bold stays outside the figure."""
    return (rf"^\| {first}(?=(?: \|[^|\n]+){{{cells}}} \|$) \|(?:[^|\n]*\|){{{column}}} "
            rf"\**(?P<figure>[^|*\n]+?)\** \|")


def code(text: str) -> str:
    """A regex for `text` in backticks, as the docs' tables name bots and boards."""
    return f"`{re.escape(text)}`"


# ------------------------------------------------------------------ runs and figures
RUNS: dict[str, Run] = {}
FIGURES: list[Figure] = []


def run(name: str, argv: Iterable[str], seconds: float, after: tuple[str, ...] = ()) -> str:
    RUNS[name] = Run(name, tuple(argv), seconds, after)
    return name


def figure(name: str, doc: str, pattern: str, runs: str | tuple[str, ...], value: Callable[..., str]) -> None:
    FIGURES.append(Figure(name, doc, pattern, (runs,) if isinstance(runs, str) else runs, value))


def cantstop(*args: str) -> tuple[str, ...]:
    return (*CANTSTOP, *args)


# --- the odds (exact: no seed, but a figure all the same)
odds = run("odds", cantstop("odds"), 2)
odds_678 = run("odds.6-7-8", cantstop("odds", "6", "7", "8"), 2)
figure("readme.odds", "README.md", r"`cantstop odds 6 7 8` — the chance a roll can use one of those columns \((?P<figure>[\d.]+%)\)",
       odds_678, lambda r: r.line(r"^6 7 8: ([\d.]+%) of rolls")[1])
for sums, column in (("2 or 12", 2), ("3 or 11", 3), ("4 or 10", 4), ("5 or 9", 5), ("6 or 8", 6), ("7", 7)):
    figure(f"rules.odds.{column}", "docs/rules.md", rf"{sums} (?P<figure>[\d.]+%)", odds,
           lambda r, c=column: r.line(rf"^\s+{c}\s+([\d.]+%)$")[1])
figure("rules.odds.best-triple", "docs/rules.md", r"best \{6, 7, 8\} (?P<figure>[\d.]+%)", odds,
       lambda r: r.line(r"^\s+6-7-8\s+([\d.]+%)$")[1])
figure("rules.odds.worst-triples", "docs/rules.md", r"worst \{2, 3, 12\} and \{2, 11, 12\} (?P<figure>[\d.]+%)", odds,
       lambda r: r.line(r"^\s+2-3-12\s+([\d.]+%)$")[1])

# --- solitaire, docs/bots.md's table (and the figures quoted from it)
SOLITAIRE = {"random": 2_000, "cautious": 10_000, "rule28": 20_000, "ga": 20_000, "ppo": 20_000, "expert": 10_000}
LEVELS = {"random": "easy", "cautious": "easy", "rule28": "medium", "ga": "hard", "ppo": "hard", "expert": "expert"}
SOLITAIRE_SECONDS = {"random": 6, "cautious": 12, "rule28": 40, "ga": 40, "ppo": 150, "expert": 200}
for bot, games in SOLITAIRE.items():
    name = run(f"solitaire.{bot}", cantstop("solitaire", bot, "--games", str(games), "--seed", "1", "--jobs", "2"),
               SOLITAIRE_SECONDS[bot])
    figure(f"bots.solitaire.{bot}", "docs/bots.md", cell(code(bot), 4, 1), name, lambda r, b=bot: mean_se(r, b))
figure("readme.expert-turns", "README.md", r"The expert averages\s+(?P<figure>[\d.]+) turns in solitaire", "solitaire.expert",
       lambda r: f"{mean_of(r):.2f}")
figure("readme.ppo-turns", "README.md", r"numpy \((?P<figure>[\d.]+) solitaire turns\)", "solitaire.ppo",
       lambda r: f"{mean_of(r):.2f}")
figure("envs.ppo-turns", "docs/envs.md", r"\| solitaire mean turns \| \*\*(?P<figure>[\d.]+ ± [\d.]+)\*\*", "solitaire.ppo",
       lambda r: mean_se(r, "ppo"))
figure("bots.expert-turns-in-prose", "docs/bots.md", r"The expert's (?P<figure>[\d.]+) turns\s+is far below", "solitaire.expert",
       lambda r: f"{mean_of(r):.2f}")

# The same figures quoted elsewhere.
QUOTED = (
    ("bots.rule28-tie-rule", "docs/bots.md", r"\| as above \(ties to the last choice\) \| (?P<figure>[\d.]+ ± [\d.]+) \(20,000\)",
     "rule28", mean_se),
    ("bots.expert-needs", "docs/bots.md", r"The expert needs (?P<figure>[\d.]+), so", "expert",
     lambda r, b: mean_se(r, b).split()[0]),
    ("envs.rule28-turns", "docs/envs.md", r"\| rule28 (?P<figure>[\d.]+ ± [\d.]+), ga", "rule28", mean_se),
    ("envs.ga-turns", "docs/envs.md", r"\| rule28 [\d.]+ ± [\d.]+, ga (?P<figure>[\d.]+), expert", "ga",
     lambda r, b: mean_se(r, b).split()[0]),
    ("envs.expert-turns", "docs/envs.md", r", ga [\d.]+, expert (?P<figure>[\d.]+ ± [\d.]+) \|", "expert", mean_se),
    ("fast.core-rule28", "docs/fast.md", r"\(the core's bot: (?P<figure>[\d.]+ ±\s+[\d.]+) over 20,000 games", "rule28",
     mean_se),
    ("fast.core-expert", "docs/fast.md", r"the Python expert's (?P<figure>[\d.]+ ± [\d.]+) over 10,000 games", "expert",
     mean_se),
)
for name, doc, pattern, bot, read in QUOTED:
    figure(name, doc, pattern, f"solitaire.{bot}", lambda r, b=bot, f=read: f(r, b))

# --- the compiled simulator, docs/fast.md
fast_rule28 = run("fast.rule28", cantstop("solitaire", "rule28", "--fast", "--games", "1000000", "--seed", "0"), 60)
fast_expert = run("fast.expert", cantstop("solitaire", "expert", "--fast", "--games", "200000", "--seed", "1"), 90)
figure("fast.rule28", "docs/fast.md", r"beside it\): \*\*(?P<figure>[\d.]+ ± [\d.]+)\*\* turns", fast_rule28,
       lambda r: mean_se(r, "rule28"))
figure("fast.expert", "docs/fast.md", r"--seed 1` \(11:53 UTC, same commit\):\n\*\*(?P<figure>[\d.]+ ± [\d.]+)\*\* turns", fast_expert,
       lambda r: mean_se(r, "expert"))

# --- head to head on shared dice, docs/bots.md (benchmarks/bots.py's plain loop)
HEAD_TO_HEAD = (("cautious", "random", 15), ("rule28", "cautious", 30), ("ga", "rule28", 40),
                ("expert", "rule28", 160), ("expert", "ga", 160))
for first, second, seconds in HEAD_TO_HEAD:
    name = run(f"match.{first}-{second}", ("benchmarks/bots.py", "--match", first, second, "--pairs", "5000",
                                           "--first-seed", "100000"), seconds)
    figure(f"bots.head-to-head.{first}-{second}", "docs/bots.md",
           cell(f"{code(first)} vs {code(second)}", 2, 1), name,
           lambda r: "{}% ± {}".format(*r.line(r"= ([\d.]+)% ± ([\d.]+)%$").groups()))


# --- through the arena, docs/bots.md: every pair of the five, 2,000 games (the expert's
# pairs with rule28 and ga 10,000), seed 2026
FIELD = ("random", "cautious", "rule28", "ga", "expert")
# The expert's two long matches, named expert first as the doc's commands do; every other
# pair in the field's order (random's coin is seeded by its place in the command).
LONG_MATCHES = {("rule28", "expert"): ("expert", "rule28"), ("ga", "expert"): ("expert", "ga")}
ARENA_SECONDS = {"expert": 60, "ga": 12, "rule28": 10, "cautious": 6}


def arena_pair(a: str, b: str) -> str:
    """The name of the match of `a` and `b` (made on first use)."""
    in_order = tuple(sorted((a, b), key=FIELD.index))
    first, second = LONG_MATCHES.get(in_order, in_order)
    games = 10_000 if in_order in LONG_MATCHES else 2_000
    seconds = ARENA_SECONDS[in_order[1]] * games / 2_000
    return run(f"arena.{first}-{second}", cantstop("arena", first, second, "--games", str(games), "--seed", "2026",
                                                   "--jobs", "2", "--no-progress", "--out", "{out}"), seconds)


def arena_cell(r: Result, bot: str) -> str:
    data = next(b for b in r.json("summary.json")["bots"] if b["bot"] == bot)
    return with_interval(data["win_rate"], *data["win_rate_95"])


for i, a in enumerate(FIELD):
    for j, b in enumerate(FIELD):
        if i != j:
            figure(f"bots.arena.{a}-{b}", "docs/bots.md", cell(code(a), 5, j), arena_pair(a, b),
                   lambda r, bot=a: arena_cell(r, bot))


def elo_line(r: Result, bot: str) -> str:
    summary = r.json("summary.json")
    elo = summary["elo"][0]
    sign = 1 if elo["bot"] == bot else -1
    low, high = sorted((sign * elo["elo_95"][0], sign * elo["elo_95"][1]))
    return f"Elo {signed(sign * elo['elo'])}, interval {signed(low)}…{signed(high)}"


figure("bots.arena.elo-expert-rule28", "docs/bots.md", r"10,000 games each \((?P<figure>Elo [^,]+, interval [^,]+), over\s+`rule28`",
       "arena.expert-rule28", lambda r: elo_line(r, "expert"))
figure("bots.arena.elo-expert-ga", "docs/bots.md", r"over\s+`rule28`; (?P<figure>[^,]+, [^,]+), over `ga`",
       "arena.expert-ga", lambda r: elo_line(r, "expert").removeprefix("Elo ").replace("interval ", ""))

# --- one tournament of the five, docs/bots.md
tournament = run("tournament", cantstop("tournament", *FIELD, "--games", "2000", "--seed", "2026", "--jobs", "2",
                                        "--no-progress", "--out", "{out}"), 300)


def standing_row(r: Result, bot: str) -> str:
    """'1 | `expert` | 80.7% | +290 (+280…+299) | — | 63.3% | ...': a row of the standings."""
    data = r.json("standings.json")
    ranked = [s["bot"] for s in data["standings"]]
    mine = next(s for s in data["standings"] if s["bot"] == bot)
    low, high = mine["elo_95"]
    cells = [str(mine["rank"]), f"`{bot}`", share(mine["score"]), f"{signed(mine['elo'])} ({signed(low)}…{signed(high)})"]
    for other in ranked:
        if other == bot:
            cells.append("—")
        else:
            against = data["crosstable"][bot][other]
            cells.append(share(against["points"] / against["games"]))
    return " | ".join(cells)


for bot in FIELD:
    figure(f"bots.tournament.{bot}", "docs/bots.md", rf"^\| (?P<figure>\d \| `{bot}` \| [\d.]+% \| .*?) \|$",
           tournament, lambda r, b=bot: standing_row(r, b))


def elo_gap(r: Result, better: str, worse: str) -> str:
    elo = {s["bot"]: s["elo"] for s in r.json("standings.json")["standings"]}
    return f"{elo[better] - elo[worse]:.0f}"


figure("bots.tournament.expert-ga", "docs/bots.md", r"expert − ga = (?P<figure>\d+) Elo", tournament,
       lambda r: elo_gap(r, "expert", "ga"))
figure("bots.tournament.ga-rule28", "docs/bots.md", r"ga − rule28 = (?P<figure>\d+)", tournament,
       lambda r: elo_gap(r, "ga", "rule28"))
figure("envs.expert-vs-rule28", "docs/envs.md", r"Elo \S+ \(10,000 games\) \| expert (?P<figure>[\d.]+%) \|",
       "arena.expert-rule28", lambda r: arena_cell(r, "expert").split()[0])

# --- the ppo bot's matches, docs/envs.md
for rival, games, seconds in (("rule28", 10_000, 200), ("expert", 4_000, 200)):
    name = run(f"arena.ppo-{rival}", cantstop("arena", "ppo", rival, "-n", str(games), "--seed", "1", "--jobs", "2",
                                              "--no-progress", "--out", "{out}"), seconds)
    label = rf"\| two players against {rival} \| "
    figure(f"envs.ppo-vs-{rival}", "docs/envs.md", label + r"\**(?P<figure>[\d.]+%)\**", name,
           lambda r: share(next(b for b in r.json("summary.json")["bots"] if b["bot"] == "ppo")["win_rate"]))
    figure(f"envs.ppo-vs-{rival}.interval", "docs/envs.md", label + r"\**[\d.]+%\** (?P<figure>\([\d.]+–[\d.]+\), Elo \S+)",
           name, lambda r: arena_cell(r, "ppo").partition(" ")[2] + ", " + elo_line(r, "ppo").split(",")[0])


# --- the solitaire ladder on solved boards, docs/solving.md: the optimal turns, and
# rule28, ga and expert over 4,000 games (the boards this machine solves in minutes)
LADDER = (
    ("solitaire+faces=3+heights=1.2.3.2.1", 3, 10),
    ("solitaire+faces=3+heights=2.3.4.3.2", 3, 12),
    ("solitaire+heights=1.1.1.1.1.1.1.1.1.1.1", 3, 10),
    ("solitaire+heights=1.1.1.2.2.2.2.2.1.1.1", 4, 12),
    ("solitaire+faces=4+heights=2.3.4.5.4.3.2", 10, 20),
    ("solitaire+heights=1.1.2.2.3.3.3.2.2.1.1", 15, 20),
    ("solitaire+faces=5+heights=1.2.3.4.5.4.3.2.1", 30, 25),
    ("solitaire+heights=1.2.2.3.3.4.3.3.2.2.1", 130, 25),
)
for spec, solve_seconds, game_seconds in LADDER:
    solved = run(f"solve.{spec}", cantstop("solve", spec), solve_seconds)
    figure(f"solving.ladder.{spec}.optimal", "docs/solving.md", cell(code(spec), 10, 5), solved,
           lambda r: f"{solved_value(r):.4f}")
    for k, bot in enumerate(("rule28", "ga", "expert")):
        played = run(f"ladder.{spec}.{bot}", cantstop("solitaire", bot, "--variant", spec, "--games", "4000",
                                                       "--seed", "1", "--jobs", "2"), game_seconds)
        figure(f"solving.ladder.{spec}.{bot}", "docs/solving.md", cell(code(spec), 10, 6 + k), played,
               lambda r, b=bot: mean_se(r, b))
    figure(f"solving.ladder.{spec}.gap", "docs/solving.md", cell(code(spec), 10, 9), (solved, f"ladder.{spec}.expert"),
           lambda s, e: f"{100 * (mean_of(e) / solved_value(s) - 1):+.1f}%")  # a hyphen here, as the table has

# --- the two-player ladder, docs/solving.md: the first player's chance, solved
DUO_LADDER = (("classic+faces=3+heights=1.2.3.2.1", 6), ("classic+faces=3+heights=2.3.4.3.2", 30),
              ("classic+faces=4+heights=1.2.3.4.3.2.1", 200))
for spec, seconds in DUO_LADDER:
    short = spec.removeprefix("classic+")
    solved = run(f"solve2.{spec}", cantstop("solve", spec, "--players", "2"), seconds)
    figure(f"solving.duo.{short}.first", "docs/solving.md", cell(code(short), 12, 5), solved,
           lambda r: f"{solved_value(r):.12f}")
    figure(f"solving.duo.{short}.edge", "docs/solving.md", cell(code(short), 12, 6), solved,
           lambda r: f"{signed(100 * (solved_value(r) - 0.5), 1)} pts")
    if seconds > 60:
        continue  # the matches on the two smaller boards only: minutes each
    for k, bot in enumerate(("rule28", "ga", "expert", "rivals")):
        pair = ("rivals", "optimal") if bot == "rivals" else ("optimal", bot)  # as the doc's commands name them
        played = run(f"duo.{short}.{bot}", cantstop("arena", *pair, "--games", "10000", "--jobs", "2", "--seed", "11",
                                                     "--variant", spec, "--budget-ms", "30000", "--no-progress",
                                                     "--out", "{out}"), 120, after=(solved,))
        figure(f"solving.duo.{short}.{bot}", "docs/solving.md", cell(code(short), 12, 7 + k), played,
               lambda r, b=bot: share(next(x for x in r.json("summary.json")["bots"] if x["bot"] == b)["win_rate"]))


# ------------------------------------------------------------------ checking
@dataclass
class Outcome:
    figure: Figure
    said: str | None  # what the doc says (None: not found exactly once)
    made: str | None  # what the command gives (None: the run failed)
    problem: str = ""

    @property
    def ok(self) -> bool:
        return self.said is not None and self.said == self.made


def found(text: str, item: Figure) -> re.Match[str] | None:
    """The figure's one match in its doc's text, or None if it has none or several."""
    matches = list(item.compiled.finditer(text))
    return matches[0] if len(matches) == 1 else None


def play(item: Run, folder: Path, jobs: int | None, solve_dir: Path) -> Result:
    """Run `item` in its own folder; RuntimeError with its output if it fails."""
    out = folder / item.name.replace("/", "_") / "out"
    out.mkdir(parents=True)
    argv = [arg.replace("{out}", str(out)) for arg in item.argv]
    if jobs is not None and "--jobs" in argv:
        argv[argv.index("--jobs") + 1] = str(jobs)
    env = {**os.environ, "CANTSTOP_SOLVE_DIR": str(solve_dir)}
    done = subprocess.run([sys.executable, *argv], capture_output=True, text=True, cwd=ROOT, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"{item.command()} exited with {done.returncode}:\n{done.stderr[-2000:]}")
    return Result(done.stdout, out)


def check(figures: list[Figure], jobs: int | None = None, say: Callable[[str], None] = print) -> list[Outcome]:
    """Rerun the runs of `figures` and compare each figure with its doc."""
    wanted: dict[str, Run] = {}

    def want(name: str) -> None:
        for before in RUNS[name].after:
            want(before)
        wanted.setdefault(name, RUNS[name])

    for item in figures:
        for name in item.runs:
            want(name)
    results: dict[str, Result | Exception] = {}
    with tempfile.TemporaryDirectory(prefix="doc-figures-") as temporary:
        folder = Path(temporary)
        solve_dir = folder / "solved"
        for name, item in wanted.items():
            say(f"running {name}: {item.command()} (about {item.seconds:g} s here)")
            started = time.monotonic()
            try:
                results[name] = play(item, folder, jobs, solve_dir)
            except RuntimeError as error:
                results[name] = error
                say(f"  failed: {error}")
            else:
                say(f"  {time.monotonic() - started:.0f} s")
        outcomes = []
        for item in figures:
            text = (ROOT / item.doc).read_text(encoding="utf-8")
            match = found(text, item)
            said = match["figure"] if match else None
            inputs = [results[name] for name in item.runs]
            failed = next((r for r in inputs if isinstance(r, Exception)), None)
            if failed is not None:
                outcomes.append(Outcome(item, said, None, f"its run failed: {failed}"))
                continue
            try:
                made = item.value(*inputs)
            except (ValueError, KeyError, StopIteration, OSError) as error:
                outcomes.append(Outcome(item, said, None, f"cannot read it: {error}"))
                continue
            outcomes.append(Outcome(item, said, made, "" if said is not None else "not found exactly once in the doc"))
    return outcomes


def update(outcomes: list[Outcome]) -> int:
    """Write each figure that differs into its doc; the number written."""
    written = 0
    for outcome in outcomes:
        if outcome.said is None or outcome.made is None or outcome.ok:
            continue
        path = ROOT / outcome.figure.doc
        text = path.read_text(encoding="utf-8")
        match = found(text, outcome.figure)
        assert match is not None
        path.write_text(text[: match.start("figure")] + outcome.made + text[match.end("figure") :], encoding="utf-8")
        written += 1
    return written


def select(names: list[str], cheap: bool) -> list[Figure]:
    chosen = [f for f in FIGURES if not names or any(fnmatch.fnmatch(f.name, n) or n in f.name for n in names)]
    if cheap:
        chosen = [f for f in chosen if all(RUNS[name].cheap for name in f.runs)]
    return chosen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="figures by name or shell pattern (default: all)")
    parser.add_argument("--list", action="store_true", help="list the figures and their runs, run nothing")
    parser.add_argument("--cheap", action="store_true", help=f"only figures whose runs take under {CHEAP_SECONDS:g} s")
    parser.add_argument("--jobs", type=int, default=None, help="replace the commands' --jobs (results do not depend on it)")
    parser.add_argument("--update", action="store_true", help="write the figures the commands give into the docs")
    args = parser.parse_args()
    figures = select(args.names, args.cheap)
    if not figures:
        print(f"no figure is called {' '.join(args.names)}; --list lists them", file=sys.stderr)
        return 2
    if args.list:
        for item in figures:
            runs = ", ".join(f"{RUNS[n].command()} (~{RUNS[n].seconds:g} s)" for n in item.runs)
            print(f"{item.name}  [{item.doc}]  {runs}")
        total = sum(RUNS[n].seconds for n in {n for f in figures for n in f.runs})
        print(f"{len(figures)} figures; their runs take about {math.ceil(total / 60)} minutes here")
        return 0
    outcomes = check(figures, args.jobs)
    for outcome in outcomes:
        if outcome.ok:
            print(f"same      {outcome.figure.name}: {outcome.said}")
        elif outcome.problem:
            print(f"PROBLEM   {outcome.figure.name} ({outcome.figure.doc}): {outcome.problem}")
        else:
            print(f"DIFFERS   {outcome.figure.name} ({outcome.figure.doc}): the doc says {outcome.said}, "
                  f"the command gives {outcome.made}")
    bad = [o for o in outcomes if not o.ok]
    if args.update:
        written = update(outcomes)
        print(f"{written} figure{'s' * (written != 1)} written into the docs")
        bad = [o for o in bad if o.said is None or o.made is None]
    print(f"{len(outcomes) - len(bad)} of {len(outcomes)} figures as the docs say" if not args.update else
          f"{len(bad)} figure{'s' * (len(bad) != 1)} could not be checked")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
