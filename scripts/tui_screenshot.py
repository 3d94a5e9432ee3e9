"""Regenerate docs/img/tui.svg: a seeded game, part-played, with a roll's choices and advice;
with --analysis, docs/img/tui-analysis.svg and tui-decision.svg: a seeded game played to its
end against the rivals bot, its analysis's report and its first mistake with the roll map.

Run: .venv/bin/python scripts/tui_screenshot.py [--out docs/img/tui.svg] [--turns 24]
     .venv/bin/python scripts/tui_screenshot.py --analysis [--seed 3]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from collections.abc import Callable
from pathlib import Path

from textual.pilot import Pilot

from cantstop.core.dice import SeededDice
from cantstop.core.state import Phase
from cantstop.core.variant import preset
from cantstop.tui.analysis_screen import AnalysisScreen
from cantstop.tui.app import CantStopApp, PlayConfig
from cantstop.tui.game_screen import GameScreen
from cantstop.tui.modals import GameOver, Notice
from cantstop.tui.seats import parse_seats


def seeded_app(players: str, records: str, seed: int) -> CantStopApp:
    """A classic game, you in seat A, on seeded dice; bots move only when told to."""
    seats, notices = parse_seats(players)
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
    return CantStopApp(config)


async def play_until(app: CantStopApp, pilot: Pilot[str], reached: Callable[[GameScreen], bool]) -> GameScreen:
    """People take the first choice, roll twice then stop; bots fast-forward; until `reached`."""
    screen = next(s for s in app.screen_stack if isinstance(s, GameScreen))
    rolled = 0
    while not reached(screen):
        state = screen.session.state
        if isinstance(app.screen, Notice):
            await pilot.press("enter")
        elif not screen.session.seat.is_person:
            screen.action_fast()
        elif state.phase is Phase.CHOOSE:
            screen.action_choose(1)
        elif state.phase is Phase.DECIDE and rolled >= 2:
            rolled = 0
            screen.action_stop()
        else:
            rolled += 1
            screen.action_roll()
        await pilot.pause()
    return screen


async def shoot(out: Path, turns: int, seed: int) -> None:
    def reached(screen: GameScreen) -> bool:
        """Your turn's roll is due, on the chosen turn."""
        state = screen.session.state
        if state.is_over:
            raise SystemExit(f"the game ended before turn {turns}: pick fewer --turns")
        return (screen.app.screen is screen and screen.session.seat.is_person
                and state.phase is Phase.ROLL and state.turn >= turns)

    with tempfile.TemporaryDirectory() as records:
        app = seeded_app("You,bot:medium,bot:hard", records, seed)
        async with app.run_test(size=(110, 34)) as pilot:
            await pilot.pause()
            screen = await play_until(app, pilot, reached)
            screen.action_roll()
            await pilot.pause()
            if screen.session.state.phase is Phase.CHOOSE:
                await pilot.press("a")
                await pilot.press("down")
            await pilot.pause(0.5)
            app.save_screenshot(filename=out.name, path=str(out.parent))


async def shoot_analysis(folder: Path, seed: int) -> None:
    """You against the rivals bot to the end; then the analysis's report and first mistake."""
    with tempfile.TemporaryDirectory() as records:
        app = seeded_app("You,bot:rivals", records, seed)
        async with app.run_test(size=(110, 40)) as pilot:
            await play_until(app, pilot, lambda screen: isinstance(app.screen, GameOver))
            await pilot.press("a")
            assert isinstance(app.screen, AnalysisScreen)
            await app.workers.wait_for_complete()
            await pilot.pause(0.5)
            app.save_screenshot(filename="tui-analysis.svg", path=str(folder))
            await pilot.press("x")  # the first decision that lost enough to be marked
            await app.workers.wait_for_complete()
            await pilot.pause(0.5)
            app.save_screenshot(filename="tui-decision.svg", path=str(folder))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/img/tui.svg"))
    parser.add_argument("--turns", type=int, default=12)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--analysis", action="store_true", help="the analysis screens instead, into --out's folder")
    args = parser.parse_args()
    if args.analysis:
        asyncio.run(shoot_analysis(args.out.parent, args.seed))
        print(f"wrote {args.out.parent / 'tui-analysis.svg'} and {args.out.parent / 'tui-decision.svg'}")
    else:
        asyncio.run(shoot(args.out, args.turns, args.seed))
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
