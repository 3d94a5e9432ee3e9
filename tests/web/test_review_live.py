"""A friendly game in progress: the roll map of the position on the table, and the tutor's
values for the player deciding (the analysis's own numbers), refused to spectators, to
another seat and where there is nothing to decide."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from web_helpers import act, auth, join, new_game

from cantstop.analysis import decision_options
from cantstop.analysis.wording import warning_text
from cantstop.core.notation import from_notation


def test_the_tutor_and_the_roll_map_follow_a_friendly_game_turn_by_turn(client: TestClient) -> None:
    game_id = new_game(client, ["open", "open"])
    ann, bob = join(client, game_id, 0, "Ann"), join(client, game_id, 1, "Bob")
    tutor, rollmap = f"/api/games/{game_id}/tutor", f"/api/games/{game_id}/rollmap"
    game = client.get(f"/api/games/{game_id}").json()
    ann, bob = (ann, bob) if game["state"]["player"] == 0 else (bob, ann)  # the roll-off decides who goes first
    first = client.get(rollmap)  # anyone may read the roll map of a friendly game
    assert first.status_code == 200 and first.json()["stop"] is None and first.json()["version"] == game["version"]
    nothing = client.get(tutor, headers=auth(ann))
    assert nothing.status_code == 409 and nothing.json()["error"] == "nothing_to_decide"
    game = act(client, game_id, ann, "roll")
    rolled = client.get(rollmap)
    assert rolled.status_code == 409 and rolled.json()["error"] == "no_roll_map"
    spectator = client.get(tutor)
    assert spectator.status_code == 403 and spectator.json()["error"] == "not_seated"
    other = client.get(tutor, headers=auth(bob))
    assert other.status_code == 409 and other.json()["error"] == "not_your_turn"
    asked = client.get(tutor, headers=auth(ann))
    assert asked.status_code == 200
    choices = asked.json()
    local = decision_options(from_notation(choices["position"]))  # the same numbers as the analysis library's
    assert [(o["action"], o["value"]) for o in choices["options"]] == [(o.action, o.value) for o in local.options]
    assert choices["version"] == game["version"] and choices["units"] == "chance" and choices["point"] == 1.0
    assert choices["options"][0]["loss"] == 0.0 and choices["options"][0]["grade"] in ("best", "forced")
    worst = choices["options"][-1]
    assert worst["warning"] == warning_text(local, worst["action"])
    game = act(client, game_id, ann, [int(column) for column in worst["action"].split("+")])  # against the tutor's advice
    deciding = client.get(tutor, headers=auth(ann)).json()
    assert {o["action"] for o in deciding["options"]} == {"roll", "stop"}
    stop = next(o for o in deciding["options"] if o["action"] == "stop")
    roll = next(o for o in deciding["options"] if o["action"] == "roll")
    assert stop["loss"] == max(0.0, roll["value"] - stop["value"])
    if stop["loss"] > 0:
        assert stop["warning"].startswith(f"this stop gives up {stop['loss']:.1f} points: rolling on wins")
    before = client.get(rollmap).json()
    assert before["stop"] == pytest.approx(stop["value"]) and before["roll"] == pytest.approx(roll["value"])  # the map and the tutor agree
    act(client, game_id, ann, "stop")
    assert client.get(tutor, headers=auth(ann)).json()["error"] == "not_your_turn"


def test_the_tutor_is_for_the_player_of_a_game_under_way(client: TestClient) -> None:
    waiting = new_game(client, ["open", "open"])
    refused = client.get(f"/api/games/{waiting}/tutor")
    assert refused.status_code == 409 and refused.json()["error"] == "not_started"
    missing = client.get("/api/games/nosuchgame/tutor")
    assert missing.status_code == 404
