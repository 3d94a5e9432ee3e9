"""Players and ratings: the leaderboard with display names, profiles with rating history, turns."""

from __future__ import annotations

from urllib.parse import quote

from fastapi.testclient import TestClient
from test_web_api import play_out
from web_helpers import join, new_game

from cantstop.core.record import read_record
from cantstop.web.db.storage import Storage
from cantstop.web.db.values import Rating


def finish(client: TestClient, name: str, bot: str = "bot:random") -> str:
    game_id = new_game(client, ["open", bot], "classic+to_win=1")
    play_out(client, game_id, join(client, game_id, 0, name))
    return game_id


def test_a_profile_has_the_rating_its_history_and_recent_games_with_turns(client: TestClient) -> None:
    first, second = finish(client, "Ann/Z"), finish(client, "Ann/Z")  # a name may hold a slash
    profile = client.get(f"/api/players/{quote('Ann/Z', safe='')}").json()
    assert profile["name"] == profile["display"] == "Ann/Z" and profile["bot"] is False
    assert profile["rating"]["games"] == 2
    # One point after each rated game, oldest first; the last is the rating as it stands.
    assert [p["game"] for p in profile["history"]] == [first, second]
    assert profile["history"][-1]["rating"] == profile["rating"]["rating"]
    assert profile["history"][0]["mu"] != profile["history"][1]["mu"]
    # Recent games, newest first, each counted in turns as its record counts them.
    assert [g["id"] for g in profile["games"]] == [second, first]
    for g in profile["games"]:
        record = read_record(client.get(f"/api/games/{g['id']}/record").text)
        assert g["turns"] == record.final().turn and g["turns"] < g["version"]
        assert g["display"] == ["Ann/Z", "Random bot"]


def test_a_bot_is_shown_by_its_display_name_everywhere(client: TestClient) -> None:
    game_id = finish(client, "Ann", "bot:rule28")
    board = client.get("/api/players").json()
    assert {(r["name"], r["display"]) for r in board} == {("Ann", "Ann"), ("bot:rule28", "Rule-of-28 bot")}
    game = client.get(f"/api/games/{game_id}").json()
    assert [s["display"] for s in game["seats"]] == ["Ann", "Rule-of-28 bot"]
    assert [s["name"] for s in game["seats"]] == ["Ann", "bot:rule28"]  # the names stay as they were
    assert not any("bot:" in line["text"] for line in game["log"])
    assert any(line["text"].startswith("Rule-of-28 bot") for line in game["log"])
    profile = client.get("/api/players/bot:rule28").json()
    assert profile["display"] == "Rule-of-28 bot" and profile["bot"] is True
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


def test_ratings_saved_with_a_game_are_its_history(storage: Storage) -> None:
    storage.save_ratings([Rating("Ann", 30, 2, 1, 1)])  # no game: the rating, but no point
    assert storage.rating_history("Ann") == []
    game_id = storage.create_game("classic", [("open", None), ("open", None)])
    storage.save_ratings([Rating("Ann", 31, 1.5, 2, 2), Rating("Bob", 20, 6, 1, 0)], game_id)
    (point,) = storage.rating_history("Ann")
    assert (point.game_id, point.mu, point.sigma, point.ordinal) == (game_id, 31, 1.5, 26.5)


def test_the_pages_are_served(client: TestClient) -> None:
    for path in ("/leaderboard", "/rules", "/player/Ann", "/player/bot:rule28", "/player/a%2Fb"):
        response = client.get(path)
        assert response.status_code == 200 and response.headers["content-type"].startswith("text/html"), path
