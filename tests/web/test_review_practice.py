"""Practice over the API: the costly decisions of a signed-in player's own analysed games asked
again, answers judged and kept per account; nobody else's positions, no guests."""

from __future__ import annotations

from typing import Any

from account_helpers import Browser, people, post, rated_game
from review_helpers import analysed

from cantstop.core.notation import from_notation
from cantstop.web.db.storage import Storage
from cantstop.web.review.service import actions_of


def always_roll(ann: Any, game_id: str) -> None:
    """Ann's seat (0) plays the first choice and never stops: the bot wins, and Ann's rolling on
    with much to lose costs her points again and again."""
    for _ in range(20_000):
        game = ann.get(f"/api/games/{game_id}").json()
        if game["status"] == "over":
            return
        state = game["state"]
        if state["player"] != 0:
            continue
        action = state["legal"][0] if state["phase"] == "choose" else "roll"
        response = post(ann, f"/api/games/{game_id}/actions", {"version": game["version"], "action": action})
        assert response.status_code == 200, response.text
    raise AssertionError("the game did not end")


def costly_game(ann: Any) -> tuple[str, dict[int, dict[str, Any]]]:
    """A rated game of Ann's against the Rule-of-28 bot in which she rolls on every time,
    analysed, and her decisions in it that cost 5 points or more, by ply. Most such games have
    some, not all: the dice are the server's, and a full run once drew a game without; then
    another is played (at most five), whose costly decisions are then all of hers."""
    dearest: list[float] = []
    for _ in range(5):
        game_id = rated_game(ann, [], bots=("rule28",))
        always_roll(ann, game_id)
        decisions = [d for d in analysed(ann, game_id)["analysis"]["decisions"] if d["seat"] == 0 and len(d["options"]) > 1]
        costly = {d["ply"]: d for d in decisions if d["loss"] >= 5}
        if costly:
            return game_id, costly
        dearest.append(max((d["loss"] for d in decisions), default=0.0))
    raise AssertionError(f"five games of rolling on every time, and no decision cost Ann 5 points: her dearest in each {dearest}")


def test_practice_asks_a_players_costly_decisions_and_keeps_their_answers(storage: Storage) -> None:
    with people(storage, "Ann", "Cy") as (ann, cy):
        game_id, costly = costly_game(ann)
        asked = ann.get("/api/practice").json()
        assert asked["progress"] == {"answered": 0, "right": 0, "positions": len(costly)}
        question = asked["position"]
        decision = costly[question["ply"]]
        assert question["game"] == game_id and question["seat"] == 0 and question["units"] == "chance"
        state = from_notation(decision["position"])
        assert question["actions"] == actions_of(state)  # the rules' order: nothing gives the best away
        assert question["state"]["phase"] == state.phase.name.lower() and question["turn"] == decision["turn"]
        assert "options" not in question and "loss" not in question

        answer = {"game": game_id, "ply": question["ply"]}
        assert cy.get("/api/practice").json() == {"position": None, "progress": {"answered": 0, "right": 0, "positions": 0}}
        theirs = post(cy, "/api/practice/answer", {**answer, "action": decision["chosen"]})
        assert theirs.status_code == 404 and theirs.json()["error"] == "no_position"
        guest = Browser(ann.client).get("/api/practice")
        assert guest.status_code == 401 and guest.json()["error"] == "not_signed_in"
        forged = ann.post("/api/practice/answer", json={**answer, "action": decision["chosen"]})  # no CSRF token
        assert forged.status_code == 403 and forged.json()["error"] == "csrf"
        wrong = post(ann, "/api/practice/answer", {**answer, "action": "2+2+2"})
        assert wrong.status_code == 422 and wrong.json()["error"] == "bad_answer"
        assert ann.get("/api/practice").json()["progress"]["answered"] == 0  # nothing kept of refusals

        again = post(ann, "/api/practice/answer", {**answer, "action": decision["chosen"]}).json()  # as played: it cost 5 points
        assert again["right"] is False and again["grade"] in ("mistake", "blunder") and again["played"] == decision["chosen"]
        assert again["loss"] == decision["loss"]
        assert [(o["action"], o["value"]) for o in again["options"]] == [(o["action"], o["value"]) for o in decision["options"]]
        assert again["progress"] == {"answered": 1, "right": 0, "positions": len(costly)}
        best = post(ann, "/api/practice/answer", {**answer, "action": decision["options"][0]["action"]}).json()
        assert best["right"] is True and best["loss"] == 0.0
        assert best["progress"] == {"answered": 1, "right": 1, "positions": len(costly)}  # its last answer counts
        if len(costly) == 1:
            assert ann.get("/api/practice").json()["position"] is None  # every one answered right
        else:
            assert ann.get("/api/practice").json()["position"]["ply"] != question["ply"]  # the others come first
        assert ann.get("/practice").status_code == 200
