"""The controller end of the protocol: an outside program as a player at a table.

The program is started on first use and kept for the games that follow. Every
read has a deadline; a program that hangs is killed, one that dies or prints
something the protocol does not allow forfeits, and the next game starts it anew.
Reading uses `select` on the pipe, so this end runs on Unix-like systems.
"""

from __future__ import annotations

import contextlib
import os
import select
import shlex
import subprocess
import time
from typing import IO

from cantstop.core.notation import to_notation
from cantstop.core.state import Action, State
from cantstop.core.variant import Variant, variant_spec
from cantstop.protocol.messages import (
    GIVE_UP,
    HELLO,
    HELLO_OK,
    Go,
    MessageError,
    Option,
    parse_option,
)
from cantstop.table.failure import Fault, SeatFailed
from cantstop.table.move import Move, MoveError
from cantstop.table.players import limit_ms

START_SECONDS = 30.0  # for the handshake and isready: an interpreter may start slowly on a busy machine
SEED_OPTION = "Seed"


def playable_name(text: str) -> str:
    """The name as a game record can hold it: ';' separates players there, outer spaces are lost."""
    return " ".join(text.replace(";", ",").split())


class ProtocolPlayer:
    """Speaks the protocol to one program over its stdin and stdout."""

    def __init__(self, command: str, tolerance: float, log: str | None = None) -> None:
        self.command = command
        self.argv = shlex.split(command)
        self.tolerance = tolerance
        self.log = log
        self.name = playable_name(command)
        self.options: dict[str, Option] = {}
        self.last_info = ""
        self._process: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._buffer = b""

    # --------------------------------------------------------------- the game
    def new_game(self, variant: Variant, seats: int, seat: int, seed: int) -> None:
        if self._process is None or self._process.poll() is not None:
            self.start()
        if SEED_OPTION in self.options:
            self._send(f"setoption name {SEED_OPTION} value {seed}")
        self._send(f"newgame {variant_spec(variant)} {seats} {seat}")
        self._send("isready")
        self._expect("readyok", time.monotonic() + START_SECONDS, "isready")

    def act(self, state: State, budget_ms: int) -> Action:
        limit = limit_ms(budget_ms, self.tolerance)
        self._send("position " + to_notation(state))
        self._send(Go(budget_ms, state.legal_actions()).line())
        deadline = time.monotonic() + limit / 1000
        while True:
            line = self._readline(deadline, f"no bestmove within {limit:.0f} ms (budget {budget_ms} ms)")
            word, _, rest = line.strip().partition(" ")
            if word == "info" or not word:
                self._note(rest)
                continue
            if word != "bestmove":
                self.kill()
                raise SeatFailed(Fault.PROTOCOL, f"unexpected line {line[:80]!r} while waiting for bestmove")
            answer = rest.strip()
            if answer == GIVE_UP:
                raise SeatFailed(Fault.CRASH, "gave up (bestmove none): " + (self.last_info or "no reason given"))
            try:
                return Move.parse(answer).action
            except MoveError as error:
                raise SeatFailed(Fault.PROTOCOL, str(error)) from None

    def close(self) -> None:
        """Say quit, give the program a moment to leave, then make sure it is gone."""
        if self._process is not None and self._process.poll() is None:
            with contextlib.suppress(SeatFailed):
                self._send("quit")
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=1)
        self.kill()

    # --------------------------------------------------------------- plumbing
    def start(self) -> None:
        self.kill()
        if self.log:
            self._stderr = open(self.log, "ab")  # noqa: SIM115 - kept open for the program's life
        try:
            self._process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr if self._stderr else subprocess.DEVNULL,
                bufsize=0,
            )
        except OSError as error:
            raise SeatFailed(Fault.CRASH, f"cannot start {self.command!r}: {error}") from None
        self._buffer = b""
        self.options = {}
        self._send(HELLO)
        deadline = time.monotonic() + START_SECONDS
        while True:
            line = self._readline(deadline, f"no {HELLO_OK} within {START_SECONDS:.0f} s of starting").strip()
            if line == HELLO_OK:
                return
            if line.startswith("id name "):
                self.name = playable_name(line[len("id name ") :]) or self.name
            elif line.startswith("option "):
                try:
                    option = parse_option(line)
                except MessageError as error:
                    self.kill()
                    raise SeatFailed(Fault.PROTOCOL, str(error)) from None
                self.options[option.name] = option
            elif line.startswith("info "):
                self._note(line[len("info ") :])
            # Anything else before cantstopok is a banner: tolerated, as UCI GUIs do.

    def kill(self) -> None:
        if self._process is not None:
            if self._process.poll() is None:
                self._process.kill()
            self._process.wait()
            for pipe in (self._process.stdin, self._process.stdout):
                if pipe is not None:
                    pipe.close()
            self._process = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def _note(self, info: str) -> None:
        if info.startswith("string "):
            self.last_info = info[len("string ") :]

    def _expect(self, word: str, deadline: float, after: str) -> None:
        while True:
            line = self._readline(deadline, f"no {word} within {START_SECONDS:.0f} s of {after}").strip()
            if line == word:
                return
            if line.startswith("info ") or not line:
                self._note(line[len("info ") :])
                continue
            if line.startswith("bestmove"):  # a late answer to an abandoned go: isready syncs past it
                continue
            self.kill()
            raise SeatFailed(Fault.PROTOCOL, f"expected {word} after {after}, got {line[:80]!r}")

    def _send(self, line: str) -> None:
        process = self._process
        assert process is not None and process.stdin is not None
        try:
            process.stdin.write(line.encode() + b"\n")
        except (BrokenPipeError, OSError):
            raise SeatFailed(Fault.CRASH, self._death()) from None

    def _readline(self, deadline: float, late: str) -> str:
        process = self._process
        assert process is not None and process.stdout is not None
        fd = process.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.kill()
                raise SeatFailed(Fault.TIMEOUT, late + "; killed")
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                raise SeatFailed(Fault.CRASH, self._death())
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", "replace").rstrip("\r")

    def _death(self) -> str:
        """Why the program stopped answering: its exit code and its last words on stderr."""
        process = self._process
        code = None
        if process is not None:
            try:
                code = process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                code = None
        last = ""
        if self.log and os.path.exists(self.log):
            with open(self.log, "rb") as stream:
                lines = stream.read()[-2000:].decode("utf-8", "replace").strip().splitlines()
            last = f"; last stderr line: {lines[-1][:120]!r}" if lines else ""
        self.kill()
        state = f"exited with code {code}" if code is not None else "closed its output"
        return f"the program {state}{last}"
