"""One game of a match: seats, dice, and what came of it; a `Table` plays it.

Seat A always rolls first: the seat orders, not a roll-off, share out the first
move. A bot that fails (crash, timeout, illegal move) forfeits under the table's
`Policy.FORFEIT` and the game ends at once; a game still going after
`max_turns` turns (bots that never stop can bust forever) is a draw.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from cantstop.arena.schedule import DealDice, Task, derive_seed
from cantstop.core.record import Record, write_record
from cantstop.core.variant import preset
from cantstop.table import Fault, Player, Policy, Table

MAX_TURNS = 2000  # a game still going after this many turns is a draw (solitaire: stops there)


@dataclass(frozen=True)
class MatchSpec:
    """Everything that decides a match's games, shared by every worker process."""

    bots: tuple[str, ...]  # names or cmd:COMMAND, by bot index
    labels: tuple[str, ...]  # unique names for tables and records
    variant: str = "classic"
    seed: int = 0
    budget_ms: int = 1000
    tolerance: float = 2.0
    max_turns: int = MAX_TURNS


@dataclass(frozen=True)
class GameResult:
    """What a game's summary line and the tables need. Seats are 0-based."""

    index: int
    deal: int
    order: tuple[int, ...]  # bot index by seat
    winner: int | None  # the winning seat; None for a draw or an unfinished game
    turns: int
    forfeit: int | None = None  # the seat that forfeited
    fault: Fault | None = None
    reason: str | None = None
    record: str = ""  # the game record's text

    def summary(self, labels: tuple[str, ...], record_path: str) -> dict[str, Any]:
        bots = [labels[i] for i in self.order]
        forfeit = None
        if self.forfeit is not None:
            forfeit = {
                "seat": self.forfeit,
                "bot": bots[self.forfeit],
                "fault": str(self.fault),
                "reason": self.reason,
            }
        return {
            "game": self.index,
            "deal": self.deal,
            "bots": bots,
            "winner": self.winner,
            "winner_bot": None if self.winner is None else bots[self.winner],
            "turns": self.turns,
            "forfeit": forfeit,
            "draw": self.winner is None and self.forfeit is None,
            "record": record_path,
        }

    def summary_line(self, labels: tuple[str, ...], record_path: str) -> str:
        return json.dumps(self.summary(labels, record_path), separators=(",", ":"))


def play_game(spec: MatchSpec, task: Task, players: list[Player]) -> GameResult:
    """Play `task` with `players` (by bot index); forfeits are caught and scored, never raised."""
    tags = {
        "Event": "cantstop arena",
        "Seed": str(spec.seed),
        "Deal": str(task.deal),
        "Game": str(task.index),
    }
    record = Record(preset(spec.variant), [spec.labels[bot] for bot in task.order], 0, [], tags)
    dice = DealDice(spec.seed, task.deal, record.variant)
    table = Table(
        record,
        lambda state, index: dice.roll(state.turn, index),
        [players[bot] for bot in task.order],
        policy=Policy.FORFEIT,
        budget_ms=spec.budget_ms,
        narrate=False,
    )
    table.start_players(lambda seat: derive_seed("bot", spec.seed, task.deal, task.order, seat))
    table.run(until=lambda t: t.state.turn >= spec.max_turns)
    forfeit = table.forfeit
    if forfeit is not None:
        return GameResult(
            task.index, task.deal, task.order, forfeit.winner, table.state.turn,
            forfeit.seat, forfeit.fault, forfeit.reason, write_record(record),
        )
    if not table.over:
        record.tags["Termination"] = f"draw: no winner after {spec.max_turns} turns"
    return GameResult(task.index, task.deal, task.order, table.winner, table.state.turn, record=write_record(record))
