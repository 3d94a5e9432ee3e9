"""A finished game's analysis over the API: computed once in an analysis process, stored, served
from storage afterwards, and refused with the reason (nothing stored) for a game not over, a
rated game still on, an abandoned one, a board no value model knows, a server that does not
analyse. On SQLite and PostgreSQL where storage is involved."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from account_helpers import Browser, people, play_between, post, rated_game
from fastapi.testclient import TestClient
from review_helpers import UNKNOWN, analysed, asked, bot_game
from sqlalchemy import func, select
from web_helpers import NO_LIMITS, auth, join, new_game, pick, wait_for

from cantstop.core.record import read_record
from cantstop.web.app import create_app
from cantstop.web.db.storage import Storage
from cantstop.web.review import analysts
from cantstop.web.review.analyses import Analyses
from cantstop.web.review.rows import AnalysisRow, AnalysisSeatRow


@pytest.fixture
def any_client(any_storage: Storage) -> Iterator[TestClient]:
    with TestClient(create_app(any_storage, bot_delay=0, analysis_wait=1.0, **NO_LIMITS)) as client:
        yield client


def rows(storage: Storage, table: Any) -> int:
    with storage.session() as s:
        return int(s.scalar(select(func.count()).select_from(table)) or 0)


def service(client: TestClient) -> Any:
    return client.app.state.service  # type: ignore[attr-defined]


def test_a_finished_game_is_analysed_once_and_then_served_from_storage(any_client: TestClient, any_storage: Storage) -> None:
    game_id = bot_game(any_client)
    first = analysed(any_client, game_id)
    assert first["status"] == "done" and first["format"] == 1
    analysis = first["analysis"]
    record = read_record(any_client.get(f"/api/games/{game_id}/record").text)
    assert len(first["versions"]) == len(record.events) + 1 and first["versions"][0] == 0
    assert analysis["players"] == ["A", "B"]  # nobody is named in what is stored
    assert analysis["method"] in ("exact", "learned") and analysis["units"] == "chance"
    assert [p["ply"] for p in analysis["points"]][-1] == len(record.events)
    assert {r["seat"] for r in analysis["reports"]} == {0, 1}
    said = analysis["said"]  # the command line's sentences, by event
    assert set(said["decisions"]) == {str(d["ply"]) for d in analysis["decisions"]}
    assert set(said["rolls"]) == {str(r["ply"]) for r in analysis["rolls"]}
    assert all(text.startswith("rolled ") for text in said["rolls"].values())
    turns = said["turns"]  # the table's rows, turn by turn, as the command line's
    assert [t["turn"] for t in turns] == sorted({d["turn"] for d in analysis["decisions"]} | {r["turn"] for r in analysis["rolls"]})
    assert turns[-1]["last"] == len(record.events) and all(t["words"] for t in turns)
    again = any_client.get(f"/api/games/{game_id}/analysis")
    assert again.status_code == 200 and again.json() == first
    assert service(any_client).reviews.analysed == 1  # computed once
    assert rows(any_storage, AnalysisRow) == 1 and rows(any_storage, AnalysisSeatRow) == 2
    assert Analyses(any_storage).stored(game_id) is not None


def test_a_game_not_over_is_refused_and_nothing_is_stored(any_client: TestClient, any_storage: Storage) -> None:
    game_id = new_game(any_client, ["open", "bot:random"])
    waiting = any_client.get(f"/api/games/{game_id}/analysis")
    assert waiting.status_code == 409 and waiting.json()["error"] == "not_started"
    join(any_client, game_id, 0, "Ann")
    playing = any_client.get(f"/api/games/{game_id}/analysis")
    assert playing.status_code == 409 and playing.json()["error"] == "not_over"
    assert "finished game" in playing.json()["message"]
    assert rows(any_storage, AnalysisRow) == 0


def test_a_board_no_value_model_knows_is_refused_with_the_reason_and_nothing_is_stored(any_client: TestClient, any_storage: Storage) -> None:
    game_id = bot_game(any_client, UNKNOWN, ("rule28", "random"))
    for _ in range(2):  # the second time from what the first learned, with the same words
        refused = asked(any_client, game_id)
        assert refused.status_code == 422 and refused.json()["error"] == "no_model"
        assert "no value for classic+heights=1.1.1.1.1.1.1.1.1.1.2 with 2 players" in refused.json()["message"]
    assert rows(any_storage, AnalysisRow) == 0 and rows(any_storage, AnalysisSeatRow) == 0
    mapped = any_client.get(f"/api/games/{game_id}/rollmap", params={"ply": 0})
    assert mapped.status_code == 422 and mapped.json()["error"] == "no_model"


def test_an_abandoned_game_and_an_unknown_one_are_refused(client: TestClient) -> None:
    game_id = new_game(client, ["open"], "solitaire")
    token = join(client, game_id, 0, "Ann")
    client.post(f"/api/games/{game_id}/actions", json={"version": 0, "action": "roll"}, headers=auth(token))
    assert client.post(f"/api/games/{game_id}/resign", headers=auth(token)).json()["status"] == "abandoned"
    refused = client.get(f"/api/games/{game_id}/analysis")
    assert refused.status_code == 409 and refused.json()["error"] == "abandoned" and "Ann gave up in turn 1" in refused.json()["message"]
    missing = client.get("/api/games/nosuchgame/analysis")
    assert missing.status_code == 404 and missing.json()["error"] == "no_game"


def test_a_rated_game_is_analysed_for_nobody_until_it_ends_then_as_it_ends(storage: Storage) -> None:
    with people(storage, "Ann", "Bob", "Cy") as (ann, bob, cy):
        game_id = rated_game(ann, [], bots=("rule28",))
        for who in (ann, cy, bob):  # its player, signed-in spectators
            for path in ("analysis", "rollmap", "tutor"):
                refused = who.get(f"/api/games/{game_id}/{path}")
                assert refused.status_code == 403 and refused.json()["error"] == "fair_play", (path, refused.text)
                assert "rated" in refused.json()["message"]
        assert rows(storage, AnalysisRow) == 0
        play_between({0: ann}, game_id)
        # Analysed as it ended (CANTSTOP_ANALYSE_AFTER=rated, the default): this request finds it
        # under way or stored, and starts nothing.
        assert service(ann.client).reviews.under_way + rows(storage, AnalysisRow) >= 1
        found = analysed(cy, game_id)
        assert found["analysis"]["reports"][0]["decisions"] > 0
        assert service(ann.client).reviews.analysed == 1
        profile = ann.get("/api/players/Ann").json()
        assert profile["analysis"]["games"] == 1
        report = found["analysis"]["reports"][0]
        assert profile["analysis"]["luck"] == round(report["luck"], 1)
        assert profile["analysis"]["accuracy"] == (None if report["accuracy"] is None else round(report["accuracy"], 1))
        bot = ann.get("/api/players/bot:rule28").json()
        assert bot["analysis"]["games"] == 1
        assert cy.get("/api/players/Cy").json()["analysis"] is None  # no analysed rated game


def test_a_hostile_client_gets_nothing_of_a_rated_game_on(any_storage: Storage) -> None:
    """Whoever asks, however (no session, another account, its own player with a forged seat
    token, any point of its record, past it), a rated game under way gives away no value:
    every answer is the same refusal, and no analysis process is asked for anything."""
    with people(any_storage, "Ann", "Mal") as (ann, mal):
        game_id = rated_game(ann, [], bots=("rule28",))
        # Ann's move once it is her turn (the bot may start): events on the record to ask about.
        game = wait_for(ann.client, game_id, lambda g: g["state"] is not None and g["state"]["player"] == 0)
        moved = post(ann, f"/api/games/{game_id}/actions", {"version": game["version"], "action": pick(game["state"], 0)})
        assert moved.status_code == 200, moved.text
        nobody = Browser(ann.client)  # no session, no seat
        forged = {"Authorization": "Bearer " + "A" * 43}
        asks = [
            ("analysis", {}, {}), ("analysis", {"ply": 1}, {}),
            ("rollmap", {}, {}), ("rollmap", {"ply": 0}, {}), ("rollmap", {"ply": 1}, {}), ("rollmap", {"ply": 99_999}, {}),
            ("tutor", {}, {}), ("tutor", {}, forged),
        ]
        for who in (nobody, mal, ann):
            for path, params, headers in asks:
                refused = who.get(f"/api/games/{game_id}/{path}", params=params, headers=headers)
                assert refused.status_code == 403, (path, params, refused.text)
                assert refused.json()["error"] == "fair_play" and "rated" in refused.json()["message"]
        for who in (mal, ann):  # practice holds nothing of it either
            assert who.get("/api/practice").json()["position"] is None
            answer = post(who, "/api/practice/answer", {"game": game_id, "ply": 1, "action": "stop"})
            assert answer.status_code == 404, answer.text
        reviews = service(ann.client).reviews
        assert reviews.under_way == 0 and reviews.analysed == 0
        assert not reviews._maps and not reviews._advice  # nothing valued, so nothing kept
        assert rows(any_storage, AnalysisRow) == 0 and rows(any_storage, AnalysisSeatRow) == 0


def test_friendly_games_are_analysed_when_asked_unless_the_settings_say_all(storage: Storage) -> None:
    for after, expected in (("rated", 0), ("all", 1)):
        with TestClient(create_app(storage, bot_delay=0, analyse_after=after, **NO_LIMITS)) as client:
            game_id = bot_game(client)
            reviews = service(client).reviews
            assert reviews.under_way + reviews.analysed == expected, after
            if expected:
                analysed(client, game_id)


def test_games_past_the_minute_s_share_are_analysed_when_asked_not_as_they_end(storage: Storage) -> None:
    clock = [1_000_000.0]
    with TestClient(create_app(storage, now=lambda: clock[0], bot_delay=0, analyse_after="all", analyse_after_per_minute=2,
                               **NO_LIMITS)) as client:
        reviews = service(client).reviews
        first, second = bot_game(client), bot_game(client)
        third = bot_game(client)  # the minute's share is two: this one waits to be asked for
        assert reviews.under_way + reviews.analysed == 2 and reviews.skipped == 1
        clock[0] += 60  # a minute on, the share is whole again
        fourth = bot_game(client)
        assert reviews.under_way + reviews.analysed == 3 and reviews.skipped == 1
        for game_id in (first, second, third, fourth):  # every one is analysed when asked
            assert analysed(client, game_id)["status"] == "done"
        assert reviews.analysed == 4


def test_a_server_without_analysis_processes_or_the_fast_extra_says_so(storage: Storage, monkeypatch: pytest.MonkeyPatch) -> None:
    with TestClient(create_app(storage, bot_delay=0, analysis_workers=0, **NO_LIMITS)) as client:
        game_id = bot_game(client)
        for path in (f"/api/games/{game_id}/analysis", f"/api/games/{game_id}/rollmap?ply=0"):
            off = client.get(path)
            assert off.status_code == 501 and off.json()["error"] == "analysis_off", path
            assert "CANTSTOP_ANALYSIS_WORKERS" in off.json()["message"]
    monkeypatch.setattr(analysts, "EXTRA", ("numba", "cantstop_no_such_module"))  # as if the fast extra were missing
    with TestClient(create_app(storage, bot_delay=0, **NO_LIMITS)) as client:
        off = client.get(f"/api/games/{game_id}/analysis")
        assert off.status_code == 501 and off.json()["error"] == "analysis_off"
        assert "lacks cantstop_no_such_module" in off.json()["message"] and "cantstop[fast]" in off.json()["message"]


def test_an_analysis_stored_by_another_process_is_served_by_one_that_does_not_analyse(storage: Storage) -> None:
    with TestClient(create_app(storage, bot_delay=0, **NO_LIMITS)) as client:
        game_id = bot_game(client)
        first = analysed(client, game_id)
    with TestClient(create_app(storage, bot_delay=0, analysis_workers=0, **NO_LIMITS)) as reader:
        assert reader.get(f"/api/games/{game_id}/analysis").json() == first


def test_the_analysis_of_a_game_alone_is_in_turns(client: TestClient) -> None:
    game_id = new_game(client, ["bot:rule28"], "solitaire")
    wait_for(client, game_id, lambda game: game["status"] == "over")
    found = analysed(client, game_id)["analysis"]
    assert found["units"] == "turns" and found["method"] in ("fitted", "exact")
    assert found["points"][-1]["values"] == [float(found["points"][-1]["turn"])]


def test_the_roll_map_of_a_finished_game_at_a_point_and_its_refusals(client: TestClient) -> None:
    game_id = bot_game(client)
    found = client.get(f"/api/games/{game_id}/rollmap", params={"ply": 0})
    assert found.status_code == 200
    rollmap = found.json()
    assert rollmap["ply"] == 0 and rollmap["units"] == "chance" and rollmap["stop"] is None  # a turn's start
    assert sum(g["rolls"] for g in rollmap["groups"]) == 1296
    rolled = client.get(f"/api/games/{game_id}/rollmap", params={"ply": 1})  # the dice are on the table
    assert rolled.status_code == 409 and rolled.json()["error"] == "no_roll_map"
    events = len(read_record(client.get(f"/api/games/{game_id}/record").text).events)
    past = client.get(f"/api/games/{game_id}/rollmap", params={"ply": events + 1})
    assert past.status_code == 422 and past.json()["error"] == "bad_ply" and f"{events} events" in past.json()["message"]
    now = client.get(f"/api/games/{game_id}/rollmap")
    assert now.status_code == 409 and now.json()["error"] == "game_over"
    bad = client.get(f"/api/games/{game_id}/rollmap", params={"ply": -1})
    assert bad.status_code == 422 and bad.json()["error"] == "bad_request"


def test_two_server_processes_asked_at_once_analyse_a_game_once_and_both_serve_it(any_storage: Storage) -> None:
    with TestClient(create_app(any_storage, bot_delay=0, analysis_wait=0.0, **NO_LIMITS)) as one, \
            TestClient(create_app(any_storage, bot_delay=0, analysis_wait=0.0, **NO_LIMITS)) as other:
        game_id = bot_game(one)
        first = [client.get(f"/api/games/{game_id}/analysis").status_code for client in (one, other)]
        assert first == [202, 202]  # neither waits: one computes, the other finds its claim
        found = [analysed(client, game_id) for client in (one, other)]
        assert found[0] == found[1]
        assert service(one).reviews.analysed + service(other).reviews.analysed == 1
        assert rows(any_storage, AnalysisRow) == 1
