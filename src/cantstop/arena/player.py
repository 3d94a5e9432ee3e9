"""Bots as players of a match: built-in bots run in this process, `cmd:` bots outside it.

A player that cannot go on raises `Forfeit`. Built-in bots are timed: a decision
longer than the limit (budget × tolerance + 50 ms of grace for the machine's
scheduler) forfeits, and while the arena's watchdog runs (SIGALRM: the main
thread on Unix, as in every arena worker) a bot that hangs is interrupted there.
"""

from __future__ import annotations

import random
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Protocol

from cantstop.arena.forfeit import Fault, Forfeit
from cantstop.bots import BotInfo, Budget, get_bot
from cantstop.core.state import Action, State
from cantstop.core.variant import Variant

GRACE_MS = 50.0
COMMAND_PREFIX = "cmd:"


class Player(Protocol):
    """One seat's decision maker over a series of games."""

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


class BuiltinPlayer:
    """A registered bot, given a fresh random source per game."""

    def __init__(self, info: BotInfo, tolerance: float) -> None:
        self.info = info
        self.tolerance = tolerance
        self.rng = random.Random(0)

    def new_game(self, variant: Variant, seats: int, seat: int, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, state: State, budget_ms: int) -> Action:
        limit = limit_ms(budget_ms, self.tolerance)
        start = time.perf_counter()
        WATCHDOG.deadline = start + limit / 1000
        try:
            action = self.info.play(state, self.rng, Budget(seconds=budget_ms / 1000))
            WATCHDOG.deadline = None
        except _Hung:
            WATCHDOG.deadline = None
            raise Forfeit(
                Fault.TIMEOUT, f"still thinking after {limit:.0f} ms (budget {budget_ms} ms); interrupted"
            ) from None
        except Exception as error:
            raise Forfeit(Fault.CRASH, f"raised {type(error).__name__}: {error}") from None
        finally:
            WATCHDOG.deadline = None
        elapsed = (time.perf_counter() - start) * 1000
        if elapsed > limit:
            raise Forfeit(
                Fault.TIMEOUT, f"took {elapsed:.0f} ms, over the limit of {limit:.0f} ms (budget {budget_ms} ms)"
            )
        return action

    def close(self) -> None:
        pass


def open_player(spec: str, tolerance: float, log: str | None = None) -> Player:
    """A player from a bot name (or level) or from `cmd:COMMAND`; unknown names raise ValueError."""
    if spec.startswith(COMMAND_PREFIX):
        from cantstop.protocol.client import ProtocolPlayer

        command = spec[len(COMMAND_PREFIX) :].strip()
        if not command:
            raise ValueError("cmd: needs a command after it, e.g. cmd:python examples/mybot.py")
        return ProtocolPlayer(command, tolerance, log)
    return BuiltinPlayer(get_bot(spec), tolerance)
