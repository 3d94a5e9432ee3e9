"""Regenerate docs/img/tui.svg: a seeded game, part-played, with a roll's choices and advice.

Run: .venv/bin/python scripts/tui_screenshot.py [--out docs/img/tui.svg] [--turns 24]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from cantstop.core.dice import SeededDice
from cantstop.core.state import Phase
from cantstop.core.variant import preset
from cantstop.tui.app import CantStopApp, PlayConfig
from cantstop.tui.game_screen import GameScreen
from cantstop.tui.modals import Notice
from cantstop.tui.seats import parse_seats


async def shoot(out: Path, turns: int, seed: int) -> None:
    seats, notices = parse_seats("You,bot:medium,bot:hard")
    with tempfile.TemporaryDirectory() as records:
        config = PlayConfig(
            records=Path(records),
            seats=seats,
            variant=preset("classic"),
            seed=seed,
            first=0,
            dice=SeededDice(seed),
            bot_delay=10_000.0,
            notices=notices,
        )
        app = CantStopApp(config)
        async with app.run_test(size=(110, 34)) as pilot:
            await pilot.pause()
            while isinstance(app.screen, Notice):
                await pilot.press("enter")
            screen = next(s for s in app.screen_stack if isinstance(s, GameScreen))
            rolled = 0
            # People roll twice then stop; bots fast-forward; until the chosen turn's roll.
            while True:
                state = screen.session.state
                if state.is_over:
                    raise SystemExit(f"the game ended before turn {turns}: pick fewer --turns")
                if isinstance(app.screen, Notice):
                    await pilot.press("enter")
                elif not screen.session.seat.is_person:
                    screen.action_fast()
                elif state.phase is Phase.ROLL and state.turn >= turns:
                    break
                elif state.phase is Phase.CHOOSE:
                    screen.action_choose(1)
                elif state.phase is Phase.DECIDE and rolled >= 2:
                    rolled = 0
                    screen.action_stop()
                else:
                    rolled += 1
                    screen.action_roll()
                await pilot.pause()
            screen.action_roll()
            await pilot.pause()
            if screen.session.state.phase is Phase.CHOOSE:
                await pilot.press("a")
                await pilot.press("down")
            await pilot.pause(0.5)
            app.save_screenshot(filename=out.name, path=str(out.parent))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/img/tui.svg"))
    parser.add_argument("--turns", type=int, default=12)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    asyncio.run(shoot(args.out, args.turns, args.seed))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
