"""What a match prints (wins with intervals, Elo differences, forfeits, the test's verdict)
and what a tournament prints (standings and a crosstable)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table

from cantstop.arena.runner import Outcome
from cantstop.arena.stats import elo_from_score, wilson
from cantstop.arena.tournament import Standings


def forfeit_note(labels: Sequence[str], forfeits: Sequence[Mapping[str, int]], games: int) -> str | None:
    """One line on the games that ended in a forfeit instead of by play, by bot and fault;
    None when every game was played out."""
    total = sum(sum(faults.values()) for faults in forfeits)
    if not total:
        return None
    each = "; ".join(
        f"{label}: {', '.join(f'{count} {fault}' for fault, count in sorted(faults.items()))}"
        for label, faults in zip(labels, forfeits)
        if faults
    )
    return (
        f"{total} of {games} games ended in a forfeit ({each}), each scored as a loss of the bot "
        "that failed: these figures are not what the bots' play alone would give"
    )


def print_report(outcome: Outcome, console: Console) -> None:
    tally = outcome.tally
    n = len(tally.labels)
    games = tally.games
    title = f"{games} games"
    if games < outcome.scheduled:
        title += f" of {outcome.scheduled} scheduled"
    if outcome.interrupted:
        title += ", interrupted"
    wins = Table(title=f"Wins ({title}; an even share is {100 / n:.1f}%)")
    for header in ("bot", "wins", "win %", "95% interval", "draws", "forfeits"):
        wins.add_column(header, justify="left" if header == "bot" else "right")
    for i, label in enumerate(tally.labels):
        low, high = wilson(tally.wins[i], games)
        faults = tally.forfeits[i]
        wins.add_row(
            label,
            str(tally.wins[i]),
            f"{100 * tally.wins[i] / games:.1f}" if games else "-",
            f"{100 * low:.1f} – {100 * high:.1f}",
            str(tally.draws[i]),
            ", ".join(f"{count} {fault}" for fault, count in sorted(faults.items())) or "0",
        )
    console.print(wins)

    fit = tally.fit()
    elo = Table(title="Elo differences (Bradley–Terry)")
    for header in ("bot", "versus", "Elo", "95% interval"):
        elo.add_column(header, justify="left" if header in ("bot", "versus") else "right")
    for i in range(n):
        for j in range(i + 1, n):
            low, high = fit.elo_interval(i, j)
            elo.add_row(tally.labels[i], tally.labels[j], f"{fit.elo(i, j):+.0f}", f"{low:+.0f} … {high:+.0f}")
    console.print(elo)
    if fit.prior:
        console.print(
            f"(a bot won or lost every game: the fit adds {fit.prior:g} virtual wins each way per pair)"
        )
    for i, reason in enumerate(tally.first_reason):
        if reason is not None:
            console.print(f"{tally.labels[i]} forfeited, first time: {reason}", markup=False)
    note = forfeit_note(tally.labels, tally.forfeits, games)
    if note:
        console.print(note, markup=False, soft_wrap=True)

    test = outcome.sprt
    if test is not None:
        pairs = sum(tally.pairs)
        score = sum(k / 4 * c for k, c in enumerate(tally.pairs)) / pairs if pairs else 0.5
        first, second = tally.labels
        console.print(
            f"SPRT elo0={test.elo0:g} elo1={test.elo1:g} alpha={test.alpha:g} beta={test.beta:g}: "
            f"LLR {outcome.llr:.2f} (bounds {test.lower:.2f}, {test.upper:.2f}) after {pairs} game pairs, "
            f"pentanomial {tally.pairs}, {first} scores {100 * score:.1f}% "
            f"(Elo {elo_from_score(score):+.0f})",
            markup=False,
        )
        verdict = {
            "H1": f"H1 accepted: {first} is at least {test.elo1:g} Elo stronger than {second}",
            "H0": f"H0 accepted: {first} is not {test.elo1:g} Elo stronger than {second} "
            f"(Elo ≤ {test.elo0:g} is the better explanation)",
            None: "no verdict: the games ran out before the LLR crossed a bound",
        }[outcome.verdict]
        console.print(verdict, markup=False)
    console.print(f"records and games.jsonl in {outcome.out}", markup=False)


def print_standings(standings: Standings, out: Path, console: Console) -> None:
    """The field ranked by strength, then every pair's score as a crosstable."""
    labels = standings.labels
    order = standings.ranking()
    played = sum(map(sum, standings.games)) // 2
    title = f"Standings ({played} games"
    title += ", interrupted)" if standings.interrupted else ")"
    table = Table(title=title)
    for header in ("#", "bot", "games", "points", "score %", "Elo", "95% interval", "forfeits"):
        table.add_column(header, justify="left" if header == "bot" else "right")
    for rank, i in enumerate(order, 1):
        low, high = standings.elo_interval(i)
        faults = standings.forfeits[i] if standings.forfeits else {}
        table.add_row(
            str(rank),
            labels[i],
            str(sum(standings.games[i])),
            f"{sum(standings.points[i]):g}",
            f"{100 * standings.score(i):.1f}",
            f"{standings.elo(i):+.0f}",
            f"{low:+.0f} … {high:+.0f}",
            ", ".join(f"{count} {fault}" for fault, count in sorted(faults.items())) or "0",
        )
    console.print(table)
    cross = Table(title="Score % of the row's bot against the column's")
    cross.add_column("bot")
    for rank in range(1, len(order) + 1):
        cross.add_column(str(rank), justify="right")
    for rank, i in enumerate(order, 1):
        cells = [
            "·" if i == j else
            f"{100 * standings.points[i][j] / standings.games[i][j]:.1f}" if standings.games[i][j] else "-"
            for j in order
        ]
        cross.add_row(f"{rank} {labels[i]}", *cells)
    console.print(cross)
    console.print("Elo is above the field's average (Bradley–Terry over every game).", markup=False)
    if standings.fit.prior:
        console.print(
            f"(a bot won or lost every game it played: the fit adds {standings.fit.prior:g} "
            "virtual wins each way per pair)",
            markup=False,
        )
    for i, reason in enumerate(standings.first_forfeit):
        if reason is not None:
            console.print(f"{labels[i]} forfeited, first time: {reason}", markup=False)
    note = forfeit_note(labels, standings.forfeits, played)
    if note:
        console.print(note, markup=False, soft_wrap=True)
    console.print(f"each pair's records in {out}/<pair>/, the standings in {out}/standings.json", markup=False)
