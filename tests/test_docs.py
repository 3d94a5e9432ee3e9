"""The docs' code, run: README.md and docs/*.md cannot drift from the program again.

- every ```python block runs (in a fresh namespace, in a scratch folder);
- every `cantstop …` line of a fenced block is parsed by the real command line, so a
  renamed command or option, an unknown bot or a bad value fails here. Parsing runs the
  checks of every argument, not the command: most of these lines are long runs or servers;
- a block after `<!-- docs-test: session COMMAND -->` is a protocol session: the lines
  marked `>` go to COMMAND, whose answers must be the lines marked `<`.

A block that must not run here is preceded by `<!-- docs-test: skip (why) -->`. Blocks
checked with assertions by another test are listed in `CHECKED_ELSEWHERE`.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from cantstop.cli import main

ROOT = Path(__file__).parents[1]
DOCS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
CHECKED_ELSEWHERE = {"envs.md": "tests/envs/test_example.py runs its python blocks and checks what they leave"}
MARKER = re.compile(r"<!-- docs-test: (skip|session) ?(.*?) -->")
FENCE = re.compile(r"^```(\w*)\s*$")


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # of the opening fence, 1-based
    language: str
    code: str
    marker: tuple[str, str] | None  # ("skip", why) or ("session", command)

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def read_blocks(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file, each with the docs-test marker just above it."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    start: int | None = None
    for number, line in enumerate(lines):
        fence = FENCE.match(line)
        if fence is None:
            continue
        if start is None:
            start, language = number, fence.group(1)
            continue
        above = next((lines[i] for i in range(start - 1, -1, -1) if lines[i].strip()), "")
        marked = MARKER.fullmatch(above.strip())
        code = "\n".join(lines[start + 1 : number]) + "\n"
        found.append(Block(path, start + 1, language, code, marked.groups() if marked else None))  # type: ignore[arg-type]
        start = None
    assert start is None, f"{path.name}:{start + 1}: a fence is never closed"
    return found


BLOCKS = [block for path in DOCS for block in read_blocks(path)]
PYTHON = [b for b in BLOCKS if b.language == "python" and b.path.name not in CHECKED_ELSEWHERE]
SESSIONS = [b for b in BLOCKS if b.marker is not None and b.marker[0] == "session"]
COMMANDS = [
    (b.name, line.strip())
    for b in BLOCKS
    if b.language in ("", "sh", "console", "bash")
    for line in b.code.splitlines()
    if line.strip().startswith("cantstop ")
]


def skipped(block: Block) -> None:
    if block.marker is not None and block.marker[0] == "skip":
        pytest.skip(f"{block.name}: {block.marker[1]}")


@pytest.mark.parametrize("block", PYTHON, ids=[b.name for b in PYTHON])
def test_python_block_runs(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    skipped(block)
    monkeypatch.chdir(tmp_path)  # whatever a block writes lands here, not in the checkout
    namespace: dict[str, Any] = {"__name__": "__docs__"}
    exec(compile(block.code, block.name, "exec"), namespace)


def parse(line: str) -> None:
    """Parse `cantstop ARGS` as the command line would, up to running the command."""
    name, *rest = shlex.split(line, comments=True)[1:]
    group = click.Context(main, info_name="cantstop")
    command = main.get_command(group, name)
    if command is None:
        raise click.UsageError(f"no command {name!r}")
    command.make_context(name, rest, parent=group)


@pytest.mark.parametrize(("where", "line"), COMMANDS, ids=[f"{w} {c[:40]}" for w, c in COMMANDS])
def test_command_line_parses(where: str, line: str) -> None:
    try:
        parse(line)
    except click.UsageError as error:  # BadParameter among them
        pytest.fail(f"{where}: {line}\n{error.format_message()}")


@pytest.mark.parametrize(
    "line", ["cantstop solitaire nobody", "cantstop arena a b --no-such-option", "cantstop replay-all x"]
)
def test_parsing_refuses_what_the_command_line_refuses(line: str) -> None:
    with pytest.raises(click.UsageError):
        parse(line)


@pytest.mark.parametrize("block", SESSIONS, ids=[b.name for b in SESSIONS])
def test_protocol_session_is_what_the_engine_says(block: Block) -> None:
    sent = [line[2:] for line in block.code.splitlines() if line.startswith("> ")]
    said = [line[2:] for line in block.code.splitlines() if line.startswith("< ")]
    assert block.marker is not None
    command = shlex.split(block.marker[1])
    assert command[0] == "cantstop"
    result = CliRunner().invoke(main, command[1:], input="\n".join(sent) + "\n")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == said


def test_the_marker_list_stays_short_and_every_marker_is_used() -> None:
    skips = [b.name for b in BLOCKS if b.marker is not None and b.marker[0] == "skip"]
    assert len(skips) <= 3, skips
    assert SESSIONS, "docs/protocol.md's example session is marked"
    assert all(b.code.strip() for b in BLOCKS)


def test_the_reader_finds_blocks_markers_and_commands() -> None:
    # What the tests above iterate over: so that a parsing slip cannot make them vacuous.
    assert {"README.md", "fast.md", "rules.md"} <= {b.path.name for b in PYTHON}
    assert any("cantstop serve" in line for _, line in COMMANDS)
    assert len(COMMANDS) >= 20
