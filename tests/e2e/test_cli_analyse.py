"""`cantstop analyse` and `cantstop rollmap`: what a person reads, the JSON a tool reads, the refusals."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from cantstop.bots import get_bot
from cantstop.cli import main
from cantstop.core.dice import SeededDice
from cantstop.table import BotPlayer, Table
from cantstop.web.db.storage import Storage
from cantstop.web.db.values import Append, SeatKind

GOLDEN = Path(__file__).parent.parent / "core" / "golden"
FOUR = GOLDEN / "classic-4p.txt"
BEFORE_2455 = "classic 00000000000/00000000000 01001000000 A decide 2 0"


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_analyse_prints_every_turn_each_player_s_accuracy_and_the_graph() -> None:
    code, out = run("analyse", str(FOUR))
    assert code == 0, out
    assert out.startswith("classic: A Ann, B Bob, C Cy, D Di. Bob won after 56 turns.")
    assert "accuracy" in out and "Biggest swings of luck" in out
    assert "chance to win (%), move by move" in out  # the terminal graph
    # No value file for four players: the report says the values are the learned model's.
    assert "\nValues: the rivals bot's learned chance to win" in out
    assert "\x1b[" not in out  # no colour codes when the output is not a terminal


def test_analyse_json_holds_each_decision_with_its_options(tmp_path: Path) -> None:
    code, out = run("analyse", str(FOUR), "--json")
    assert code == 0, out
    data = json.loads(out)
    assert data["method"] == "learned" and data["units"] == "chance"
    choice = next(d for d in data["decisions"] if len(d["options"]) > 2)
    values = [o["value"] for o in choice["options"]]
    assert values == sorted(values, reverse=True)
    assert choice["loss"] == values[0] - next(o["value"] for o in choice["options"] if o["action"] == choice["chosen"])
    assert len(data["reports"]) == 4


def test_analyse_draws_the_graph_into_an_image(tmp_path: Path) -> None:
    image = tmp_path / "game.png"
    code, out = run("analyse", str(FOUR), "--plot", str(image), "--no-graph")
    assert code == 0, out
    assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_game_in_progress_is_refused_with_exit_code_2(tmp_path: Path) -> None:
    lines = FOUR.read_text(encoding="utf-8").splitlines()
    unfinished = tmp_path / "unfinished.txt"
    unfinished.write_text("\n".join(line for line in lines[:20] if not line.startswith(("[Result", "[Final"))) + "\n", encoding="utf-8")
    code, out = run("analyse", str(unfinished))
    assert code == 2
    assert "not over" in out


def test_a_record_that_does_not_replay_is_refused_naming_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text('[Variant "classic"]\n[Players "A; B"]\n\n1. A 2455 7+7 stop\n', encoding="utf-8")
    code, out = run("analyse", str(bad))
    assert code == 2
    assert "line 4" in out and "7+7" in out


SMALL = "classic+heights=1.1.1.2.2.2.2.2.1.1.1"  # a board the rivals bot learned: games of a few turns


def stored(url: str, finish: bool = True) -> str:
    """A game between two bots stored as a server stores one: played to its end, or (not
    `finish`) its first move only."""
    storage = Storage(url)
    storage.migrate()
    try:
        game_id = storage.create_game(SMALL, [(SeatKind.BOT, "rule28"), (SeatKind.BOT, "expert")])
        storage.start(game_id, 0, {})
        players = [BotPlayer(get_bot("rule28")), BotPlayer(get_bot("expert"))]
        table = Table.new(SMALL, ["bot:rule28", "bot:expert"], SeededDice(5), first=0, players=players)
        table.run(until=None if finish else (lambda t: len(t.moves) >= 1))
        storage.append_many([Append(game_id, 1, tuple(table.moves), table.winner if table.over else None, None if table.over else table.seat)])
        return game_id
    finally:
        storage.close()


def test_analyse_reads_a_finished_game_from_a_server_database(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'server.sqlite3'}"
    game_id = stored(url)
    code, out = run("analyse", game_id, "--db", url, "--no-graph")
    assert code == 0, out
    assert out.startswith(f"{SMALL}: A Rule-of-28 bot, B Expert bot.")  # the players as the pages name them
    code, out = run("analyse", game_id, "--db", url, "--json")
    assert code == 0 and json.loads(out)["reports"][1]["name"] == "Expert bot"


def test_analyse_refuses_a_game_not_over_or_not_there_and_a_file_that_is_not_one(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'server.sqlite3'}"
    playing = stored(url, finish=False)
    code, out = run("analyse", playing, "--db", url)
    assert code == 2 and "is not over (it is playing)" in out
    code, out = run("analyse", "nosuchgame", "--db", url)
    assert code == 2 and "no game 'nosuchgame' in sqlite:///" in out
    code, out = run("analyse", "nosuchgame")
    assert code == 2 and "no record file 'nosuchgame' (a game's id on a server needs --db URL)" in out
    code, out = run("analyse", "x", "--db", "not a url")
    assert code == 2 and "not a database URL" in out


def test_rollmap_compares_rolling_with_stopping() -> None:
    code, out = run("rollmap", BEFORE_2455)
    assert code == 0, out
    assert "bust: " in out and "rolling: " in out and "stopping: " in out


def test_rollmap_json_sums_to_every_roll() -> None:
    code, out = run("rollmap", BEFORE_2455, "--json")
    assert code == 0, out
    data = json.loads(out)
    assert sum(g["rolls"] for g in data["groups"]) == 1296
    assert data["stop"] is not None


def test_rollmap_refuses_a_position_whose_dice_are_rolled() -> None:
    code, out = run("rollmap", "classic 00000000000/00000000000 00000000000 A choose:2455 0 0")
    assert code == 2 and "already rolled" in out
    code, out = run("rollmap", "not a position")
    assert code == 2 and "POSITION" in out
