"""Why a bot lost a game without finishing it."""

from __future__ import annotations

from enum import StrEnum


class Fault(StrEnum):
    CRASH = "crash"  # the bot raised, or its program died
    TIMEOUT = "timeout"  # it took longer than its budget allows, or hung
    ILLEGAL = "illegal"  # it returned an action that is not legal here
    PROTOCOL = "protocol"  # an outside bot said something the protocol does not allow


class Forfeit(Exception):
    """Raised by a player that cannot go on; the match scores the game as its loss."""

    def __init__(self, fault: Fault, reason: str) -> None:
        super().__init__(f"{fault}: {reason}")
        self.fault = fault
        self.reason = reason
