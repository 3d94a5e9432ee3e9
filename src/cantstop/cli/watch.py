"""`cantstop play` until the terminal game lands: a watchable game between two bots."""

from __future__ import annotations

import random
import time

import click

from cantstop.core.game import Game
from cantstop.core.notation import format_dice
from cantstop.core.state import STOP, Phase, State


def board(state: State, names: list[str]) -> str:
    """The columns as text rows, top space first; letters are pieces, '*' runners."""
    v = state.variant
    lines = []
    for space in range(max(v.heights), 0, -1):
        cells = []
        for c in v.columns:
            if space > v.height(c):
                cells.append("   ")
                continue
            mark = "".join(
                "ABCD"[p] for p, row in enumerate(state.pieces) if row[c] == space
            )
            if state.runners[c] == space:
                mark += "*"
            cells.append(f"{mark or '.':^3}")
        lines.append(" ".join(cells))
    lines.append(" ".join(f"{c:^3}" for c in v.columns))
    lines.append("   ".join(f"{'ABCD'[i]}={n}" for i, n in enumerate(names)))
    return "\n".join(lines)


@click.command()
@click.option("--seed", type=int, default=None, help="Seed for reproducible dice.")
@click.option("--delay", type=float, default=0.3, show_default=True, help="Seconds between moves.")
def play(seed: int | None, delay: float) -> None:
    """Watch two simple computer players play a game of classic Can't Stop."""
    from cantstop.core.dice import SeededDice

    names = ["Cautious", "Bold"]
    game = Game.new("classic", names, SeededDice(seed))
    rng = random.Random(seed)
    rolls = 0
    while not game.state.is_over:
        state = game.state
        if state.phase is Phase.CHOOSE:
            game.play(max(state.options, key=lambda c: (len(c), rng.random())))
            continue
        if state.phase is Phase.DECIDE and rolls >= (2 if state.player == 0 else 4):
            game.play(STOP)
            click.echo(f"{names[state.player]} stops.")
            click.echo(board(game.state, names))
            rolls = 0
            time.sleep(delay)
            continue
        dice = game.roll()
        rolls += 1
        if game.state.turn != state.turn:
            click.echo(f"{names[state.player]} rolls {format_dice(dice)} and busts!")
            rolls = 0
        else:
            click.echo(f"{names[state.player]} rolls {format_dice(dice)}")
    click.echo(f"{names[game.state.player]} wins after {game.state.turn} turns.")
