"""Players and ratings: the leaderboard with display names, profiles with rating history, turns."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from account_helpers import create, people, play_between, rated_game
from fastapi.testclient import TestClient
from test_web_api import play_out
from web_helpers import join, new_game

from cantstop.core.record import read_record
from cantstop.web.db.storage import Storage


def finish(client: TestClient, name: str, bot: str = "bot:random") -> str:
    game_id = new_game(client, ["open", bot], "classic+to_win=1")
    play_out(client, game_id, join(client, game_id, 0, name))
    return game_id


def test_a_profile_has_the_rating_its_history_and_recent_games_with_turns(storage: Storage) -> None:
    with people(storage, "Ann/Z", "Bob") as (ann, bob):  # a name may hold a slash
        first = rated_game(ann, [bob], bots=("random",))
        play_between({0: ann, 1: bob}, first)
        second = rated_game(ann, [bob], bots=("random",))
        play_between({0: ann, 1: bob}, second)
        profile = ann.get(f"/api/players/{quote('Ann/Z', safe='')}").json()
    assert profile["name"] == profile["display"] == "Ann/Z" and profile["bot"] is False and profile["kind"] == "person"
    assert profile["rating"]["games"] == 2
    # One point after each rated game, oldest first; the last is the rating as it stands.
    assert [p["game"] for p in profile["history"]] == [first, second]
    assert profile["history"][-1]["rating"] == profile["rating"]["rating"]
    assert profile["history"][0]["mu"] != profile["history"][1]["mu"]
    # Recent games, newest first, each counted in turns as its record counts them.
    assert [g["id"] for g in profile["games"]] == [second, first]
    for g in profile["games"]:
        record = read_record(ann.get(f"/api/games/{g['id']}/record").text)
        assert g["turns"] == record.final().turn and g["turns"] < g["version"]
        assert g["display"] == ["Ann/Z", "Bob", "Random bot"]
    # Win rates by variant and by number of players, counted from the games themselves.
    wins = sum(record_winner(ann, g["id"]) == 0 for g in profile["games"])
    assert profile["stats"]["by_variant"] == [{"variant": "classic", "title": "Classic", "games": 2, "wins": wins, "rate": round(wins / 2, 3)}]
    assert profile["stats"]["by_players"] == [{"players": 3, "games": 2, "wins": wins, "rate": round(wins / 2, 3)}]


def record_winner(client: Any, game_id: str) -> int | None:
    return read_record(client.get(f"/api/games/{game_id}/record").text).final().winner


def test_a_bot_is_shown_by_its_display_name_everywhere(storage: Storage) -> None:
    with people(storage, "Ann") as (ann,):
        made = create(ann, ["open", "bot:rule28"], take=[{"seat": 0}])
        game_id = made.json()["id"]
        play_between({0: ann}, game_id)
        client = ann
        board = client.get("/api/players", params={"board": "bots"}).json()
        assert [(r["name"], r["display"], r["url"]) for r in board] == [("bot:rule28", "Rule-of-28 bot", "/player/bot%3Arule28")]
        game = client.get(f"/api/games/{game_id}").json()
        assert [s["display"] for s in game["seats"]] == ["Ann", "Rule-of-28 bot"]
        assert [s["name"] for s in game["seats"]] == ["Ann", "bot:rule28"]  # the names stay as they were
        assert not any("bot:" in line["text"] for line in game["log"])
        assert any(line["text"].startswith("Rule-of-28 bot") for line in game["log"])
        profile = client.get("/api/players/bot:rule28").json()
        # A bot's rating is trusted, and a newcomer's is not yet: the game does not move the bot's (players.scale).
        assert profile["display"] == "Rule-of-28 bot" and profile["bot"] is True and profile["rating"]["games"] == 0
        assert [p["weight"] for p in profile["history"]] == [0.0]
        (listed,) = client.get("/api/finished").json()
        assert listed["id"] == game_id and listed["display"] == ["Ann", "Rule-of-28 bot"] and listed["turns"] >= 1
        assert "Rule-of-28 bot" in {b["display"] for b in client.get("/api/variants").json()["bots"]}


def test_the_finished_list_filters_by_player_and_limits(client: TestClient) -> None:
    ann, bob = finish(client, "Ann"), finish(client, "Bob")
    assert [g["id"] for g in client.get("/api/finished", params={"player": "Ann"}).json()] == [ann]
    assert [g["id"] for g in client.get("/api/finished").json()] == [bob, ann]
    assert [g["id"] for g in client.get("/api/finished", params={"limit": 1}).json()] == [bob]
    assert client.get("/api/finished", params={"player": "Nobody"}).json() == []


def test_an_unknown_player_or_a_bad_query_is_a_clear_error(client: TestClient) -> None:
    missing = client.get("/api/players/Nobody")
    assert missing.status_code == 404 and missing.json()["error"] == "no_player" and "Nobody" in missing.json()["message"]
    assert client.get("/api/players/" + "x" * 41).status_code == 422
    assert client.get("/api/players", params={"limit": 0}).status_code == 422
    assert client.get("/api/finished", params={"limit": 1000}).json()["error"] == "bad_request"


def test_the_pages_are_served(client: TestClient) -> None:
    for path in ("/leaderboard", "/rules", "/player/Ann", "/player/bot:rule28", "/player/a%2Fb"):
        response = client.get(path)
        assert response.status_code == 200 and response.headers["content-type"].startswith("text/html"), path
