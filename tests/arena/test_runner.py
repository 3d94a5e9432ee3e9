"""Whole matches: determinism across processes, forfeits, draws, the sequential test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cantstop.arena.match import GameResult, MatchSpec
from cantstop.arena.runner import Tally, bot_labels, run_match
from cantstop.arena.sprt import parse_sprt
from cantstop.core.errors import SetupError
from cantstop.core.record import read_record
from cantstop.table import Fault


def lines(out: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]


def spec_of(*bots: str, **changes: object) -> MatchSpec:
    return MatchSpec(bots, bot_labels(list(bots)), **changes)  # type: ignore[arg-type]


# The limit of every decision where a bot hangs on purpose: budget × tolerance 2 + 50 ms =
# 3.05 s. The watchdog interrupts the hanging bot there, and the bots that answer in
# microseconds are nowhere near it however loaded the machine (250 ms was, once).
HANG_BUDGET_MS = 1500


def test_results_do_not_depend_on_the_number_of_jobs(tmp_path: Path) -> None:
    spec = spec_of("random", "random", seed=5)
    one = run_match(spec, 24, 1, tmp_path / "one")
    two = run_match(spec, 24, 2, tmp_path / "two")
    assert (tmp_path / "one" / "games.jsonl").read_text() == (tmp_path / "two" / "games.jsonl").read_text()
    for record in (tmp_path / "one" / "games").iterdir():
        assert record.read_text() == (tmp_path / "two" / "games" / record.name).read_text()
    assert one.tally.wins == two.tally.wins and sum(one.tally.wins) == 24
    # Another seed gives other games.
    other = run_match(spec_of("random", "random", seed=6), 24, 1, tmp_path / "other")
    assert (tmp_path / "other" / "games.jsonl").read_text() != (tmp_path / "one" / "games.jsonl").read_text()
    assert other.tally.games == 24


def test_every_game_is_a_record_and_a_summary_line(tmp_path: Path) -> None:
    spec = spec_of("random", "test-cautious", "random", seed=2)
    outcome = run_match(spec, 7, 1, tmp_path)
    assert outcome.tally.games == outcome.scheduled == 12  # rounded up to two deals of 6 orders
    summary = lines(tmp_path)
    assert [s["game"] for s in summary] == list(range(12))
    for line in summary:
        record = read_record((tmp_path / str(line["record"])).read_text())
        final = record.final()
        assert record.players == line["bots"]
        assert final.winner == line["winner"] and final.turn == line["turns"]
        assert line["winner_bot"] == record.players[final.winner]  # type: ignore[index]
    data = json.loads((tmp_path / "summary.json").read_text())
    assert sum(bot["wins"] for bot in data["bots"]) == 12
    assert len(data["elo"]) == 3


@pytest.mark.parametrize(
    ("bot", "fault", "words"),
    [
        ("test-crash", Fault.CRASH, "RuntimeError: deliberate failure"),
        ("test-hang", Fault.TIMEOUT, "interrupted"),
        ("test-illegal", Fault.ILLEGAL, "13 is not legal"),
    ],
)
def test_a_failing_bot_forfeits_and_the_match_goes_on(tmp_path: Path, bot: str, fault: Fault, words: str) -> None:
    spec = spec_of("random", bot, seed=3, budget_ms=HANG_BUDGET_MS)
    outcome = run_match(spec, 4, 1, tmp_path)
    assert outcome.tally.games == 4
    forfeits = [line["forfeit"] for line in lines(tmp_path) if line["forfeit"]]
    assert forfeits, "the bot never reached the point where it fails"
    for forfeit in forfeits:
        assert forfeit["bot"] == bot and forfeit["fault"] == fault  # type: ignore[index]
        assert words in forfeit["reason"]  # type: ignore[index]
    assert sum(outcome.tally.forfeits[1].values()) == len(forfeits)
    assert outcome.tally.wins[0] >= len(forfeits)  # the opponent wins each forfeited game
    record = read_record((tmp_path / "games" / "000000.txt").read_text())
    if lines(tmp_path)[0]["forfeit"]:
        assert "Forfeit" in record.tags


def test_a_game_without_end_is_a_draw_at_the_turn_limit(tmp_path: Path) -> None:
    outcome = run_match(spec_of("test-never-stop", "test-never-stop", max_turns=30), 2, 1, tmp_path)
    assert outcome.tally.draws == [2, 2]
    assert all(line["draw"] and line["turns"] == 30 for line in lines(tmp_path))
    assert outcome.tally.pairs == [0, 0, 1, 0, 0]


def test_four_bots_play_every_seat_order(tmp_path: Path) -> None:
    outcome = run_match(spec_of("random", "random", "test-cautious", "random", seed=1), 24, 2, tmp_path)
    assert outcome.tally.games == 24
    seats = {tuple(line["bots"]) for line in lines(tmp_path)}  # type: ignore[arg-type]
    assert len(seats) == 24


def test_sprt_accepts_h1_for_a_clearly_stronger_bot_and_stops_early(tmp_path: Path) -> None:
    test = parse_sprt("elo0=0 elo1=50 alpha=0.05 beta=0.05")
    outcome = run_match(spec_of("random", "test-cautious", seed=1), 2000, 1, tmp_path, test)
    assert outcome.verdict == "H1"
    assert outcome.llr >= test.upper
    assert outcome.tally.games < 200 and outcome.tally.games % 2 == 0
    assert len(lines(tmp_path)) == outcome.tally.games
    assert json.loads((tmp_path / "summary.json").read_text())["sprt"]["verdict"] == "H1"


def test_sprt_accepts_h0_for_a_weaker_bot_and_stops_at_the_same_pair_with_two_jobs(tmp_path: Path) -> None:
    test = parse_sprt("elo0=0 elo1=50")
    spec = spec_of("test-cautious", "random", seed=1)
    one = run_match(spec, 2000, 1, tmp_path / "one", test)
    two = run_match(spec, 2000, 2, tmp_path / "two", test)
    assert one.verdict == two.verdict == "H0"
    assert one.tally.games == two.tally.games < 200
    assert one.llr == two.llr <= test.lower


def test_sprt_without_enough_games_gives_no_verdict(tmp_path: Path) -> None:
    outcome = run_match(spec_of("random", "random", seed=4), 4, 1, tmp_path, parse_sprt("elo0=0 elo1=5"))
    assert outcome.verdict is None and outcome.tally.games == 4


def test_sprt_is_for_two_bots(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="two bots"):
        run_match(spec_of("random", "random", "random"), 6, 1, tmp_path, parse_sprt("elo1=20"))


def test_labels_are_unique_and_unknown_bots_are_named() -> None:
    assert bot_labels(["random", "test-cautious", "random"]) == ("random#1", "test-cautious", "random#2")
    with pytest.raises(ValueError, match="unknown bot 'nobody'"):
        bot_labels(["random", "nobody"])
    with pytest.raises(ValueError, match="cmd: needs a command"):
        bot_labels(["random", "cmd: "])


def test_a_hanging_bot_is_interrupted_in_worker_processes_too(tmp_path: Path) -> None:
    spec = spec_of("test-hang", "random", seed=3, budget_ms=HANG_BUDGET_MS)
    run_match(spec, 2, 1, tmp_path / "one")
    run_match(spec, 2, 2, tmp_path / "two")
    one = (tmp_path / "one" / "games.jsonl").read_text()
    assert one == (tmp_path / "two" / "games.jsonl").read_text()
    assert one.count('"fault":"timeout"') == 2


def test_a_forfeit_among_three_bots_has_no_winner_and_loses_to_each_other_bot() -> None:
    tally = Tally(("a", "b", "c"))
    tally.add(GameResult(0, 0, (2, 0, 1), None, 4, forfeit=1, fault=Fault.CRASH, reason="boom"))
    assert tally.wins == [0, 0, 0] and tally.draws == [0, 0, 0]
    assert tally.pairwise[2][0] == 1 and tally.pairwise[1][0] == 1 and tally.pairwise[0] == [0, 0, 0]
    assert tally.forfeits[0][Fault.CRASH] == 1 and tally.first_reason[0] == "crash: boom"


def test_a_match_no_game_of_which_could_end_is_refused_before_it_starts(tmp_path: Path) -> None:
    # Three players racing to 5 of 11 columns can block each other for ever (Variant.most_players):
    # called from code rather than the command line, the match used to score every game a draw.
    spec = spec_of("random", "random", "random", variant="classic+to_win=5")
    with pytest.raises(SetupError, match="3"):
        run_match(spec, 6, 1, tmp_path)
    assert not (tmp_path / "games.jsonl").exists()
