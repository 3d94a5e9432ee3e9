"""What driving a game through `Table` costs against a bare loop over the engine.

Run: `python benchmarks/table.py [--seconds 5]`. Both loops play the same Rule-of-28
solitaire games (same dice, same bot, checked), in alternating slices so that a change
in the machine's load hits both alike. The bare loop is what the environments ran
before they drive `Table` (`state.roll` / `state.play` in a while loop); the table runs
with `narrate=False`, as the arena and the environments use it.
"""

from __future__ import annotations

import argparse
import platform
import random
import time
from datetime import UTC, datetime

from cantstop import Phase, SeededDice, new_game, preset
from cantstop.bots import Budget, get_bot
from cantstop.core.record import Record
from cantstop.table import BotPlayer, Table

BOT = get_bot("rule28")


def bare(seed: int) -> int:
    state = new_game("solitaire", 1)
    dice, rng, budget = SeededDice(seed), random.Random(seed), Budget()
    while state.phase is not Phase.OVER:
        if state.phase is Phase.ROLL:
            state = state.roll(dice.roll(4, 6))
        else:
            state = state.play(BOT.play(state, rng, budget))
    return state.turn


def table(seed: int) -> int:
    player = BotPlayer(BOT, rng=random.Random(seed), budget=Budget())
    t = Table(Record(preset("solitaire"), ["bot"]), SeededDice(seed), [player], narrate=False)
    t.run()
    return t.state.turn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    assert [bare(s) for s in range(50)] == [table(s) for s in range(50)], "the two loops must play the same games"
    games = {"bare": 0, "table": 0}
    spent = {"bare": 0.0, "table": 0.0}
    seed = 0
    while sum(spent.values()) < args.seconds:
        for name, fn in (("bare", bare), ("table", table)):
            start = time.perf_counter()
            for s in range(seed, seed + 50):
                fn(s)
            spent[name] += time.perf_counter() - start
            games[name] += 50
        seed += 50
    rate = {name: games[name] / spent[name] for name in games}
    print(f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {platform.machine()}, Python {platform.python_version()}")
    print(f"rule-of-28 solitaire: bare loop {rate['bare']:,.0f} games/s, Table {rate['table']:,.0f} games/s, "
          f"ratio {rate['table'] / rate['bare']:.2f}")


if __name__ == "__main__":
    main()
