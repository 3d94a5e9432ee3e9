"""One game of a match: seats, dice, the bots' decisions, and what came of it.

Seat A always rolls first: the seat orders, not a roll-off, share out the first
move. A bot that forfeits ends the game at once; a game still going after
`max_turns` turns (bots that never stop can bust forever) is a draw.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from cantstop.arena.forfeit import Fault, Forfeit
from cantstop.arena.player import Player
from cantstop.arena.schedule import DealDice, Task, derive_seed
from cantstop.core.notation import seat_letter
from cantstop.core.record import Record, Roll, write_record
from cantstop.core.state import ROLL, Phase, describe_action, describe_actions
from cantstop.core.variant import preset


@dataclass(frozen=True)
class MatchSpec:
    """Everything that decides a match's games, shared by every worker process."""

    bots: tuple[str, ...]  # names or cmd:COMMAND, by bot index
    labels: tuple[str, ...]  # unique names for tables and records
    variant: str = "classic"
    seed: int = 0
    budget_ms: int = 1000
    tolerance: float = 2.0
    max_turns: int = 2000


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
    variant = preset(spec.variant)
    seats = [players[bot] for bot in task.order]
    names = [spec.labels[bot] for bot in task.order]
    tags = {
        "Event": "cantstop arena",
        "Seed": str(spec.seed),
        "Deal": str(task.deal),
        "Game": str(task.index),
    }
    record = Record(variant, names, 0, [], tags)
    state = record.start()
    dice = DealDice(spec.seed, task.deal, variant)
    rolls_this_turn = 0

    def forfeit(seat: int, fault: Fault, reason: str) -> GameResult:
        record.tags["Forfeit"] = f"{seat_letter(seat)} {fault}: {reason}"
        others = [s for s in range(len(seats)) if s != seat]
        return GameResult(
            task.index,
            task.deal,
            task.order,
            others[0] if len(others) == 1 else None,
            state.turn,
            seat,
            fault,
            reason,
            write_record(record),
        )

    for seat, player in enumerate(seats):
        try:
            player.new_game(variant, len(seats), seat, derive_seed("bot", spec.seed, task.deal, task.order, seat))
        except Forfeit as error:
            return forfeit(seat, error.fault, error.reason)
    while state.phase is not Phase.OVER:
        if state.turn >= spec.max_turns:
            record.tags["Termination"] = f"draw: no winner after {spec.max_turns} turns"
            return GameResult(task.index, task.deal, task.order, None, state.turn, record=write_record(record))
        if state.phase is Phase.ROLL:
            roll = dice.roll(state.turn, rolls_this_turn)
            turn = state.turn
            state = state.roll(roll)
            record.events.append(Roll(roll))
            rolls_this_turn = rolls_this_turn + 1 if state.turn == turn else 0
            continue
        seat = state.player
        try:
            action = seats[seat].act(state, spec.budget_ms)
        except Forfeit as error:
            return forfeit(seat, error.fault, error.reason)
        legal = state.legal_actions()
        if action not in legal:
            return forfeit(
                seat,
                Fault.ILLEGAL,
                f"{describe_action(action)} is not legal in the {state.phase.name.lower()} phase; "
                f"legal: {describe_actions(legal)}",
            )
        action = legal[legal.index(action)]  # the engine's own value, e.g. STOP for "stop"
        turn = state.turn
        state = state.play(action)
        if action is not ROLL:  # records keep the dice; the next roll implies the decision
            record.events.append(action)
        if state.turn != turn:
            rolls_this_turn = 0
    return GameResult(task.index, task.deal, task.order, state.winner, state.turn, record=write_record(record))
