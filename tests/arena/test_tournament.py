"""Round robins: every pair plays, the same deals everywhere, one fit ranks the field."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from cantstop.arena.match import MatchSpec
from cantstop.arena.runner import bot_labels, run_match
from cantstop.arena.tournament import STANDINGS, run_tournament
from cantstop.cli import main
from cantstop.core.record import Roll, read_record


def spec_of(*bots: str, seed: int = 0) -> MatchSpec:
    return MatchSpec(bots, bot_labels(list(bots)), seed=seed)


def test_every_pair_plays_its_games_and_the_points_add_up(tmp_path: Path) -> None:
    standings = run_tournament(spec_of("random", "test-cautious", "rule28", seed=4), 10, 1, tmp_path)
    pairs = sorted(p.name for p in tmp_path.iterdir() if p.is_dir())
    assert pairs == ["01-02-random-vs-test-cautious", "01-03-random-vs-rule28", "02-03-test-cautious-vs-rule28"]
    for i in range(3):
        for j in range(3):
            if i != j:
                assert standings.games[i][j] == 10
                assert standings.points[i][j] + standings.points[j][i] == 10
    assert all(len(list((tmp_path / p / "games").iterdir())) == 10 for p in pairs)
    assert standings.ranking()[0] == 2  # the Rule of 28 is far the strongest of these
    saved = json.loads((tmp_path / STANDINGS).read_text())
    assert [row["bot"] for row in saved["standings"]] == [standings.labels[i] for i in standings.ranking()]
    assert saved["crosstable"]["rule28"]["random"]["games"] == 10


def test_a_pair_of_the_tournament_is_the_match_the_arena_plays(tmp_path: Path) -> None:
    run_tournament(spec_of("random", "test-cautious", "rule28", seed=9), 6, 1, tmp_path / "t")
    run_match(spec_of("test-cautious", "rule28", seed=9), 6, 1, tmp_path / "m")
    pair = tmp_path / "t" / "02-03-test-cautious-vs-rule28"
    assert (pair / "games.jsonl").read_text() == (tmp_path / "m" / "games.jsonl").read_text()


def test_every_pair_meets_the_same_deals(tmp_path: Path) -> None:
    run_tournament(spec_of("random", "test-cautious", "rule28", seed=2), 4, 1, tmp_path)
    first_rolls = set()
    for pair in (p for p in tmp_path.iterdir() if p.is_dir()):
        events = read_record((pair / "games" / "000000.txt").read_text()).events
        first_rolls.add(next(e for e in events if isinstance(e, Roll)))
    assert len(first_rolls) == 1


def test_elo_is_above_the_field_average(tmp_path: Path) -> None:
    standings = run_tournament(spec_of("random", "test-cautious", "rule28", seed=4), 10, 1, tmp_path)
    elos = [standings.elo(i) for i in range(3)]
    assert math.isclose(sum(elos), 0.0, abs_tol=1e-6)
    assert elos[2] > elos[0] > elos[1]  # rule28, then random, then the one that stops 90% of the time
    for i in range(3):
        low, high = standings.elo_interval(i)
        assert low < elos[i] < high
    # The differences are the fit's own.
    assert math.isclose(elos[2] - elos[0], standings.fit.elo(2, 0))


def test_a_bot_that_loses_everything_still_gets_a_finite_rating(tmp_path: Path) -> None:
    standings = run_tournament(spec_of("test-never-stop", "random", seed=1), 2, 1, tmp_path)
    assert standings.fit.prior == 0.5
    assert all(math.isfinite(standings.elo(i)) for i in range(2))
    assert standings.ranking() == [1, 0]


def test_tournament_command_prints_standings_and_crosstable(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["tournament", "random", "test-cautious", "random", "--games", "4", "--jobs", "1",
               "--out", str(tmp_path / "t"), "--no-progress"],
    )
    assert result.exit_code == 0, result.output
    assert "Standings (12 games)" in result.output
    assert "random#1" in result.output and "random#2" in result.output
    assert "Score % of the row's bot" in result.output


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["random"], "at least 2 bots, not 1"),
        (["random", "rule28", "--variant", "solitaire"], "solitaire is for 1..1 players, not 2"),
        (["random", "nobody"], "unknown bot"),
    ],
)
def test_tournament_command_refuses_what_cannot_be_played(tmp_path: Path, args: list[str], words: str) -> None:
    result = CliRunner().invoke(main, ["tournament", *args, "--out", str(tmp_path / "x"), "--no-progress"])
    assert result.exit_code != 0
    assert words in result.output
