"""Outside programs as players: good ones play, broken ones forfeit with a reason."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from cantstop.arena.match import MatchSpec
from cantstop.arena.runner import bot_labels, run_match
from cantstop.core.record import read_record
from cantstop.core.state import new_game
from cantstop.core.variant import preset
from cantstop.protocol.client import ProtocolPlayer
from cantstop.table import Fault, SeatFailed

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mybot.py"

# A well-behaved engine whose `go` reply is decided by MISBEHAVE on the nth go of a game.
TEMPLATE = """
import sys, time
count = 0
def send(text):
    sys.stdout.write(text + "\\n"); sys.stdout.flush()
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "cantstop":
        send("a banner a controller must tolerate")
        send("id name fake"); send("cantstopok")
    elif words[0] == "isready":
        send("readyok")
    elif words[0] == "newgame":
        count = 0
    elif words[0] == "go":
        count += 1
        legal = words[words.index("legal") + 1:]
        if count >= 3:
            MISBEHAVE
        send("info string thinking"); send("bestmove " + legal[-1])
    elif words[0] == "quit":
        break
"""


def engine(tmp_path: Path, misbehave: str) -> str:
    script = tmp_path / "fake.py"
    script.write_text(TEMPLATE.replace("MISBEHAVE", textwrap.dedent(misbehave).strip()))
    return f"cmd:{sys.executable} {script}"


@pytest.mark.parametrize(
    ("misbehave", "fault", "words"),
    [
        ("sys.exit(3)", Fault.CRASH, "exited with code 3"),
        ("sys.stderr.write('dying words\\n'); sys.stderr.flush(); sys.exit(1)", Fault.CRASH, "dying words"),
        ("time.sleep(60)", Fault.TIMEOUT, "no bestmove within"),
        ("send('hello there')", Fault.PROTOCOL, "unexpected line 'hello there'"),
        ("send('bestmove 6-10')", Fault.PROTOCOL, "bad move '6-10'"),
        ("send('info string lost my way'); send('bestmove none')", Fault.CRASH, "lost my way"),
        ("send('bestmove 13')", Fault.ILLEGAL, "13 is not legal"),
    ],
)
def test_a_misbehaving_program_forfeits_and_the_match_completes(
    tmp_path: Path, misbehave: str, fault: Fault, words: str
) -> None:
    bots = ("random", engine(tmp_path, misbehave))
    # Budgets far above what a well-behaved answer needs, even on a loaded machine: 3.05 s
    # a decision where the fake sleeps (its earlier answers, and random's, need milliseconds).
    spec = MatchSpec(bots, bot_labels(list(bots)), seed=1, budget_ms=1500 if fault is Fault.TIMEOUT else 2000)
    outcome = run_match(spec, 4, 2, tmp_path / "out")
    assert outcome.tally.games == 4
    summary = [json.loads(line) for line in (tmp_path / "out" / "games.jsonl").read_text().splitlines()]
    forfeits = [line["forfeit"] for line in summary if line["forfeit"]]
    assert len(forfeits) == 4  # every game reaches the fake's third go
    for forfeit in forfeits:
        assert forfeit["bot"] == "fake" and forfeit["fault"] == fault and words in forfeit["reason"]
    assert outcome.tally.wins == [4, 0]


def test_a_good_program_plays_whole_games(tmp_path: Path) -> None:
    bots = (f"cmd:{sys.executable} {EXAMPLE}", "random")
    spec = MatchSpec(bots, bot_labels(list(bots)), seed=2)
    assert spec.labels[0] == "mybot 1.0"
    outcome = run_match(spec, 4, 1, tmp_path)
    assert outcome.tally.games == 4 and sum(outcome.tally.wins) == 4
    assert not any(outcome.tally.forfeits[0].values())


def test_a_program_that_cannot_start_is_named() -> None:
    with pytest.raises(ValueError, match="cannot start"):
        bot_labels(["random", "cmd:/nonexistent/engine --fast"])


def test_a_program_without_handshake_times_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("cantstop.protocol.client.START_SECONDS", 0.5)
    player = ProtocolPlayer(f"{sys.executable} -c 'import time; time.sleep(30)'", 2.0)
    with pytest.raises(SeatFailed, match="no cantstopok within"):
        player.new_game(preset("classic"), 2, 0, 1)
    player.close()


def test_seed_option_is_sent_when_declared(tmp_path: Path) -> None:
    log = tmp_path / "seen.txt"
    script = tmp_path / "echo.py"
    script.write_text(textwrap.dedent(f"""
        import sys
        for line in sys.stdin:
            open({str(log)!r}, "a").write(line)
            if line.startswith("cantstop"):
                print("option name Seed type spin default 0 min 0 max 2147483647")
                print("cantstopok", flush=True)
            elif line.startswith("isready"):
                print("readyok", flush=True)
            elif line.startswith("go"):
                print("bestmove roll", flush=True)
    """))
    player = ProtocolPlayer(f"{sys.executable} {script}", 2.0)
    player.new_game(preset("classic"), 2, 1, 1234)
    state = new_game("classic", 2).roll((2, 4, 5, 5)).play((6, 10))
    assert player.act(state, 2000) == "roll"
    player.close()
    seen = log.read_text().splitlines()
    assert seen[:4] == ["cantstop", "setoption name Seed value 1234", "newgame classic 2 1", "isready"]
    assert seen[4].startswith("position classic ") and seen[5] == "go movetime 2000 legal roll stop"
    assert seen[6] == "quit"


def test_a_name_with_the_records_separator_still_gives_readable_records(tmp_path: Path) -> None:
    script = tmp_path / "named.py"
    script.write_text(TEMPLATE.replace('send("id name fake")', 'send("id name  evil; bot ")').replace(
        "MISBEHAVE", "pass"))
    bots = ("random", f"cmd:{sys.executable} {script}")
    spec = MatchSpec(bots, bot_labels(list(bots)), seed=3)
    assert spec.labels[1] == "evil, bot"
    run_match(spec, 2, 1, tmp_path / "out")
    for path in (tmp_path / "out" / "games").iterdir():
        assert sorted(read_record(path.read_text()).players) == ["evil, bot", "random"]
