"""Game records: golden games replay to their known final positions; round-trips; corruptions."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import cantstop.core.record as record_module
from cantstop import ROLL, STOP, Phase, RecordError, SeededDice
from cantstop.core.notation import to_notation
from cantstop.core.record import read_record, record_from_json, record_to_json, write_record
from cantstop.table import Move, Table

from .helpers import ALL_SPECS, players_for

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.txt"))


def test_there_are_golden_records_for_every_kind_of_game() -> None:
    assert {p.stem for p in GOLDEN} == {
        "classic-2p", "classic-4p", "solitaire", "turtles-3p", "turtles-relay-2p"
    }


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_golden_record_replays_to_its_final_position(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    record = read_record(text)
    final = record.final()
    assert final.is_over
    assert to_notation(final) == record.tags["Final"]
    assert write_record(record) == text  # the writer gives the file back byte for byte
    assert record.result == "ABCD"[final.seat]


def random_game(spec: str, seed: int, max_events: int | None = None) -> Table:
    """A game played by a seeded random policy, stopped early after `max_events` if given."""
    players = players_for(spec)
    game = Table.new(spec, [f"P{i}" for i in range(players)], SeededDice(seed), tags={"Seed": str(seed)})
    rng = random.Random(seed)
    while not game.state.is_over and (max_events is None or len(game.record.events) < max_events):
        state = game.state
        if state.phase is Phase.ROLL:
            game.play(Move.of(ROLL))
        elif state.phase is Phase.CHOOSE:
            game.play(Move.of(rng.choice(state.options)))
        else:
            game.play(Move.of(STOP if STOP in state.legal_actions() and rng.random() < 0.4 else ROLL))
    return game


@settings(max_examples=20, deadline=None)
@given(spec=st.sampled_from(ALL_SPECS), seed=st.integers(0, 10**6), cut=st.none() | st.integers(0, 60))
def test_records_round_trip_through_text_and_json(spec: str, seed: int, cut: int | None) -> None:
    game = random_game(spec, seed, cut)
    text = write_record(game.record)
    again = read_record(text)
    assert again.events == game.record.events
    assert again.final() == game.state
    assert again.players == game.record.players and again.first == game.record.first
    assert again.variant == game.record.variant
    assert write_record(again) == text
    via_json = record_from_json(record_to_json(game.record))
    assert via_json.events == game.record.events and via_json.final() == game.state


def test_after_turn_gives_the_position_between_turns() -> None:
    record = read_record((Path(__file__).parent / "golden" / "classic-2p.txt").read_text())
    assert record.after_turn(0) == record.start()
    three = record.after_turn(3)
    assert three.turn == 3 and three.phase is Phase.ROLL
    assert record.after_turn(10_000) == record.final()


def test_a_record_of_a_game_in_progress_ends_without_stop() -> None:
    text = '[Variant "classic"]\n[Players "Ann; Bob"]\n\n1. A 1546 6+10 2435'
    record = read_record(text)
    assert record.result == "*" and record.final().phase is Phase.CHOOSE
    assert "1. A 1546 6+10 2435\n" in write_record(record)


def test_writing_a_record_replays_it_once(monkeypatch: pytest.MonkeyPatch) -> None:
    record = read_record((Path(__file__).parent / "golden" / "classic-2p.txt").read_text())
    applied = []
    real = record_module.apply_event
    monkeypatch.setattr(record_module, "apply_event", lambda s, e: applied.append(e) or real(s, e))
    write_record(record)
    assert len(applied) == len(record.events)


def test_writing_a_corrupt_record_names_the_event() -> None:
    record = read_record(HEADER + "1. A 1546 6+10 stop")
    record.events[1] = (6, 8)
    with pytest.raises(RecordError, match=r"event 2 \(choice 6\+8\): 6\+8 is not legal"):
        write_record(record)


def test_comments_and_blank_lines_are_ignored() -> None:
    text = '[Players "Ann; Bob"] {classic by default}\n\n1. A 1546 {nice} 6+10 stop\n\n2. B 1111 2+2 stop\n'
    assert read_record(text).final().turn == 2


PRINTABLE = st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"), blacklist_characters=";\x85")


@given(names=st.lists(st.text(PRINTABLE, min_size=1, max_size=12).map(str.strip).filter(bool),
                      min_size=2, max_size=4, unique=True), note=st.text(PRINTABLE, max_size=12))
@example(names=["Ann {the elder}", 'B"o\\b'], note="{not a comment}")
def test_names_and_tag_values_come_back_whole_with_braces_and_quotes(names: list[str], note: str) -> None:
    game = Table.new("classic", names, SeededDice(1), first=0, tags={"Event": note})
    game.play(Move.of(ROLL))
    again = read_record(write_record(game.record))
    assert again.players == names and again.tags["Event"] == note


HEADER = '[Variant "classic"]\n[Players "Ann; Bob"]\n[First "A"]\n\n'


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        ('[Variant classic]\n[Players "Ann; Bob"]\n\n1. A 1546 6+10 stop', 1, "bad tag"),
        (HEADER + "1. B 1546 6+10 stop", 5, "seat A's, not 'B'"),
        (HEADER + "1. A 1546 6+8 stop", 5, "6+8 is not legal here; legal actions: 5+11, 6+10, 7+9"),
        (HEADER + "1. A 1546 6+10 1111 2+2 6666 stop", 5, "the dice before 'stop' bust: write 'bust'"),
        (HEADER + "1. A 1546 6+10 1111 2+2 6666", 5, "dice 6666 bust: end the turn with 'bust'"),
        (HEADER + "1. A 1546 6+10 stop 2435 6+8 stop", 5, "'2435' after the end of the turn"),
        (HEADER + "1. A 1549 6+10 stop", 5, "each die shows 1..6"),
        (HEADER + "1. A 15x6 6+10 stop", 5, "bad choice '15x6'"),
        (HEADER + "2. A 1546 6+10 stop", 5, "expected turn 1, found 2."),
        (HEADER + "1. A 1546 6+10\n2. B 1111 2+2 stop", 5, "does not end with 'stop' or 'bust'"),
        (HEADER + "1. A 1546 bust", 5, "'bust' must follow dice that fit nowhere"),
        (HEADER + "1. A", 5, "a turn line is its number, seat and moves"),
        (HEADER + "1. A 1546 6+10 stop\n[Event \"x\"]", 6, "header tags must come before"),
    ],
)
def test_corrupt_records_name_the_line(body: str, line: int, message: str) -> None:
    with pytest.raises(RecordError) as info:
        read_record(body)
    assert info.value.line == line
    assert str(info.value).startswith(f"line {line}: ")
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[Players "Ann; Bob"]\n[Result "B"]\n\n1. A 1546 6+10 stop', "Result tag says 'B' but the moves give '\\*'"),
        ('[Variant "classic"]\n\n1. A 1546 6+10 stop', "Players tag is missing"),
        ('[Variant "chess"]\n[Players "Ann"]', "unknown variant 'chess'"),
        ('[Players "Ann; Bob"]\n[First "C"]', "First 'C' is not a seat of AB"),
        ('[Variant "solitaire"]\n[Players "Ann; Bob"]', "1..1 players, not 2"),
    ],
)
def test_corrupt_headers_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=message.replace(".", r"\.")) as info:
        read_record(text)
    # the error names the line of the tag at fault; a missing tag has no line
    expected = {"Players tag is missing": None, "unknown variant 'chess'": 1}.get(message, 2)
    assert info.value.line == expected


def test_a_wrong_result_tag_on_a_finished_game() -> None:
    text = GOLDEN[0].read_text(encoding="utf-8").replace('[Result "A"]', '[Result "B"]')
    with pytest.raises(RecordError, match=r"^line 8: the Result tag says 'B' but the moves give 'A'"):
        read_record(text)


def test_moves_after_the_end_of_the_game() -> None:
    text = GOLDEN[0].read_text(encoding="utf-8") + "40. B 1111 2+2 stop\n"
    with pytest.raises(RecordError, match="moves after the end of the game"):
        read_record(text)


@pytest.mark.parametrize(
    ("events", "message"),
    [
        ([{"dice": [1, 5, 4, 6]}, {"choice": [6, 8]}], "event 2 (choice 6+8)"),
        ([{"dice": [1, 5, 4, 6]}, {"decision": "stop"}], "event 2 (stop)"),
        ([{"dice": [1, 5, 4, 9]}], "event 1 (dice 1549)"),
        ([{"decision": "jump"}], "'jump' is not a valid Decision"),
        ([{"nothing": 1}], "KeyError"),
    ],
)
def test_corrupt_json_records_name_the_event(events: list[dict[str, object]], message: str) -> None:
    data = {"variant": "classic", "players": ["Ann", "Bob"], "first": 0, "events": events}
    with pytest.raises(RecordError, match=message.replace("(", r"\(").replace(")", r"\)").replace("+", r"\+")):
        record_from_json(data)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(ALL_SPECS), st.integers(0, 2**16), st.dictionaries(st.integers(0, 80), st.text(max_size=30), max_size=6))
def test_notes_are_comments_before_their_events_and_read_back_to_the_same_record(
    spec: str, seed: int, notes: dict[int, str]
) -> None:
    record = random_game(spec, seed).record
    text = write_record(record, notes)
    assert read_record(text) == record
    assert re.sub(r" \{[^}]*\}", "", text) == write_record(record)  # the notes add comments, nothing else
    written = sorted(n for n, note in notes.items() if n < len(record.events) and note.strip())
    assert text.count("{") == text.count("}") == len(written)  # a brace inside a note cannot end it early
    if written:  # the first note stands just before its event: after the events before it (and its turn's number)
        first = written[0]
        body = text.split("\n\n", 1)[1]
        earlier = record_module.Record(record.variant, record.players, record.first, record.events[:first], record.tags)
        before, _ = record_module.record_body(earlier)
        assert body.startswith(before)
        assert re.fullmatch(r"(\d+\. [A-D])? ", body[len(before) : body.index("{")])
