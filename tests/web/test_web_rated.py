"""Rated and friendly games: who may play rated, ratings that belong to accounts, the
leaderboards, repeated pairs counting less, and the farming cases of issue 22."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from account_helpers import create, people, play_between, post, rated_game, sign_up
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from test_web_api import play_out
from web_helpers import auth, new_game, pg_schema, postgres_url

from cantstop.core.variant import preset
from cantstop.web.db.storage import Storage
from cantstop.web.players import standings
from cantstop.web.players.ratings import PAIR_WEIGHTS, rated_variant
from cantstop.web.players.scale import PROVISIONAL_SHARE

FARM = "classic+heights=1.1.1.1.1.1.1.1.1.1.1+to_win=1"  # three moves win it (issue 22)


def boards(client: TestClient, players: int = 2) -> dict[str, Any]:
    """Every board of games of `players`, with the provisional ratings the leaderboard leaves out."""
    return {board: client.get("/api/players", params={"board": board, "players": players, "provisional": True}).json()
            for board in ("people", "bots", "legacy")}


@pytest.mark.parametrize("variant", ["classic", "classic-long", "classic-skip", "classic-no-stop-on-occupied", "turtles",
                                     "turtles-relay", "turtles-long", "classic+skip+no_stop_on_occupied", "classic+to_win=5"])
def test_classic_its_published_options_and_the_turtles_are_rated(variant: str) -> None:
    assert rated_variant(preset(variant), 2) is None


@pytest.mark.parametrize(("variant", "players", "why"), [
    (FARM, 2, "custom (heights, to_win)"),
    ("classic+heights=3.5.7.9.11.13.11.9.7.5.4", 2, "custom (heights)"),
    ("classic+runners=4", 2, "custom (runners)"),
    ("classic+wild_face=1+wild_dice=1", 2, "custom (wild_face, wild_dice)"),
    ("classic+to_win=4", 4, "for 2 or 3 players"),
    ("classic+to_win=2", 2, "for 2 or 3 players"),
    ("solitaire", 1, "two players or more"),
])
def test_a_custom_board_is_not_rated_and_the_reason_says_what_is(variant: str, players: int, why: str) -> None:
    reason = rated_variant(preset(variant), players)
    assert reason is not None and why in reason


def test_guests_play_friendly_games_only(client: TestClient) -> None:
    refused = client.post("/api/games", json={"variant": "classic", "seats": ["open", "open"], "rated": True, "take": [{"seat": 0, "name": "Ann"}]})
    assert refused.status_code == 403 and refused.json()["error"] == "rated_needs_account"
    assert "sign in" in refused.json()["message"]
    friendly = new_game(client, ["open", "bot:random"])  # one click, no account
    assert client.post(f"/api/games/{friendly}/join", json={"seat": 0, "name": "Guest"}).status_code == 200


def test_a_guest_cannot_join_a_rated_game_nor_a_name_stand_in_for_an_account(storage: Storage, client: TestClient) -> None:
    with people(storage, "Ann") as (ann,):
        game_id = create(ann, ["open", "open"]).json()["id"]
        guest = client.post(f"/api/games/{game_id}/join", json={"seat": 1, "name": "Bob"})
        assert guest.status_code == 403 and guest.json()["error"] == "rated_needs_account"
        posing = client.post(f"/api/games/{game_id}/join", json={"seat": 1, "name": "ann"})
        assert posing.status_code in (403, 409)


def test_an_account_takes_one_seat_and_sits_under_its_own_name(storage: Storage) -> None:
    with people(storage, "Ann") as (ann,):
        two = create(ann, ["open", "open"], take=[{"seat": 0}, {"seat": 1}])
        assert two.status_code == 422 and two.json()["error"] == "bad_seat"
        game_id = create(ann, ["open", "open", "open"]).json()["id"]
        assert post(ann, f"/api/games/{game_id}/join", {"seat": 0}).status_code == 200
        again = post(ann, f"/api/games/{game_id}/join", {"seat": 1})
        assert again.status_code == 409 and again.json()["error"] == "already_seated"
        other = post(ann, f"/api/games/{game_id}/join", {"seat": 1, "name": "Someone Else"})
        assert other.status_code == 422 and "screen" in other.json()["message"]
        seats = ann.get(f"/api/games/{game_id}").json()["seats"]
        assert seats[0]["name"] == "Ann"


def test_an_account_that_left_a_waiting_game_can_take_a_seat_of_it_again(storage: Storage) -> None:
    """Leaving before the start opens the seat: it holds no account any more (it kept it once,
    and the account was refused its own game as seated already)."""
    with people(storage, "Ann") as (ann,):
        game_id = create(ann, ["open", "open"], take=[{"seat": 0}]).json()["id"]
        assert post(ann, f"/api/games/{game_id}/resign", {}).status_code == 200
        assert ann.get(f"/api/games/{game_id}").json()["seats"][0]["kind"] == "open"
        again = post(ann, f"/api/games/{game_id}/join", {"seat": 1})
        assert again.status_code == 200, again.text


def test_a_rated_game_needs_a_rated_variant_and_no_guest_at_the_screen(storage: Storage) -> None:
    with people(storage, "Ann") as (ann,):
        custom = create(ann, ["open", "open"], FARM, take=[{"seat": 0}])
        assert custom.status_code == 422 and custom.json()["error"] == "not_rated_variant"
        assert "friendly" in custom.json()["message"]
        screen = create(ann, ["open", "open"], take=[{"seat": 0}, {"seat": 1, "name": "Bob"}])
        assert screen.status_code == 403 and screen.json()["error"] == "rated_needs_account"
        bots = create(ann, ["bot:random", "bot:random"])
        assert bots.status_code == 422 and bots.json()["error"] == "bad_seats"
        friendly = create(ann, ["open", "open"], FARM, rated=False, take=[{"seat": 0}, {"seat": 1, "name": "Bob"}])
        assert friendly.status_code == 201, friendly.text


def test_one_client_playing_both_seats_of_the_farm_board_moves_no_board(client: TestClient) -> None:
    """The first farming case of issue 22: five wins in a row on a three-move board, as a guest
    at one screen and as a signed-in person with a guest beside them: friendly, so nothing moves."""
    for _ in range(5):
        made = client.post("/api/games", json={"variant": FARM, "seats": ["open", "open"],
                                                "take": [{"seat": 0, "name": "Mallory"}, {"seat": 1, "name": "Mallory Two"}]})
        assert made.status_code == 201, made.text
        game_id, tokens = made.json()["id"], {t["seat"]: t["token"] for t in made.json()["taken"]}
        final = play_out_both(client, game_id, tokens)
        assert final["status"] == "over"
    assert boards(client) == {"people": [], "bots": [], "legacy": []}
    rated = client.post("/api/games", json={"variant": FARM, "seats": ["open", "open"], "rated": True,
                                             "take": [{"seat": 0, "name": "Mallory"}, {"seat": 1, "name": "Mallory Two"}]})
    assert rated.status_code in (403, 422)


def play_out_both(client: TestClient, game_id: str, tokens: dict[int, str]) -> dict[str, Any]:
    """One client plays every seat (people at one screen), each with its token."""
    for _ in range(500):
        game: dict[str, Any] = client.get(f"/api/games/{game_id}").json()
        if game["status"] == "over":
            return game
        state = game["state"]
        action = state["legal"][0] if state["phase"] == "choose" else ("stop" if state["phase"] == "decide" else "roll")
        response = client.post(f"/api/games/{game_id}/actions", json={"version": game["version"], "action": action},
                               headers=auth(tokens[state["player"]]))
        assert response.status_code == 200, response.text
    raise AssertionError("the game did not end")


def test_a_rated_game_rates_accounts_and_bots_on_their_own_boards(storage: Storage) -> None:
    with people(storage, "Ann", "Bob") as (ann, bob):
        game_id = rated_game(ann, [bob], bots=("random",))
        final = play_between({0: ann, 1: bob}, game_id)
        assert final["rated"] is True and final["status"] == "over"
        assert boards(ann) == {"people": [], "bots": [], "legacy": []}  # three-player games have their own ratings
        board = boards(ann, 3)
        assert {r["name"] for r in board["people"]} == {"Ann", "Bob"} and board["legacy"] == []
        assert [r["name"] for r in board["bots"]] == ["bot:random"]
        assert all(r["players"] == 3 for r in board["people"] + board["bots"])
        # Ann's and Bob's opponents: one trusted (the bot), one not yet (a newcomer): (1 + 1/4) / 2 of a game
        # each. The bot's are both newcomers: a trusted rating does not move for them (players.scale).
        assert [r["games"] for r in board["people"]] == [1, 1] and board["bots"][0]["games"] == 0
        winner = final["seats"][final["state"]["winner"]]["name"]
        if winner != "bot:random":
            assert next(r for r in board["people"] if r["name"] == winner)["wins"] == 1
        changes = standings.changes(storage, game_id)  # what the end-of-game summary shows
        assert {seat: c.weight for seat, c in changes.items()} == {0: 0.625, 1: 0.625, 2: 0.0}
        assert changes[2].change == 0 and all(c.provisional for seat, c in changes.items() if seat < 2)
        assert ann.get("/api/leaderboard").json() == []  # provisional ratings stay off the leaderboard


def test_a_friendly_game_between_accounts_rates_nobody(storage: Storage) -> None:
    with people(storage, "Ann", "Bob") as (ann, bob):
        game_id = create(ann, ["open", "open"], rated=False, take=[{"seat": 0}]).json()["id"]
        post(bob, f"/api/games/{game_id}/join", {"seat": 1})
        play_between({0: ann, 1: bob}, game_id)
        assert boards(ann) == {"people": [], "bots": [], "legacy": []}
        assert standings.changes(storage, game_id) == {}


def test_repeated_rated_games_between_two_accounts_stop_moving_the_leaderboard(storage: Storage) -> None:
    """The second farming case of issue 22: the same two accounts, game after game. Within a
    month each counts half the last; from the fifth on, the leaderboard does not move at all."""
    with people(storage, "Ann", "Bob") as (ann, bob):
        weights = []
        for n in range(len(PAIR_WEIGHTS) + 2):
            before = boards(ann)
            game_id = rated_game(ann, [bob])
            play_between({0: ann, 1: bob}, game_id)
            weights.append({c.weight for c in standings.changes(storage, game_id).values()})
            if n >= len(PAIR_WEIGHTS):
                assert boards(ann) == before, f"game {n + 1} moved the leaderboard"
        # Two newcomers: each counts a quarter for the other (players.scale), times the pair's weight.
        counted = [w * PROVISIONAL_SHARE for w in PAIR_WEIGHTS]
        assert weights == [{w} for w in counted] + [{0.0}, {0.0}]
        history = ann.get("/api/players/Ann").json()["history"]
        assert [p["weight"] for p in history] == [*counted, 0.0, 0.0]


def test_a_rating_belongs_to_the_account_not_to_its_name(storage: Storage, client: TestClient) -> None:
    with people(storage, "Ann", "Bob") as (ann, bob):
        game_id = rated_game(ann, [bob])
        play_between({0: ann, 1: bob}, game_id)
        profile = ann.get("/api/players/Ann").json()
        assert profile["kind"] == "person" and profile["rating"]["games"] == 1
        assert [g["id"] for g in profile["games"]] == [game_id]
        assert [g["id"] for g in ann.get("/api/finished", params={"player": "ann"}).json()] == [game_id]  # the account's games
    # A guest cannot take an account's name, so no guest's game can reach its page.
    taken = client.post(f"/api/games/{new_game(client, ['open'], 'solitaire')}/join", json={"seat": 0, "name": "ANN"})
    assert taken.status_code == 409 and taken.json()["error"] == "name_taken"


@settings(max_examples=60, deadline=None)
@given(st.floats(1, 40), st.floats(0.5, 9), st.floats(1, 40), st.floats(0.5, 9), st.sampled_from([*PAIR_WEIGHTS, 0.0]), st.booleans())
def test_a_game_of_weight_w_moves_a_rating_by_that_share_of_a_full_game(
    mu: float, sigma: float, full_mu: float, full_sigma: float, weight: float, won: bool
) -> None:
    from cantstop.web.db.values import Rating, RatingKind
    from cantstop.web.players.ratings import weighted

    before = Rating(RatingKind.PERSON, "Ann", mu, sigma, 3, 1, 1, 1)
    after = weighted(before, full_mu, full_sigma, weight, won)
    if weight == 0:
        assert after == before  # no move, and the game does not count
        return
    assert after.mu - before.mu == pytest.approx(weight * (full_mu - mu))
    assert after.sigma - before.sigma == pytest.approx(weight * (full_sigma - sigma))
    assert (after.games, after.wins) == (4, 1 + won)
    assert min(mu, full_mu) - 1e-9 <= after.mu <= max(mu, full_mu) + 1e-9


def test_the_leaderboard_lists_live_accounts_only(storage: Storage) -> None:
    with people(storage, "Ann", "Bob") as (ann, bob):
        game_id = rated_game(ann, [bob])
        play_between({0: ann, 1: bob}, game_id)
        from account_helpers import PASSWORD

        assert post(bob, "/api/account/delete", {"password": PASSWORD}).status_code == 204
        assert [r["name"] for r in boards(ann)["people"]] == ["Ann"]


def test_a_guest_page_shows_games_and_no_rating(client: TestClient) -> None:
    game_id = new_game(client, ["open", "bot:random"], "classic+to_win=1")
    response = client.post(f"/api/games/{game_id}/join", json={"seat": 0, "name": "Gus"})
    play_out(client, game_id, response.json()["token"])
    page = client.get("/api/players/Gus").json()
    assert page["kind"] == "guest" and page["rating"] is None and page["history"] == []
    assert [g["id"] for g in page["games"]] == [game_id] and page["legacy"] is None
    assert page["stats"]["by_players"][0]["players"] == 2 and page["stats"]["by_players"][0]["games"] == 1
    sign_up(client, "Hal")
    assert client.get("/api/players/Hal").json()["kind"] == "person"  # an account with no game yet has a page


def test_a_rated_games_last_move_is_answered_before_its_rating_and_the_summary_waits_for_it(
    storage: Storage, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The rating (a transaction of its own) is written after the last move is answered: the
    move's answer does not wait for it, and the summary, the boards and the profiles do."""
    from cantstop.web.games import live as live_module

    real, release = live_module.rate_game, threading.Event()

    def held(*args: Any) -> bool:
        release.wait(10)
        return real(*args)

    monkeypatch.setattr(live_module, "rate_game", held)
    with people(storage, "Ann", "Bob") as (ann, bob):
        game_id = rated_game(ann, [bob])
        resigned = post(bob, f"/api/games/{game_id}/resign", {})
        assert resigned.status_code == 200 and resigned.json()["state"]["winner"] == 0
        assert standings.changes(storage, game_id) == {}  # answered, the rating not yet written
        threading.Timer(0.3, release.set).start()
        summary = ann.get(f"/api/games/{game_id}/summary").json()
        assert release.is_set() and [s["rating"]["change"] > 0 for s in summary["seats"]] == [True, False]
        assert ann.get("/api/players/Ann").json()["rating"]["games"] == 1


def test_the_summary_rates_a_game_whose_process_left_it_unrated(storage: Storage, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process (or this one, restarted) shows the summary of a game left unrated: it
    rates the game there and then rather than show it unrated until the sweep comes."""
    from cantstop.web.games import live as live_module

    real, calls = live_module.rate_game, []

    def stops_first_time(*args: Any) -> bool:
        calls.append(args)
        return len(calls) > 1 and real(*args)

    monkeypatch.setattr(live_module, "rate_game", stops_first_time)
    with people(storage, "Ann", "Bob") as (ann, bob):
        game_id = rated_game(ann, [bob])
        assert post(bob, f"/api/games/{game_id}/resign", {}).status_code == 200
        seats = ann.get(f"/api/games/{game_id}/summary").json()["seats"]
        assert len(calls) == 2 and [s["rating"]["change"] > 0 for s in seats] == [True, False]
        assert bob.get(f"/api/games/{game_id}/summary").json()["seats"] == seats and len(calls) == 2


def test_a_rated_game_with_a_bot_that_crashed_rates_nobody(storage: Storage, monkeypatch: pytest.MonkeyPatch) -> None:
    """The table plays a crashed bot's moves so the people's game goes on (and the log says
    so); the game then counts for nobody's rating, the bot's included."""
    from cantstop.bots import base

    def broken(state: object, rng: object, budget: object) -> object:
        raise RuntimeError("out of its mind")

    info = base.get_bot("random")
    monkeypatch.setitem(base._REGISTRY, "random", base.BotInfo(info.name, info.level, info.description, broken, info.display))
    with people(storage, "Ann", "Bob") as (ann, bob):
        game_id = rated_game(ann, [bob], bots=("random",))
        final = play_between({0: ann, 1: bob}, game_id)
        assert final["rated"] is True and final["status"] == "over"
        assert any(e.get("fell_back") == "crash" for e in final["log"])
        assert standings.changes(storage, game_id) == {}
        assert boards(ann, 3) == {"people": [], "bots": [], "legacy": []}


def test_a_game_the_table_played_a_seat_of_rates_nobody(any_storage: Storage) -> None:
    """A seat whose moves the table played (a bot that crashed or ran out of time) did not
    play the game: nobody's rating moves on it, and nothing is stored."""
    from cantstop.web.db.values import RatingKind
    from cantstop.web.identity.accounts import Accounts
    from cantstop.web.players import ratings

    ann, bob = (Accounts(any_storage).create(name, None).id for name in ("Ann", "Bob"))
    game_id, state = won_by_seat_0(any_storage, ann, bob)
    game = any_storage.game(game_id)
    assert game is not None
    assert ratings.rate_game(any_storage, game, state, stood_in={1}) is False
    assert standings.entry(any_storage, (RatingKind.PERSON, ann), 2) is None
    assert standings.changes(any_storage, game_id) == {}
    assert ratings.rate_game(any_storage, game, state) is True  # the same game, played by its players, is rated


def test_a_game_is_rated_once_however_often_it_is_asked(any_storage: Storage) -> None:
    from cantstop.web.db.values import RatingKind
    from cantstop.web.identity.accounts import Accounts
    from cantstop.web.players import ratings

    ann, bob = (Accounts(any_storage).create(name, None).id for name in ("Ann", "Bob"))
    game_id, state = won_by_seat_0(any_storage, ann, bob)
    game = any_storage.game(game_id)
    assert game is not None
    assert [ratings.rate_game(any_storage, game, state) for _ in range(3)] == [True, False, False]
    entry = standings.entry(any_storage, (RatingKind.PERSON, ann), 2)
    assert entry is not None and (entry.games, entry.wins) == (1, 1) and len(standings.history(any_storage, entry.id or 0)) == 1


def won_by_seat_0(store: Storage, first: int, second: int) -> tuple[str, Any]:
    """A rated game between two accounts, stored as won by seat 0 (its first seat resigning
    is all it takes): its id and final state."""
    from cantstop.core.dice import SeededDice
    from cantstop.table import Move, Table
    from cantstop.web.db.values import Append

    game_id = store.create_game("classic", [("open", None), ("open", None)], rated=True)
    store.claim_seat(game_id, 0, "Ann", first)
    store.claim_seat(game_id, 1, "Bob", second)
    store.start(game_id, 0, {})
    table = Table.new("classic", ["Ann", "Bob"], SeededDice(1))
    resign = Move.resign(1)
    table.restore(resign)
    assert table.state.winner == 0
    assert store.append_many([Append(game_id, 1, (resign,), 0, None)]) == [True]
    return game_id, table.state


@contextmanager
def first_rating_held() -> Iterator[threading.Event]:
    """openskill's update made to hold the first rating it computes (its entries read, none
    written yet) until a second rating has read its own, or a second has passed (when the
    second is kept waiting, as it may rightly be); yields the event set once the first is held."""
    from cantstop.web.players import ratings

    first_in, second_read, model = threading.Event(), threading.Event(), ratings._MODEL

    class Held:
        def __getattr__(self, name: str) -> Any:
            return getattr(model, name)

        def rate(self, *args: Any, **kwargs: Any) -> Any:
            if not first_in.is_set():
                first_in.set()
                second_read.wait(1.0)
            else:
                second_read.set()
            return model.rate(*args, **kwargs)

    ratings._MODEL = Held()  # type: ignore[assignment]
    try:
        yield first_in
    finally:
        ratings._MODEL = model


@pytest.mark.postgres
def test_two_processes_rating_one_game_at_once_rate_it_once() -> None:
    """The process that ended a game and another one's sweep (or summary) rate it at the same
    moment, the first held between reading the entries and writing them back: one of them
    writes the rating, the other finds it written. Both entries are new (the pair's first
    rated game), so no row lock orders them: the unique keys do."""
    from cantstop.web.db.values import RatingKind
    from cantstop.web.identity.accounts import Accounts
    from cantstop.web.players import ratings

    with pg_schema(postgres_url()) as url:
        store = Storage(url)
        store.migrate()
        try:
            ann, bob = (Accounts(store).create(name, None).id for name in ("Ann", "Bob"))
            game_id, state = won_by_seat_0(store, ann, bob)
            game = store.game(game_id)
            assert game is not None
            answers: list[bool] = []
            with first_rating_held() as first_in:
                raters = [threading.Thread(target=lambda: answers.append(ratings.rate_game(store, game, state))) for _ in range(2)]
                raters[0].start()
                assert first_in.wait(10)
                raters[1].start()
                for rater in raters:
                    rater.join(20)
            assert sorted(answers) == [False, True]
            entry = standings.entry(store, (RatingKind.PERSON, ann), 2)
            assert entry is not None and (entry.games, entry.wins) == (1, 1) and len(standings.history(store, entry.id or 0)) == 1
        finally:
            store.close()


@pytest.mark.postgres
def test_two_rated_games_finishing_at_once_both_count() -> None:
    """Ann finishes two rated games at the same moment (turn-based play makes that common),
    on PostgreSQL's database threads. Each game reads her rating, rates and writes it
    back: were both reads made before either write, one game would be lost from her entry.
    The first game's rating is held up between its read and its write until the second has
    read too (or a second has passed, when the second is kept waiting, as it must be)."""
    from cantstop.core.dice import SeededDice
    from cantstop.core.state import ROLL, STOP, Phase
    from cantstop.table import Move, Table
    from cantstop.web.db.values import RatingKind
    from cantstop.web.identity.accounts import Accounts
    from cantstop.web.players import ratings

    with pg_schema(postgres_url()) as url:
        store = Storage(url)
        store.migrate()
        try:
            accounts = Accounts(store)
            ann, bob, cy = (accounts.create(name, None).id for name in ("Ann", "Bob", "Cy"))
            games = []
            for other, name in ((bob, "Bob"), (cy, "Cy")):
                game_id = store.create_game("classic", [("open", None), ("open", None)], rated=True)
                store.claim_seat(game_id, 0, "Ann", ann)
                store.claim_seat(game_id, 1, name, other)
                games.append(store.game(game_id))
            table = Table.new(FARM, ["Ann", "Other"], SeededDice(1))
            while not table.state.is_over:  # the first turn wins the three-move board
                phase = table.state.phase
                table.play(Move.of(ROLL if phase is Phase.ROLL else STOP if phase is not Phase.CHOOSE else table.state.options[0]))
            won = 2 * (table.state.winner == 0)

            with first_rating_held() as first_in:
                first = threading.Thread(target=ratings.rate_game, args=(store, games[0], table.state))
                first.start()
                assert first_in.wait(10)
                second = threading.Thread(target=ratings.rate_game, args=(store, games[1], table.state))
                second.start()
                first.join(20)
                second.join(20)
            entry = standings.entry(store, (RatingKind.PERSON, ann), 2)
            assert entry is not None and (entry.games, entry.wins) == (2, won)
            points = standings.history(store, entry.id or 0)
            assert len(points) == 2 and (points[1].mu - points[0].mu) * (1 if won else -1) > 0  # the second rated on top of the first
        finally:
            store.close()
