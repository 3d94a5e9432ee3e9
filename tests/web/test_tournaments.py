"""Swiss tournaments through the API: creating one (and the refusals that store nothing),
entering and leaving, a whole tournament played to its standings, a player withdrawn after
forfeiting two games or on their own after the start, fair play in its games, results on profiles, and a round paired once
however many processes pair it. Time is the tests' clock; moves are sent through the API."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from account_helpers import Browser, people, play_between, post, sign_up
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from web_helpers import NO_LIMITS, Clock

from cantstop.core.state import ROLL, STOP, Phase
from cantstop.table import Fault, Move
from cantstop.web.app import create_app
from cantstop.web.db.rows import GAMES
from cantstop.web.db.storage import Storage
from cantstop.web.games.clock import DAY, RAN_OUT
from cantstop.web.service import GameService
from cantstop.web.tournaments.rows import PLACES, ROUNDS
from cantstop.web.tournaments.store import NewTable

QUICK = "classic+to_win=1"  # a column wins: games of a few turns (a friendly tournament's rules may be any)


def iso(clock: Clock, seconds: float) -> str:
    return datetime.fromtimestamp(clock() + seconds, UTC).isoformat()


def new_tournament(browser: Any, time: Clock, **fields: Any) -> Any:
    body = {"name": "Autumn Swiss", "variant": QUICK, "rounds": 2, "clock": DAY, "starts": iso(time, 3600), **fields}
    return post(browser, "/api/tournaments", body)


def service_of(browser: Any) -> GameService:
    service: GameService = browser.client.app.state.service
    return service


def run(browser: Any, fn: Any, *args: Any) -> Any:
    return browser.client.portal.call(fn, *args)


def detail(browser: Any, tournament_id: str) -> dict[str, Any]:
    response = browser.get(f"/api/tournaments/{tournament_id}")
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


def play_round(browsers: dict[str, Any], tournament_id: str) -> None:
    """Every game of the current round played to its end by its players' own sessions, then
    the tournament moved on (as the end of its last game does by itself)."""
    found = detail(next(iter(browsers.values())), tournament_id)
    for table in found["rounds_played"][-1]["tables"]:
        game = next(iter(browsers.values())).get(f"/api/games/{table['game']}").json()
        by_seat = {s["seat"]: browsers[s["name"]] for s in game["seats"]}
        play_between(by_seat, table["game"])
    run(next(iter(browsers.values())), service_of(next(iter(browsers.values()))).tournaments.advance, tournament_id)


@pytest.fixture
def four(storage: Storage, clock: Clock) -> Iterator[dict[str, Any]]:
    with people(storage, "Ann", "Bob", "Cy", "Dot", now=clock) as browsers:
        yield dict(zip(("Ann", "Bob", "Cy", "Dot"), browsers))


# ------------------------------------------------------------------ creating
@pytest.mark.parametrize(("fields", "field"), [
    ({"rounds": 0}, "rounds"), ({"rounds": 10_000}, "rounds"), ({"capacity": 1}, "capacity"), ({"seats": 5}, "seats"),
    ({"clock": 0}, "clock"), ({"clock": 7}, "clock"), ({"name": ""}, "name"), ({"variant": "chess"}, "variant"),
    ({"variant": "solitaire"}, "seats"), ({"rated": True}, "rated"), ({"starts": "tomorrow"}, "starts"),
    ({"starts": "2026-01-01T10:00:00"}, "starts"), ({"unknown": 1}, "unknown"),
])
def test_a_tournament_that_cannot_be_is_refused_naming_the_field_and_nothing_is_stored(
    four: dict[str, Any], clock: Clock, fields: dict[str, Any], field: str,
) -> None:
    ann = four["Ann"]
    response = new_tournament(ann, clock, **fields)
    assert response.status_code in (409, 422), response.text
    assert response.json()["message"].startswith(field) or f"{field}:" in response.json()["message"], response.json()
    assert ann.get("/api/tournaments").json() == {"open": [], "playing": [], "finished": []}


def test_a_start_in_the_past_is_refused(four: dict[str, Any], clock: Clock) -> None:
    response = new_tournament(four["Ann"], clock, starts=iso(clock, -60))
    assert response.status_code == 422 and response.json()["error"] == "bad_start"
    assert "has passed" in response.json()["message"]


def test_a_guest_cannot_create_or_enter_a_tournament(four: dict[str, Any], clock: Clock, storage: Storage) -> None:
    made = new_tournament(four["Ann"], clock).json()
    guest = Browser(four["Ann"].client)
    assert post(guest, "/api/tournaments", {"name": "x", "rounds": 1, "starts": iso(clock, 60)}).status_code == 401
    assert post(guest, f"/api/tournaments/{made['id']}/join", {}).status_code == 401


# ------------------------------------------------------------------ entering
def test_entering_and_leaving_before_the_start(four: dict[str, Any], clock: Clock) -> None:
    ann, bob, cy = four["Ann"], four["Bob"], four["Cy"]
    made = new_tournament(ann, clock, capacity=2).json()
    tid = made["id"]
    assert made["url"] == f"/tournament/{tid}"
    assert post(ann, f"/api/tournaments/{tid}/join", {}).json()["you"]["entered"] is True
    again = post(ann, f"/api/tournaments/{tid}/join", {})
    assert again.status_code == 409 and again.json()["error"] == "entered"
    assert post(bob, f"/api/tournaments/{tid}/join", {}).status_code == 200
    full = post(cy, f"/api/tournaments/{tid}/join", {})
    assert full.status_code == 409 and full.json()["error"] == "full" and "2 places" in full.json()["message"]
    assert [e["name"] for e in detail(cy, tid)["entrants"]] == ["Ann", "Bob"]
    left = post(bob, f"/api/tournaments/{tid}/leave", {})
    assert left.status_code == 200 and [e["name"] for e in left.json()["entrants"]] == ["Ann"]
    assert post(cy, f"/api/tournaments/{tid}/join", {}).status_code == 200  # room again
    not_in = post(bob, f"/api/tournaments/{tid}/leave", {})
    assert not_in.status_code == 409 and not_in.json()["error"] == "not_entered"
    unknown = ann.get("/api/tournaments/nothing-here")
    assert unknown.status_code == 404 and unknown.json()["error"] == "no_tournament"


def test_a_started_tournament_takes_no_entries_and_only_its_creator_starts_it_early(four: dict[str, Any], clock: Clock) -> None:
    ann, bob, cy = four["Ann"], four["Bob"], four["Cy"]
    tid = new_tournament(ann, clock).json()["id"]
    post(bob, f"/api/tournaments/{tid}/join", {})
    few = post(ann, f"/api/tournaments/{tid}/start", {})
    assert few.status_code == 409 and few.json()["error"] == "too_few"
    post(cy, f"/api/tournaments/{tid}/join", {})
    stranger = post(bob, f"/api/tournaments/{tid}/start", {})
    assert stranger.status_code == 403 and stranger.json()["error"] == "not_creator"
    started = post(ann, f"/api/tournaments/{tid}/start", {})
    assert started.status_code == 200 and started.json()["status"] == "playing" and started.json()["round"] == 1
    late = post(four["Dot"], f"/api/tournaments/{tid}/join", {})
    assert late.status_code == 409 and late.json()["error"] == "not_open" and "has started" in late.json()["message"]


def test_a_tournament_starts_at_its_time_and_one_with_a_single_player_is_cancelled(four: dict[str, Any], clock: Clock) -> None:
    ann, bob = four["Ann"], four["Bob"]
    alone = new_tournament(ann, clock, name="Lonely").json()["id"]
    post(ann, f"/api/tournaments/{alone}/join", {})
    pair = new_tournament(ann, clock, name="Pair").json()["id"]
    for browser in (ann, bob):
        post(browser, f"/api/tournaments/{pair}/join", {})
    service = service_of(ann)
    run(ann, service.sweeper.sweep)
    assert detail(ann, pair)["status"] == "open"  # not yet
    clock.advance(3601)
    run(ann, service.sweeper.sweep)
    assert detail(ann, alone)["status"] == "cancelled"
    started = detail(ann, pair)
    assert started["status"] == "playing" and len(started["rounds_played"][0]["tables"]) == 1
    table = started["rounds_played"][0]["tables"][0]
    game = ann.get(f"/api/games/{table['game']}").json()
    assert game["status"] == "playing" and game["clock"]["seconds"] == DAY
    assert game["tournament"] == {"id": pair, "name": "Pair", "round": "1", "url": f"/tournament/{pair}"}
    assert {s["name"] for s in game["seats"]} == {"Ann", "Bob"} and all(s["signed_in"] for s in game["seats"])
    record = ann.get(f"/api/games/{table['game']}/record").text
    assert '[Event "Pair"]' in record and '[Round "1"]' in record


# ------------------------------------------------------------------ playing
def test_four_players_play_a_whole_tournament_to_its_standings(four: dict[str, Any], clock: Clock) -> None:
    ann = four["Ann"]
    tid = new_tournament(ann, clock, rounds=3).json()["id"]
    for browser in four.values():
        assert post(browser, f"/api/tournaments/{tid}/join", {}).status_code == 200
    post(ann, f"/api/tournaments/{tid}/start", {})
    for number in (1, 2, 3):
        found = detail(ann, tid)
        assert found["round"] == number and found["status"] == "playing"
        tables = found["rounds_played"][-1]["tables"]
        assert len(tables) == 2 and sorted(p["name"] for t in tables for p in t["players"]) == sorted(four)
        play_round(four, tid)
    found = detail(ann, tid)
    assert found["status"] == "over" and found["ended"] is not None
    met = [frozenset(p["name"] for p in t["players"]) for r in found["rounds_played"] for t in r["tables"]]
    assert len(set(met)) == 6  # three rounds of four players: everyone met everyone once, no rematch
    table = found["standings"]
    by_name = {s["name"]: s for s in table}
    for name in four:
        won = sum(1 for r in found["rounds_played"] for t in r["tables"] for p in t["players"] if p["name"] == name and p["won"])
        assert float(by_name[name]["points"]) == won and by_name[name]["wins"] == won and by_name[name]["played"] == 3
    assert [s["rank"] for s in table] == sorted(s["rank"] for s in table) and table[0]["rank"] == 1
    assert sum(float(s["points"]) for s in table) == 6  # one point a game
    # Results on the profiles.
    entered = ann.get("/api/tournaments", params={"player": "Bob"}).json()["entered"]
    assert [(t["id"], t["rank"], t["points"], t["of"]) for t in entered] == [(tid, by_name["Bob"]["rank"], by_name["Bob"]["points"], 4)]
    assert ann.get("/api/tournaments").json()["finished"][0]["id"] == tid


def test_an_odd_field_gives_a_bye_worth_a_win_and_no_one_a_second(storage: Storage, clock: Clock) -> None:
    with people(storage, "Ann", "Bob", "Cy", now=clock) as browsers:
        three = dict(zip(("Ann", "Bob", "Cy"), browsers))
        ann = three["Ann"]
        tid = new_tournament(ann, clock, rounds=3).json()["id"]
        for browser in three.values():
            post(browser, f"/api/tournaments/{tid}/join", {})
        post(ann, f"/api/tournaments/{tid}/start", {})
        for _ in range(3):
            play_round(three, tid)
        found = detail(ann, tid)
        byes = [b["name"] for r in found["rounds_played"] for b in r["byes"]]
        assert sorted(byes) == ["Ann", "Bob", "Cy"]  # one each over three rounds
        assert all(s["byes"] == 1 and s["played"] == 2 for s in found["standings"])
        assert sum(float(s["points"]) for s in found["standings"]) == 6  # three games and three byes


def test_a_player_who_forfeits_two_games_is_withdrawn(four: dict[str, Any], clock: Clock) -> None:
    ann = four["Ann"]
    tid = new_tournament(ann, clock, rounds=3).json()["id"]
    for browser in four.values():
        post(browser, f"/api/tournaments/{tid}/join", {})
    post(ann, f"/api/tournaments/{tid}/start", {})
    service = service_of(ann)
    dot = next(e["id"] for e in detail(ann, tid)["entrants"] if e["name"] == "Dot")

    async def dot_forfeits(game_id: str) -> None:  # Dot's clock runs out on each of her moves, the third time in a row
        for _ in range(200):
            game = await service.games.live(game_id)
            if game.finished:
                return
            state = game.state
            assert state is not None
            if game.meta.seats[state.seat].account_id == dot:
                await service.games.fail_seat(game_id, game.version, Fault.TIMEOUT, RAN_OUT, forfeit_after=1)
            else:
                await service.games.act(game_id, state.seat, game.version, _simple(game))
        raise AssertionError("the game did not end")

    for _ in range(2):
        found = detail(ann, tid)
        for table in found["rounds_played"][-1]["tables"]:
            if "Dot" in [p["name"] for p in table["players"]]:
                run(ann, dot_forfeits, table["game"])
            else:
                game = ann.get(f"/api/games/{table['game']}").json()
                play_between({s["seat"]: four[s["name"]] for s in game["seats"]}, table["game"])
        run(ann, service.tournaments.advance, tid)
    found = detail(ann, tid)
    dot_entry = next(e for e in found["entrants"] if e["name"] == "Dot")
    assert dot_entry["withdrawn"] and dot_entry["why"] == "forfeited 2 games on the clock"
    third = found["rounds_played"][2]
    assert "Dot" not in [p["name"] for t in third["tables"] for p in t["players"]]
    assert [b["name"] for b in third["byes"]] != ["Dot"] and len(third["byes"]) == 1
    assert next(s for s in found["standings"] if s["name"] == "Dot")["forfeits"] == 2


def test_a_player_who_withdraws_after_the_start_finishes_the_game_under_way_and_is_paired_no_more(four: dict[str, Any], clock: Clock) -> None:
    ann, dot = four["Ann"], four["Dot"]
    tid = new_tournament(ann, clock, rounds=2).json()["id"]
    for browser in four.values():
        post(browser, f"/api/tournaments/{tid}/join", {})
    post(ann, f"/api/tournaments/{tid}/start", {})
    left = post(dot, f"/api/tournaments/{tid}/leave", {})
    assert left.status_code == 200, left.text
    dot_entry = next(e for e in left.json()["entrants"] if e["name"] == "Dot")
    assert dot_entry["withdrawn"] and dot_entry["why"] == "withdrew"
    again = post(dot, f"/api/tournaments/{tid}/leave", {})
    assert again.status_code == 409 and again.json()["error"] == "not_entered"
    dots_game = next(t["game"] for t in detail(ann, tid)["rounds_played"][0]["tables"] if "Dot" in [p["name"] for p in t["players"]])
    assert ann.get(f"/api/games/{dots_game}").json()["status"] == "playing"  # hers to finish
    play_round(four, tid)
    found = detail(ann, tid)
    assert found["round"] == 2 and found["status"] == "playing"
    second = found["rounds_played"][1]
    seated = [p["name"] for t in second["tables"] for p in t["players"]] + [b["name"] for b in second["byes"]]
    assert sorted(seated) == ["Ann", "Bob", "Cy"] and len(second["byes"]) == 1  # three left: one bye
    assert next(s for s in found["standings"] if s["name"] == "Dot")["played"] == 1  # her game counted


def _simple(game: Any) -> Any:
    """A simple player's move: roll, the first choice, stop after a choice."""
    state = game.state
    if state.phase is Phase.ROLL:
        return Move.of(ROLL)
    if state.phase is Phase.DECIDE:
        return Move.of(STOP)
    return Move.of(state.legal_actions()[0])


def test_a_tournaments_game_is_played_under_fair_play(four: dict[str, Any], clock: Clock) -> None:
    ann, bob = four["Ann"], four["Bob"]
    tid = new_tournament(ann, clock).json()["id"]
    for browser in (ann, bob):
        post(browser, f"/api/tournaments/{tid}/join", {})
    post(ann, f"/api/tournaments/{tid}/start", {})
    game_id = detail(ann, tid)["rounds_played"][0]["tables"][0]["game"]
    game = ann.get(f"/api/games/{game_id}").json()
    assert game["rated"] is False and game["fair_play"] is True
    odds = ann.get(f"/api/games/{game_id}/odds")
    assert odds.status_code == 403 and odds.json()["error"] == "fair_play" and "tournament" in odds.json()["message"]


# ------------------------------------------------------------------ several processes
def test_a_round_is_paired_once_however_many_processes_pair_it(any_storage: Storage, clock: Clock) -> None:
    """Two processes on one database pair the same round at once: the round's key lets one
    store it; the other stores nothing, and each process sees the same pairing."""
    apps = [create_app(any_storage, now=clock, bot_delay=0, **NO_LIMITS) for _ in range(2)]
    with TestClient(apps[0]) as first, TestClient(apps[1]) as second:
        browsers = []
        for name in ("Ann", "Bob", "Cy", "Dot"):
            browser = Browser(first)
            sign_up(browser, name)  # type: ignore[arg-type]
            browsers.append(browser)
        ann = browsers[0]
        tid = post(ann, "/api/tournaments", {"name": "Shared", "variant": QUICK, "rounds": 2, "starts": iso(clock, 60)}).json()["id"]
        for browser in browsers:
            assert post(browser, f"/api/tournaments/{tid}/join", {}).status_code == 200
        clock.advance(61)
        services: list[GameService] = [app.state.service for app in apps]

        async def both(service: GameService) -> None:
            await service.tournaments.advance(tid)

        # Each process's own event loop: both start the tournament and pair round 1 at the same moment.
        done = []
        threads = [threading.Thread(target=lambda c=c, s=s: done.append(c.portal.call(both, s))) for c, s in zip((first, second), services)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert len(done) == 2
        with any_storage.engine.connect() as conn:
            assert conn.scalar(select(func.count()).select_from(ROUNDS)) == 1
            assert conn.scalar(select(func.count()).select_from(PLACES)) == 4
            games = conn.scalar(select(func.count()).select_from(GAMES))
        assert games == 2
        seen = [c.get(f"/api/tournaments/{tid}").json()["rounds_played"] for c in (first, second)]
        assert seen[0] == seen[1]
        # Pairing round 1 again, directly: the key refuses it and nothing is stored.
        store = services[1].tournaments.store
        found = store.tournament(tid)
        assert found is not None
        again = store.pair(found, 1, [NewTable(1, ((1, "Ann"), (2, "Bob")))], (), datetime.now(UTC).replace(tzinfo=None))
        assert again is None
        with any_storage.engine.connect() as conn:
            assert conn.scalar(select(func.count()).select_from(GAMES)) == 2
        # What refuses it is the round's key: the same row once more is refused by the database itself.
        with pytest.raises(IntegrityError), any_storage.engine.begin() as conn:
            conn.execute(ROUNDS.insert(), {"tournament_id": tid, "round": 1, "paired": datetime.now(UTC).replace(tzinfo=None)})
