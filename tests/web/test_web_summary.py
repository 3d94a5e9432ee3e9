"""The end of a game: its summary (winner, rating changes, turns, rolls, busts, columns,
the biggest turn, links to the replay and the record), and a replay whose frames name the
turn their move was made in."""

from __future__ import annotations

import re
from typing import Any

from account_helpers import create, people, play_between
from fastapi.testclient import TestClient
from test_web_api import play_out
from test_web_lifecycle import hot_seat, resign
from web_helpers import auth, join, new_game

from cantstop.core.record import read_record
from cantstop.core.summary import summarize
from cantstop.web.db.storage import Storage


def finished_against_a_bot(client: Any) -> str:
    """A rated game of the signed-in `client` against the random bot, played to its end."""
    game_id = str(create(client, ["open", "bot:random"], take=[{"seat": 0}]).json()["id"])
    play_between({0: client}, game_id)
    return game_id


def test_the_summary_of_a_won_game_counts_as_the_record_does_and_names_each_rating_change(storage: Storage) -> None:
    with people(storage, "Ann") as (client,):
        summary_of_the_second_game(client)


def summary_of_the_second_game(client: Any) -> None:
    first = finished_against_a_bot(client)
    game_id = finished_against_a_bot(client)  # Ann's second rated game: her change counts from the first
    summary = client.get(f"/api/games/{game_id}/summary").json()
    record = read_record(client.get(f"/api/games/{game_id}/record").text)
    counted = summarize(record)
    state = record.final()
    assert summary["status"] == "over" and summary["winner"] == state.winner and summary["ended"] is None
    assert summary["turns"] == counted.turns == state.turn
    for seat, (entry, expected) in enumerate(zip(summary["seats"], counted.seats)):
        assert (entry["turns"], entry["rolls"], entry["busts"], entry["best"]) == (expected.turns, expected.rolls, expected.busts, expected.best)
        assert entry["columns"] == list(state.columns_won(seat)) and entry["left"] is None
        assert entry["place"] == (1 if seat == state.winner else 2)
    assert sum(len(e["columns"]) for e in summary["seats"]) >= 3  # the winner holds three
    biggest = counted.biggest
    assert biggest is not None and summary["biggest"] == {
        "seat": biggest.seat, "display": summary["seats"][biggest.seat]["display"], "turn": biggest.turn, "spaces": biggest.spaces,
    }
    assert summary["seats"][1]["display"] == "Random bot"
    # The rating changes are the rating history's: Ann's previous point is from the first game.
    history = client.get("/api/players/Ann").json()["history"]
    assert [p["game"] for p in history] == [first, game_id]
    ann = summary["seats"][0]["rating"]
    assert (ann["before"], ann["after"]) == (history[0]["rating"], history[1]["rating"])
    assert ann["change"] == ann["after"] - ann["before"] and (ann["change"] > 0) == (state.winner == 0)
    assert ann["weight"] == 0.5  # the same two again within 30 days: it counts half
    # The links lead to the replay and the record.
    assert summary["replay"] == f"/game/{game_id}#replay" and summary["record"] == f"/api/games/{game_id}/record"
    assert client.get(summary["record"]).status_code == 200
    assert client.get(summary["replay"].split("#")[0]).status_code == 200


def test_a_first_rated_game_changes_from_the_new_players_rating(storage: Storage) -> None:
    with people(storage, "Newcomer") as (client,):
        game_id = finished_against_a_bot(client)
        seats = client.get(f"/api/games/{game_id}/summary").json()["seats"]
        board = {p["name"]: p["rating"] for p in client.get("/api/players", params={"provisional": True}).json()}
    assert seats[0]["rating"]["before"] == 1500  # a new player's: openskill's mu of 25 on the scale people read
    # Against a bot, a trusted opponent: it counts in full; the rating is provisional after one game.
    assert seats[0]["rating"]["after"] == board["Newcomer"] and seats[0]["rating"]["weight"] == 1.0 and seats[0]["rating"]["provisional"]


def test_a_friendly_game_says_nobody_was_rated(client: TestClient) -> None:
    game_id = new_game(client, ["open", "bot:random"])
    play_out(client, game_id, join(client, game_id, 0, "Gus"))
    assert [s["rating"] for s in client.get(f"/api/games/{game_id}/summary").json()["seats"]] == [None, None]


def test_a_resignation_and_an_abandoned_game_say_so_in_the_summary(client: TestClient) -> None:
    game_id, tokens = hot_seat(client, ["Ann", "Bob", "Cy"])
    resign(client, game_id, tokens[2])
    resign(client, game_id, tokens[0])
    summary = client.get(f"/api/games/{game_id}/summary").json()
    assert summary["winner"] == 1 and [s["left"] for s in summary["seats"]] == ["resigned", None, "resigned"]
    assert [s["place"] for s in summary["seats"]] == [3, 1, 3]  # both left: both last, whoever left first
    solo, solo_tokens = hot_seat(client, ["Dee"], variant="solitaire")
    resign(client, solo, solo_tokens[0])
    abandoned = client.get(f"/api/games/{solo}/summary").json()
    assert abandoned["status"] == "abandoned" and abandoned["winner"] is None and abandoned["ended"] == "Dee gave up in turn 1."
    assert abandoned["seats"][0]["rating"] is None and abandoned["seats"][0]["place"] is None


def turns_said(client: TestClient, game_id: str) -> dict[str, Any]:
    """The game's turn count as each place that says it: the summary, the record's Turns tag,
    the state the page shows ("won in N turns"), and the finished games' list (profiles)."""
    summary = client.get(f"/api/games/{game_id}/summary").json()
    record = client.get(f"/api/games/{game_id}/record").text
    tag = re.search(r'\[Turns "(\d+)"\]', record)
    listed = next(g for g in client.get("/api/finished").json() if g["id"] == game_id)
    return {
        "summary": summary["turns"], "seats": [s["turns"] for s in summary["seats"]], "record": int(tag.group(1)) if tag else None,
        "page": client.get(f"/api/games/{game_id}").json()["state"]["turn"], "list": listed["turns"],
    }


def test_a_game_resigned_before_anyone_rolled_took_no_turn(client: TestClient) -> None:
    game_id, tokens = hot_seat(client, ["Ann", "Bob"])
    to_move = client.get(f"/api/games/{game_id}").json()["state"]["player"]
    assert resign(client, game_id, tokens[1 - to_move]).json()["state"]["winner"] == to_move
    assert turns_said(client, game_id) == {"summary": 0, "seats": [0, 0], "record": 0, "page": 0, "list": 0}
    own, own_tokens = hot_seat(client, ["Cy", "Dee"])
    first = client.get(f"/api/games/{own}").json()["state"]["player"]
    resign(client, own, own_tokens[first])  # the seat to move gives up before its first roll
    assert turns_said(client, own) == {"summary": 0, "seats": [0, 0], "record": 0, "page": 0, "list": 0}


def test_a_turn_rolled_in_counts_when_a_resignation_ends_the_game(client: TestClient) -> None:
    game_id, tokens = hot_seat(client, ["Ann", "Bob"])
    to_move = client.get(f"/api/games/{game_id}").json()["state"]["player"]
    rolled = client.post(f"/api/games/{game_id}/actions", json={"version": 0, "action": "roll"}, headers=auth(tokens[to_move]))
    assert rolled.status_code == 200, rolled.text
    resign(client, game_id, tokens[1 - to_move])
    seats = [1 if seat == to_move else 0 for seat in range(2)]
    assert turns_said(client, game_id) == {"summary": 1, "seats": seats, "record": 1, "page": 1, "list": 1}


def test_a_game_still_played_has_no_summary_yet(client: TestClient) -> None:
    game_id, _ = hot_seat(client, ["Ann", "Bob"])
    refused = client.get(f"/api/games/{game_id}/summary")
    assert refused.status_code == 409 and refused.json()["error"] == "not_over"
    assert client.get("/api/games/nope/summary").status_code == 404


def frames_of(client: TestClient, game_id: str) -> list[dict[str, Any]]:
    frames: list[dict[str, Any]] = client.get(f"/api/games/{game_id}/replay").json()["frames"]
    return frames


def test_each_replay_frame_names_the_turn_its_move_was_made_in(client: TestClient) -> None:
    game_id = new_game(client, ["open", "bot:random"])
    play_out(client, game_id, join(client, game_id, 0, "Ann"))
    frames = frames_of(client, game_id)
    text = client.get(f"/api/games/{game_id}/record").text
    turn_lines = [line for line in text.splitlines() if re.match(r"\d+\. ", line)]
    record = read_record(text)
    # The last frame is in the game's last turn, as the record numbers it (a 14-turn game: turn 14).
    assert frames[-1]["turn"] == int(turn_lines[-1].split(".")[0]) == record.final().turn
    assert frames[0]["turn"] == 1 and [f["turn"] for f in frames] == sorted(f["turn"] for f in frames)
    # Every move's frame says the turn of the record's line the move is on.
    states = list(record.states())
    for frame, before in zip(frames[1:], states):
        assert frame["turn"] == before.turn + 1


def test_an_abandoned_games_replay_ends_with_why(client: TestClient) -> None:
    game_id, tokens = hot_seat(client, ["Dee"], variant="solitaire")
    client.post(f"/api/games/{game_id}/actions", json={"version": 0, "action": "roll"}, headers=auth(tokens[0]))
    resign(client, game_id, tokens[0])
    frames = frames_of(client, game_id)
    assert frames[-1]["log"] == [{"kind": "end", "seat": None, "version": 1, "text": "Dee gave up in turn 1."}]
    assert frames[-1]["state"] == frames[-2]["state"] and frames[-1]["turn"] == 1
