"""The engine end of the protocol: serve a built-in bot over a pair of text streams.

`cantstop bot NAME` runs `serve` on stdin/stdout. Malformed input never ends the
session: the engine answers `info string error: ...` (and `bestmove none` when a
`go` cannot be answered) and waits for the next line.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TextIO

from cantstop import __version__
from cantstop.bots import Budget, get_bot
from cantstop.bots.compiling import watch_compiling
from cantstop.core.errors import CantStopError, PhaseError
from cantstop.core.notation import from_notation
from cantstop.core.state import Phase, State
from cantstop.core.variant import Variant, preset
from cantstop.protocol.messages import (
    COMMANDS,
    GIVE_UP,
    HELLO_OK,
    MessageError,
    Option,
    parse_go,
    parse_setoption,
)
from cantstop.table.move import Move

SEED = Option("Seed", "spin", "0", 0, 2**31 - 1)


class Engine:
    """One bot's side of a session: holds the options, the game and the position."""

    def __init__(self, bot: str, write: Callable[[str], None]) -> None:
        self.info = get_bot(bot)  # raises UnknownBotError before any output
        self.write = write
        self.options = {SEED.name: SEED.default}
        self.rng = random.Random(0)
        self.position: State | None = None

    def handle(self, line: str) -> bool:
        """Answer one line; False once the controller said quit."""
        line = line.strip()  # errors quote the line as sent, without its '\n' or '\r\n'
        words = line.split()
        if not words:
            return True
        command = words[0]
        handler = {
            "cantstop": self.hello,
            "setoption": self.setoption,
            "isready": lambda _: self.write("readyok"),
            "newgame": self.newgame,
            "position": self.set_position,
            "go": self.go,
        }.get(command)
        if command == "quit":
            return False
        if handler is None:
            self.error(f"unknown command {command!r}; commands: {', '.join(COMMANDS)}")
            return True
        try:
            handler(line)
        except CantStopError as error:
            self.error(str(error))
        return True

    def error(self, text: str) -> None:
        self.write("info string error: " + " ".join(text.split()))

    def hello(self, _: str) -> None:
        self.write(f"id name cantstop-{self.info.name} {__version__}")
        self.write("id author the cantstop project")
        self.write(SEED.line())
        self.write(HELLO_OK)

    def setoption(self, line: str) -> None:
        name, value = parse_setoption(line)
        if name != SEED.name:
            raise MessageError(f"unknown option {name!r}; options: {SEED.name}")
        self.options[name] = SEED.check(value)

    def newgame(self, line: str) -> None:
        words = line.split()
        if len(words) != 4 or not words[2].isdecimal() or not words[3].isdecimal():
            raise MessageError(f"bad newgame {line!r}: write newgame VARIANT SEATS SEAT, e.g. newgame classic 2 0")
        variant = preset(words[1])
        seats, seat = int(words[2]), int(words[3])
        if not variant.min_players <= seats <= variant.most_players or not 0 <= seat < seats:
            raise MessageError(
                f"bad newgame {line!r}: {variant.name} seats {variant.min_players}..{variant.most_players} "
                "players and SEAT counts from 0"
            )
        # Every game restarts the bot's random source from the Seed option: replays repeat.
        self.rng = random.Random(int(self.options[SEED.name]))
        self.position = None
        self.info.check(variant, seats)  # a bot that cannot play this game says why, now
        self.prepare(variant, seats)

    def prepare(self, variant: Variant, seats: int) -> None:
        """What the bot's first `go` would compile or load, done now: the controller's clock
        starts at `go`, and `readyok` (to the `isready` after `newgame`) waits for this."""
        said = False

        def compiling(name: str) -> None:
            nonlocal said
            if not said:
                self.write(f"info string compiling the {self.info.display} (first run only)")
                said = True

        try:
            with watch_compiling(compiling):
                self.info.prepare(variant, seats)
        except Exception as error:  # the first go fails the same way and answers bestmove none
            self.error(f"the bot could not get ready: {type(error).__name__}: {error}")

    def set_position(self, line: str) -> None:
        self.position = None
        self.position = from_notation(line.partition(" ")[2])

    def go(self, line: str) -> None:
        try:
            request = parse_go(line)
            state = self.position
            if state is None:
                raise MessageError("no position to move in: send position NOTATION before go")
            if state.phase not in (Phase.CHOOSE, Phase.DECIDE):
                raise PhaseError(
                    f"nothing to decide in the {state.phase.name.lower()} phase: "
                    "go is for positions in the choose or decide phase"
                )
            action = self.info.play(state, self.rng, Budget(seconds=request.movetime_ms / 1000))
        except CantStopError as error:
            self.error(str(error))
            self.write(f"bestmove {GIVE_UP}")
            return
        except Exception as error:  # a bot bug must not end the session
            self.error(f"the bot failed: {type(error).__name__}: {error}")
            self.write(f"bestmove {GIVE_UP}")
            return
        self.write(f"bestmove {Move.of(action).text}")


def serve(bot: str, stdin: TextIO, stdout: TextIO) -> None:
    """Answer the controller's lines until `quit` or the end of input."""

    def write(text: str) -> None:
        stdout.write(text + "\n")
        stdout.flush()

    engine = Engine(bot, write)
    for line in stdin:
        if not engine.handle(line):
            break
