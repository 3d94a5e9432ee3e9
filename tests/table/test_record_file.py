"""A record file grows by each move's own text: never rewritten, always readable."""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from cantstop import STOP, Phase, SeededDice
from cantstop.core.record import read_record, write_record
from cantstop.table import Move, Table
from cantstop.table.move import ROLL_MOVE
from cantstop.table.record_file import RecordFile, write_atomically


def on_file(tmp_path: Path, table: Table) -> RecordFile:
    sink = RecordFile(tmp_path / "game.txt", table.record)
    table.sink = sink
    return sink


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), spec=st.sampled_from(["classic", "solitaire", "turtles-relay"]))
def test_every_move_is_appended_and_the_file_reads_back_as_the_game(tmp_path_factory: object, seed: int, spec: str) -> None:
    tmp = Path(tmp_path_factory.mktemp("records"))  # type: ignore[attr-defined]
    names = ["Ann"] if spec == "solitaire" else ["Ann", "Bob"]
    table = Table.new(spec, names, SeededDice(seed))
    sink = on_file(tmp, table)
    rng = random.Random(seed)
    before = sink.path.read_bytes()
    inode = sink.path.stat().st_ino
    while not table.over:
        state = table.state
        if state.phase is Phase.ROLL:
            table.play(ROLL_MOVE)
        elif state.phase is Phase.CHOOSE:
            table.play(Move.of(rng.choice(state.options)))
            if rng.random() < 0.2:
                table.undo()
                continue
        else:
            table.play(Move.of(STOP if rng.random() < 0.4 and STOP in state.legal_actions() else state.legal_actions()[0]))
        now = sink.path.read_bytes()
        if not table.over:  # (the end sets the Result tag in place)
            assert now.startswith(before[: before.rfind(b"\n") + 1])  # earlier turns are never touched
        before = now
        assert read_record(now.decode()).final() == table.state
    assert sink.path.stat().st_ino == inode  # appended to, not replaced
    text = sink.path.read_text()
    assert read_record(text).result == "AB"[table.winner or 0]
    assert text == write_record(table.record).replace(f'[Turns "{table.state.turn}"]\n', "")


def test_a_fallback_is_kept_as_a_comment_with_its_reason(tmp_path: Path) -> None:
    table = Table.new("classic", ["Ann", "Bob"], SeededDice(1), first=0)
    sink = on_file(tmp_path, table)
    table.play(Move.rolled((1, 5, 4, 6)))
    table.play(Move.timeout(0, "no answer in {30} s"))
    text = sink.path.read_text()
    assert text.endswith("1. A 1546 {fallback:A timeout: no answer in (30) s} 5+11")
    assert read_record(text).final() == table.state


def test_the_record_file_is_replaced_whole(tmp_path: Path) -> None:
    target = tmp_path / "game.txt"
    write_atomically(target, "first\n")
    write_atomically(target, "second\n")
    assert target.read_text() == "second\n"
    assert [p.name for p in tmp_path.iterdir()] == ["game.txt"]  # no temporary file is left
