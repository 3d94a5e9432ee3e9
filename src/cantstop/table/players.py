"""Who sits at a table: the one small interface of every seat that moves by itself.

A `Player` is asked for a move when its seat is to choose or decide; one that cannot
give one raises `SeatFailed`, and the table's policy takes over. `BotPlayer` runs a
registered bot in this process; `cantstop.protocol.client.ProtocolPlayer` speaks to
a program outside it. People are seats without a player: the front end hands their
moves to the table itself.

Bots are timed: a decision longer than the limit (budget × tolerance + 50 ms of grace
for the machine's scheduler) fails, and while the watchdog runs (SIGALRM: the main
thread on Unix, as in every arena worker) a bot that hangs is interrupted there.
What a bot's first decision of a kind of game would compile or load is done before the
clock starts (`BotInfo.prepare`): a cold numba cache costs no bot a game.
"""

from __future__ import annotations

import random
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Protocol

from cantstop.bots import Bot, BotInfo, Budget
from cantstop.bots.base import Prepare, nothing_to_prepare
from cantstop.core.state import Action, State
from cantstop.core.variant import Variant
from cantstop.table.failure import Fault, SeatFailed

GRACE_MS = 50.0


class Player(Protocol):
    """One seat's decision maker over a series of games (a match plays many)."""

    def new_game(self, variant: Variant, seats: int, seat: int, seed: int) -> None: ...

    def act(self, state: State, budget_ms: int) -> Action: ...

    def close(self) -> None: ...


def limit_ms(budget_ms: int, tolerance: float) -> float:
    """The longest a decision may take before it forfeits."""
    return budget_ms * tolerance + GRACE_MS


class _Hung(BaseException):
    """Raised inside a hanging bot by the watchdog; a BaseException so `except Exception` misses it."""


class _Watchdog:
    """A timer ticking every `TICK` seconds that interrupts a decision past its deadline.

    Arming it per decision would cost two system calls per move; a steady tick
    costs a handler call per tick and lets a decision just set a deadline.
    """

    TICK = 0.025

    def __init__(self) -> None:
        self.deadline: float | None = None
        self.running = False

    def _tick(self, signum: int, frame: FrameType | None) -> None:
        now = time.perf_counter()
        if self.deadline is not None and now > self.deadline:
            self.deadline = now + 4 * self.TICK  # again later if the bot swallows this one
            raise _Hung

    def start(self) -> bool:
        """Start ticking, where this process and thread can; False if it could not or already ran."""
        usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
        if not usable or self.running:
            return False
        signal.signal(signal.SIGALRM, self._tick)
        signal.setitimer(signal.ITIMER_REAL, self.TICK, self.TICK)
        self.running = True
        return True

    def stop(self) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        self.running = False

    @contextmanager
    def running_here(self) -> Iterator[None]:
        """Run the watchdog while the block runs (if it can run and is not running already)."""
        started = self.start()
        try:
            yield
        finally:
            if started:
                self.stop()


WATCHDOG = _Watchdog()


class BotPlayer:
    """A registered bot, or any bot function (an environment's opponent); a match gives
    it a fresh random source per game.

    With a `tolerance` its decisions are timed (see the module doc); without one
    (a game among people) a bot may think as long as it likes. A `budget` given here
    replaces the table's (`Budget()`: no limit, as for a study of the bot alone).
    A registered bot is made ready (`ready`) for each kind of game before its first
    decision of it, outside the time limit; `clock` is what decisions are timed by.
    """

    def __init__(
        self,
        bot: BotInfo | Bot,
        tolerance: float | None = None,
        rng: random.Random | None = None,
        budget: Budget | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.play: Bot = bot.play if isinstance(bot, BotInfo) else bot
        self.prepare: Prepare = bot.prepare if isinstance(bot, BotInfo) else nothing_to_prepare
        self.tolerance = tolerance
        self.rng = rng if rng is not None else random.Random(0)
        self.budget = budget
        self.clock = clock
        self._ready: tuple[Variant, int] | None = None  # the kind of game it was last made ready for

    def ready(self, variant: Variant, seats: int) -> None:
        """Make the bot ready for games of `variant` with `seats` players (compile, load), untimed.

        Raises `SeatFailed` (a crash) if it cannot be: a missing extra, a broken table."""
        if self._ready is not None and self._ready[0] is variant and self._ready[1] == seats:
            return
        try:
            self.prepare(variant, seats)
        except Exception as error:
            raise SeatFailed(
                Fault.CRASH,
                f"could not get ready for {variant.name} with {seats} player{'s' * (seats != 1)}: "
                f"{type(error).__name__}: {error}",
            ) from None
        self._ready = (variant, seats)

    def new_game(self, variant: Variant, seats: int, seat: int, seed: int) -> None:
        self.ready(variant, seats)
        self.rng = random.Random(seed)

    def act(self, state: State, budget_ms: int) -> Action:
        self.ready(state.variant, state.num_players)  # before the clock starts: a no-op once ready
        if self.tolerance is None:  # untimed: no clock to read (a study plays millions of moves)
            try:
                return self.play(state, self.rng, self.budget or Budget(seconds=budget_ms / 1000))
            except Exception as error:  # a bot's bug is a failure of its seat, not of the game
                raise SeatFailed(Fault.CRASH, f"{type(error).__name__}: {error}") from None
        limit = limit_ms(budget_ms, self.tolerance)
        WATCHDOG.deadline = time.perf_counter() + limit / 1000  # the watchdog's own clock
        start = self.clock()
        try:
            action = self.play(state, self.rng, self.budget or Budget(seconds=budget_ms / 1000))
        except _Hung:
            raise SeatFailed(
                Fault.TIMEOUT, f"still thinking after {limit:.0f} ms (budget {budget_ms} ms); interrupted"
            ) from None
        except Exception as error:
            raise SeatFailed(Fault.CRASH, f"{type(error).__name__}: {error}") from None
        finally:
            WATCHDOG.deadline = None
        elapsed = (self.clock() - start) * 1000
        if elapsed > limit:
            raise SeatFailed(
                Fault.TIMEOUT, f"took {elapsed:.0f} ms, over the limit of {limit:.0f} ms (budget {budget_ms} ms)"
            )
        return action

    def close(self) -> None:
        pass
