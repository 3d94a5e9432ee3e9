"""The words of the outside-bot protocol, shared by its two ends (see docs/protocol.md).

Every message is one line of text. The controller (the arena, a game server) sends
commands; the engine (a bot program) answers. Actions are moves in their one text
form (`cantstop.table.Move`), as in records: a choice as its columns joined by '+'
(`6+10`, `7`, `7+7`), or `roll` / `stop`.
"""

from __future__ import annotations

from dataclasses import dataclass

from cantstop.core.errors import CantStopError
from cantstop.core.state import Action
from cantstop.table.move import Move


class MessageError(CantStopError):
    """A protocol line that cannot be read or a value an option does not take; says what is allowed."""

HELLO = "cantstop"  # the controller's first line
HELLO_OK = "cantstopok"  # the engine's last line of the handshake
GIVE_UP = "none"  # `bestmove none`: the engine cannot answer (it says why in `info string`)
COMMANDS = ("cantstop", "setoption", "isready", "newgame", "position", "go", "quit")


@dataclass(frozen=True)
class Option:
    """An engine's setting, declared in the handshake as in UCI.

    `kind` is one of spin (a whole number within min..max), check (true/false),
    string, or combo (one of `choices`).
    """

    name: str
    kind: str
    default: str
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()

    def line(self) -> str:
        words = ["option", "name", self.name, "type", self.kind, "default", self.default]
        if self.low is not None and self.high is not None:
            words += ["min", str(self.low), "max", str(self.high)]
        for choice in self.choices:
            words += ["var", choice]
        return " ".join(words)

    def check(self, value: str) -> str:
        """The value, checked against the option's type; a `MessageError` says what is allowed."""
        if self.kind == "spin":
            if not value.lstrip("-").isdigit():
                raise MessageError(f"option {self.name} takes a whole number, not {value!r}")
            number = int(value)
            if self.low is not None and self.high is not None and not self.low <= number <= self.high:
                raise MessageError(f"option {self.name} takes {self.low}..{self.high}, not {number}")
        elif self.kind == "check" and value not in ("true", "false"):
            raise MessageError(f"option {self.name} takes true or false, not {value!r}")
        elif self.kind == "combo" and value not in self.choices:
            raise MessageError(f"option {self.name} takes one of {', '.join(self.choices)}, not {value!r}")
        return value


def parse_option(line: str) -> Option:
    """Read `option name N type T default D [min A max B] [var V]...`; names are one word."""
    words = line.split()
    fields: dict[str, str] = {}
    choices: list[str] = []
    i = 1
    while i + 1 < len(words):
        key, value = words[i], words[i + 1]
        if key == "var":
            choices.append(value)
        else:
            fields[key] = value
        i += 2
    if words[:1] != ["option"] or i != len(words) or not {"name", "type"} <= fields.keys():
        raise MessageError(f"bad option line {line!r}: write option name N type T default D")
    low, high = fields.get("min"), fields.get("max")
    return Option(
        fields["name"],
        fields["type"],
        fields.get("default", ""),
        int(low) if low is not None else None,
        int(high) if high is not None else None,
        tuple(choices),
    )


def parse_setoption(line: str) -> tuple[str, str]:
    """`setoption name X value Y` → (X, Y); the value may hold spaces."""
    words = line.split()
    if len(words) < 3 or words[1] != "name":
        raise MessageError(f"bad setoption {line!r}: write setoption name X value Y")
    if "value" in words[3:]:
        at = words.index("value", 3)
        return " ".join(words[2:at]), " ".join(words[at + 1 :])
    return " ".join(words[2:]), ""


@dataclass(frozen=True)
class Go:
    """`go movetime MS [legal ACTION...]`: think at most MS milliseconds, then answer."""

    movetime_ms: int
    legal: tuple[Action, ...] = ()

    def line(self) -> str:
        text = f"go movetime {self.movetime_ms}"
        if self.legal:
            text += " legal " + " ".join(Move.of(a).text for a in self.legal)
        return text


def parse_go(line: str) -> Go:
    words = line.split()
    if len(words) < 3 or words[1] != "movetime" or not words[2].isdigit():
        raise MessageError(f"bad go {line!r}: write go movetime MS (milliseconds), e.g. go movetime 1000")
    legal: tuple[Action, ...] = ()
    if len(words) > 3:
        if words[3] != "legal":
            raise MessageError(f"bad go {line!r}: after the movetime only 'legal ACTION...' may follow")
        legal = tuple(Move.parse(word).action for word in words[4:])
    return Go(int(words[2]), legal)
