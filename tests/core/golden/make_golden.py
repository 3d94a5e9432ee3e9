"""Write the golden records once: `python tests/core/golden/make_golden.py`.

Each game is played with seeded dice and a seeded random policy, then saved as a record
whose `Final` tag holds the notation of the position it must replay to. The tests only
read these files; regenerate them only after a deliberate rules change, and say why.
"""

from __future__ import annotations

import random
from pathlib import Path

from cantstop import ROLL, STOP, Phase, SeededDice
from cantstop.core.notation import to_notation
from cantstop.core.record import write_record
from cantstop.table import Move, Table

GAMES = {
    "classic-2p": ("classic", ["Ann", "Bob"], 11),
    "classic-4p": ("classic", ["Ann", "Bob", "Cy", "Di"], 12),
    "solitaire": ("solitaire", ["Sol"], 13),
    "turtles-3p": ("turtles", ["Ann", "Bob", "Cy"], 14),
    "turtles-relay-2p": ("turtles-relay", ["Ann", "Bob"], 15),
}


def play(variant: str, names: list[str], seed: int) -> Table:
    game = Table.new(variant, names, SeededDice(seed), tags={"Date": "2026.11.22", "Seed": str(seed)})
    policy = random.Random(seed)
    while not game.state.is_over:
        state = game.state
        if state.phase is Phase.ROLL:
            game.play(Move.of(ROLL))
        elif state.phase is Phase.CHOOSE:
            game.play(Move.of(policy.choice(state.options)))
        else:
            game.play(Move.of(STOP if STOP in state.legal_actions() and policy.random() < 0.4 else ROLL))
    return game


def main() -> None:
    here = Path(__file__).parent
    for name, (variant, names, seed) in GAMES.items():
        game = play(variant, names, seed)
        game.record.tags["Final"] = to_notation(game.state)
        (here / f"{name}.txt").write_text(write_record(game.record), encoding="utf-8")
        print(f"{name}: {game.state.turn} turns, winner {names[game.state.seat]}")


if __name__ == "__main__":
    main()
