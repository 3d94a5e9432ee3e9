"""End to end: `cantstop play` in a real terminal (tmux), driven by keys, read off the screen."""

from __future__ import annotations

import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cantstop.core.record import read_record


class Tmux:
    """One tmux server of our own (its socket in the test's folder), so nothing else is touched."""

    def __init__(self, tmp_path: Path) -> None:
        self.socket = str(tmp_path / "tmux.sock")
        self.session = "play"

    def run(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-S", self.socket, *args], capture_output=True, text=True, check=True)
        return done.stdout

    def start(self, command: list[str], width: int = 100, height: int = 30) -> None:
        # The shell keeps the pane open after the game so that what it printed can be read.
        shell = f"{shlex.join(command)}; echo EXIT=$?; sleep 120"
        self.run("new-session", "-d", "-s", self.session, "-x", str(width), "-y", str(height), shell)

    def keys(self, *keys: str) -> None:
        for key in keys:
            self.run("send-keys", "-t", self.session, key)

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", self.session)

    def wait_for(self, text: str, within: float = 30.0) -> str:
        """The screen once `text` is on it; a bound on waiting, not an assertion on speed."""
        deadline = time.monotonic() + within
        while True:
            screen = self.screen()
            if text in screen:
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} never appeared; the screen:\n{screen}")
            time.sleep(0.2)

    def kill(self) -> None:
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True, check=False)


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    terminal = Tmux(tmp_path)
    try:
        yield terminal
    finally:
        terminal.kill()  # always, so no game is left running


def test_play_in_tmux(tmux: Tmux, tmp_path: Path) -> None:
    records = tmp_path / "records"
    command = [
        "env", "TERM=xterm-256color", "COLORTERM=truecolor",
        sys.executable, "-c", "from cantstop.cli import main; main()",
        "play", "--players", "Ann,bot:random", "--seed", "7", "--first", "A",
        "--records", str(records), "--delay", "0.05",
    ]
    tmux.start(command)
    screen = tmux.wait_for("Ann (A) to roll")
    assert "Roll (r)" in screen and "Random bot" in screen
    for column in (" 7 ", " 2 ", " 12 "):
        assert column in screen
    tmux.keys("r")
    screen = tmux.wait_for("Ann rolls")
    if "Ann (A) to choose" in screen:
        tmux.keys("1")
        tmux.wait_for("Ann plays")
        tmux.keys("s")
        tmux.wait_for("Ann stops")
    else:  # the seeded first roll may bust; then the message waits for a key
        tmux.keys("Enter")
    tmux.wait_for("Random bot rolls")
    tmux.wait_for("Ann (A) to roll")  # the bot's turn is played out on its own
    tmux.keys("?")
    assert "undo your last choice" in tmux.wait_for("Keys")
    tmux.keys("Escape")
    tmux.keys("C-c")
    screen = tmux.wait_for("Quit Can't Stop?")
    assert "--resume" in screen
    tmux.keys("y")
    screen = tmux.wait_for("EXIT=")
    assert "EXIT=0" in screen
    assert "Game record:" in screen
    [path] = records.iterdir()  # the one game, saved (the path on screen may wrap)
    record = read_record(path.read_text())
    assert record.players == ["Ann", "Random bot"] and len(record.events) >= 3


def test_the_game_leaves_when_its_terminal_closes(tmux: Tmux, tmp_path: Path) -> None:
    """Run under another program, as `make play` does, the game gets no hang-up signal when
    the window closes; it must notice the dead terminal and exit, not spin on it."""
    marker = tmp_path / "game.pid"
    game = (
        "import os, sys; from cantstop.cli import main; "
        f"open({str(marker)!r}, 'w').write(str(os.getpid())); main()"
    )
    command = shlex.join([sys.executable, "-c", game, "play", "--players", "Ann,bot:random",
                          "--records", str(tmp_path / "records")])
    makefile = tmp_path / "Makefile"
    makefile.write_text(f"play:\n\t{command.replace('$', '$$')}\n")
    tmux.run("new-session", "-d", "-s", tmux.session, "-x", "100", "-y", "30",
             f"env TERM=xterm-256color make -s -f {shlex.quote(str(makefile))} play")
    tmux.wait_for("Ann (A) to roll")
    pid = int(marker.read_text())
    tmux.kill()
    deadline = time.monotonic() + 20  # a bound on waiting, not an assertion on speed
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    alive = Path(f"/proc/{pid}").exists()
    if alive:
        subprocess.run(["kill", "-9", str(pid)], check=False)
    assert not alive, "the game kept running after its terminal closed"


def test_a_game_played_to_its_end_is_analysed_in_tmux(tmux: Tmux, tmp_path: Path) -> None:
    """A short game (a small board the rivals bot learned with two players) played by keys
    to its end; the analyse key shows the report, then a decision with its roll map."""
    command = [
        "env", "TERM=xterm-256color", "COLORTERM=truecolor",
        sys.executable, "-c", "from cantstop.cli import main; main()",
        "play", "--players", "Ann,bot:rivals", "--variant", "classic+heights=1.1.1.2.2.2.2.2.1.1.1",
        "--seed", "5", "--first", "A", "--records", str(tmp_path / "records"), "--delay", "0.05",
    ]
    tmux.start(command)
    tmux.wait_for("Ann (A) to roll")
    # Each round: choose the first choice, stop, roll. A key that means nothing in the phase
    # (or on the bot's turn) only shows a hint; a bust's message takes any key.
    deadline = time.monotonic() + 300  # the rivals bot compiles its kernels on its first move
    while "a: analyse the game" not in (screen := tmux.screen()):
        if time.monotonic() > deadline:
            raise AssertionError(f"the game did not end; the screen:\n{screen}")
        tmux.keys("1", "s", "r")
        time.sleep(0.5)
    tmux.keys("a")
    tmux.wait_for("accuracy", within=300)  # the first analysis loads the value model
    for shown in ("decisions", "A Ann", "B Rivals bot", " won after ", "chance to win (%), move by move"):
        tmux.wait_for(shown)
    tmux.keys("Right")  # each part is waited for: a capture can catch the screen half redrawn
    tmux.wait_for("decision 1 of")
    tmux.wait_for("vs best")
    tmux.wait_for("Roll map", within=120)
    tmux.wait_for("bust: ")  # the roll map's own lines, waited for apart (it draws after its title)
    tmux.keys("q")
    assert "EXIT=0" in tmux.wait_for("EXIT=")
