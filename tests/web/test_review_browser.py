"""The review room in a real Chromium: a finished game's analysis view (the graph drawn, its
table, a click that jumps there, every option with its chance, the roll map, the grades in the
log), by keyboard and on a phone; the tutor's warning and the move taken back; the roll map of
a friendly game; practice and a profile's averages. axe finds nothing serious on any of it."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from account_helpers import PASSWORD
from test_web_browser import browser, seated_page, serious_violations, wait_js  # noqa: F401  (a fixture)
from web_helpers import Server

pytestmark = pytest.mark.browser
READY = "document.getElementById('analysis').dataset.ready === 'true'"
POSITION = "document.getElementById('replay-pos').textContent"


@pytest.fixture
def server(tmp_path: Path) -> Any:
    with Server(f"sqlite:///{tmp_path / 'review.sqlite3'}", bot_delay=0.0) as running:
        yield running


def finished_bot_game(server: Server, turns: int = 10) -> str:
    """A finished game of two bots at least `turns` turns long: the dice are the server's own,
    and one game in a hundred or so is too short to have a mistake to click or ten turns to list."""
    for _ in range(20):
        game_id = str(httpx.post(server.url + "/api/games", json={"seats": ["bot:rule28", "bot:expert"]}).json()["id"])
        for _ in range(3000):
            game = httpx.get(f"{server.url}/api/games/{game_id}").json()
            if game["status"] == "over":
                break
            time.sleep(0.02)
        else:
            raise AssertionError("the bots' game did not end")
        if game["state"]["turn"] >= turns:
            return game_id
    raise AssertionError(f"twenty games of two bots all ended within {turns} turns")


def watched(chromium: Any, **options: Any) -> tuple[Any, list[str]]:
    page = chromium.new_page(**options)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return page, errors


def no_sideways_scroll(page: Any) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def test_the_analysis_view_draws_the_graph_and_its_table_and_jumps_where_it_is_clicked(browser: Any, server: Server) -> None:  # noqa: F811
    game_id = finished_bot_game(server)
    page, errors = watched(browser, viewport={"width": 1280, "height": 900})
    page.goto(f"{server.url}/game/{game_id}")
    page.click("#summary button:has-text('Analyse this game')")
    wait_js(page, READY, timeout=120_000)
    assert page.locator(".analysis-graph path.analysis-line").count() == 2  # a line per player
    assert page.locator(".analysis-summary tbody tr").count() == 2
    accuracy = page.locator(".analysis-summary tbody tr >> nth=0 >> td >> nth=0").text_content()
    assert accuracy is not None and 0 <= float(accuracy) <= 100
    # The graph's table, a row per turn of the game (a game of two bots can be short: its length, not a floor).
    turns = httpx.get(f"{server.url}/api/games/{game_id}").json()["state"]["turn"]
    assert turns >= 2 and page.locator(".analysis-table tbody tr").count() == turns
    first_turn = page.locator(".analysis-table tbody tr >> nth=0 >> td")  # who, what was played (its dice first), values
    assert (first_turn.nth(1).text_content() or "")[:1].isdigit() and "%" in (first_turn.nth(2).text_content() or "")
    assert "chance to win" in (page.get_attribute(".analysis-graph", "aria-label") or "").lower()
    assert page.locator("#log .grade").count() > 0  # each decision's grade beside its log line
    assert page.locator("#log .luck").count() > 0  # and each roll's luck
    assert page.evaluate(POSITION).startswith("move 0 of")

    # A click on the graph jumps to that point: the board, the position and what led there follow.
    page.locator(".analysis-hit").scroll_into_view_if_needed()
    box = page.locator(".analysis-hit").bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.5, box["y"] + box["height"] / 2)
    wait_js(page, f"!{POSITION}.startsWith('move 0 of')")
    assert page.text_content(".analysis-here h3").startswith("After event ")
    # A biggest mistake: every option with its chance, the one played marked.
    page.click(".analysis-mistakes button >> nth=0")
    options = page.locator(".analysis-here .analysis-options li")
    assert options.count() >= 2 and page.locator(".analysis-here .analysis-options li.chosen").count() == 1
    assert "%" in (options.nth(0).text_content() or "")
    # A line of the log jumps there too, and is marked as the position shown.
    page.click("#log li >> nth=5 >> .log-jump")
    wait_js(page, "document.querySelectorAll('#log li.current').length > 0")
    # The roll map of the point shown, where a roll comes next (the start of the game).
    page.click("#replay-first")
    page.wait_for_selector(".analysis-here .rollmap-table")
    assert "busts" in page.text_content(".analysis-here .rollmap-head")
    assert serious_violations(page) == [], "the analysis view"

    # By keyboard alone: the table opens and its first turn's button jumps there.
    page.focus(".analysis-table-box summary")
    page.keyboard.press("Enter")
    page.focus(".analysis-table tbody tr >> nth=2 >> button")
    page.keyboard.press("Enter")
    wait_js(page, "document.querySelector('.analysis-here h3').textContent.startsWith('After event')")
    page.keyboard.press("ArrowRight")  # the replay's keys still step
    assert page.text_content(".analysis-here h3").startswith("After event")

    # A phone: nothing wider than the screen, the graph redrawn at its width, still nothing serious.
    page.set_viewport_size({"width": 390, "height": 844})
    wait_js(page, "Math.abs(document.querySelector('.analysis-graph').viewBox.baseVal.width - document.querySelector('.analysis-plot').clientWidth) < 50")
    assert no_sideways_scroll(page)
    # What the values are reads whole on the card; the figures' box scrolls sideways to its last column.
    card = page.locator("#analysis").bounding_box()
    said = page.locator(".analysis-caption").bounding_box()
    assert card is not None and said is not None and said["x"] + said["width"] <= card["x"] + card["width"]
    assert page.text_content(".analysis-caption").startswith("Values: ")
    page.locator(".analysis .table-scroll").evaluate("(box) => { box.scrollLeft = box.scrollWidth; }")
    box = page.locator(".analysis .table-scroll").bounding_box()
    last = page.locator(".analysis-summary thead th >> nth=-1").bounding_box()
    assert box is not None and last is not None and last["x"] + last["width"] <= box["x"] + box["width"] + 1
    assert serious_violations(page) == [], "the analysis view on a phone"
    assert errors == []


def test_a_link_opens_the_analysis_and_a_game_not_over_has_none(browser: Any, server: Server) -> None:  # noqa: F811
    game_id = finished_bot_game(server)
    page, errors = watched(browser, viewport={"width": 1000, "height": 800})
    page.goto(f"{server.url}/game/{game_id}#analysis")
    wait_js(page, READY, timeout=120_000)
    playing, _ = seated_page(browser, server, ["open", "bot:random"], viewport={"width": 1000, "height": 800})
    assert playing.locator("#summary").is_hidden() and playing.locator("#replay-analysis").is_hidden()
    assert errors == []


def tutor_values(page: Any, game_id: str, token: str) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(
        f"fetch('/api/games/{game_id}/tutor', {{headers: {{authorization: 'Bearer {token}'}}}}).then((r) => r.json())"
    )
    return found


def test_the_tutor_warns_before_a_costly_move_which_can_be_taken_back(browser: Any, server: Server) -> None:  # noqa: F811
    page, game_id = seated_page(browser, server, ["open", "bot:random"], viewport={"width": 1280, "height": 860})
    token = page.evaluate(f"JSON.parse(localStorage.getItem('cantstop-seats-{game_id}'))[0]")
    page.select_option("#tutor", "1")  # warn past 1 point: remembered in this browser
    assert page.evaluate("localStorage.getItem('cantstop-tutor')") == "1"
    page.keyboard.press("m")  # the roll map, live, before the roll
    page.wait_for_selector("#rollmap .rollmap-table")
    costly = None
    for _ in range(400):  # play the best move until one position has an option 1 point worse
        wait_js(page, "document.querySelector('#controls .roll:enabled, #controls .choice:enabled') !== null")
        if page.locator("#controls .choice:enabled").count() == 0 and page.locator("#controls .stop:enabled").count() == 0:
            page.keyboard.press("r")  # a turn's first roll: nothing to decide
            wait_js(page, "document.body.dataset.busy === 'false' && document.querySelector('#controls .roll:enabled') === null")
            continue
        values = tutor_values(page, game_id, token)
        costly = next((o for o in values["options"] if o["loss"] >= 1), None)
        if costly is not None:
            break
        best = values["options"][0]["action"]
        version = page.evaluate("document.body.dataset.version")
        if best in ("roll", "stop"):
            page.keyboard.press(best[0])
        else:
            page.click(f"#controls .choice[data-choice='[{best.replace('+', ',')}]']")
        wait_js(page, f"document.body.dataset.version !== '{version}' && document.body.dataset.busy === 'false'")
    assert costly is not None, "no decision with an option a point worse came"
    version = page.evaluate("document.body.dataset.version")
    selector = "#controls .stop" if costly["action"] == "stop" else "#controls .roll" if costly["action"] == "roll" else \
        f"#controls .choice[data-choice='[{costly['action'].replace('+', ',')}]']"
    page.click(selector)
    page.wait_for_selector("#tutor-dialog[open]")
    said = page.text_content("#tutor-said") or ""
    assert "gives up" in said and "%" in said
    assert serious_violations(page) == [], "the tutor's warning"
    page.keyboard.press("Enter")  # "Take it back" has the focus
    page.wait_for_selector("#tutor-dialog", state="hidden")
    # The dialog's close event comes a task after it hides: the controls come back with it.
    wait_js(page, "document.body.dataset.busy === 'false'")
    assert page.evaluate("document.body.dataset.version") == version  # nothing was sent
    assert page.locator(selector).is_enabled()
    page.click(selector)
    page.wait_for_selector("#tutor-dialog[open]")
    page.click("#tutor-play")  # played anyway
    wait_js(page, f"document.body.dataset.version !== '{version}'")


def rated_game_rolling_on(api: Any, server: Server, csrf: str) -> str:
    """A rated game of Ann's against the Rule-of-28 bot in which she rolls on every time, played
    to its end and analysed (as a rated game is, when it ends); its id."""
    made = api.post(server.url + "/api/games", data={"seats": ["open", "bot:rule28"], "rated": True, "take": [{"seat": 0}]},
                    headers={"x-csrf-token": csrf})
    game_id = str(made.json()["id"])
    for _ in range(20_000):  # bounded by the game's end: rolling on every time, Ann never scores
        game = api.get(f"{server.url}/api/games/{game_id}").json()
        if game["status"] == "over":
            break
        state = game["state"]
        if state["player"] == 0:
            action = state["legal"][0] if state["phase"] == "choose" else "roll"
            api.post(f"{server.url}/api/games/{game_id}/actions", data={"version": game["version"], "action": action},
                     headers={"x-csrf-token": csrf})
    for _ in range(600):
        if api.get(f"{server.url}/api/games/{game_id}/analysis").status == 200:
            return game_id
        time.sleep(0.2)
    raise AssertionError("the game was not analysed within 120 s")


def test_practice_asks_a_position_of_ones_own_games_and_the_profile_shows_the_averages(browser: Any, server: Server) -> None:  # noqa: F811
    context = browser.new_context(viewport={"width": 1000, "height": 860})
    api = context.request
    assert api.post(server.url + "/api/account/sign-up", data={"name": "Ann", "password": PASSWORD}).status == 201
    csrf = next(c["value"] for c in context.cookies() if c["name"] == "cantstop_csrf")
    # Practice asks a decision that cost 5 points or more. Rolling on every time costs Ann that in
    # most games, not all (the dice are the server's: CI once saw her dearest decision at 4.76
    # points): another game is played until one has.
    losses: list[list[float]] = []
    for _ in range(5):
        game_id = rated_game_rolling_on(api, server, csrf)
        question = api.get(f"{server.url}/api/practice").json()
        if question["position"] is not None:
            break
        decisions = api.get(f"{server.url}/api/games/{game_id}/analysis").json()["analysis"]["decisions"]
        losses.append(sorted((d["loss"] for d in decisions if d["seat"] == 0), reverse=True)[:3])
    else:
        raise AssertionError(f"five games and no decision of Ann's cost 5 points: her dearest in each {losses}")
    games = len(losses) + 1  # each analysed, and each counts in the profile's averages
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url + "/practice")
    page.wait_for_selector("[data-ready=true]")
    page.wait_for_selector("#choices button")
    assert "Answered 0 of" in page.text_content("#progress")
    assert serious_violations(page) == [], "a practice question"
    page.click("#choices button >> nth=0")
    page.wait_for_selector(".practice-verdict")
    assert page.locator("#reveal .analysis-options li").count() >= 2
    assert "In the game you played" in page.text_content("#reveal")
    assert "Answered 1 of" in page.text_content("#progress")
    assert serious_violations(page) == [], "a practice answer"
    page.set_viewport_size({"width": 390, "height": 844})
    assert no_sideways_scroll(page)
    page.goto(server.url + "/player/Ann")
    page.wait_for_selector("[data-ready=true]")
    analysed = f"{games} analysed rated game{'' if games == 1 else 's'}"
    assert page.locator("#accuracy-item").is_visible() and analysed in page.text_content("#analysed")
    assert serious_violations(page) == [], "a profile with averages"
    assert errors == []
