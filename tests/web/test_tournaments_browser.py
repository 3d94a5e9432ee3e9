"""A Swiss tournament in a real Chromium, from entry to its final standings: four accounts
sign up, one creates the tournament with the keyboard, the others enter from its page, its
creator starts it, and the rounds follow one another as their games end. The games' moves
are sent by the test through the API, each by its player's own session (the point is the
tournament's flow, not the board); the pages are read on a phone's width and a desktop's,
by keyboard, and checked with axe."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from account_helpers import PASSWORD
from test_web_browser import browser, serious_violations, server, wait_js  # noqa: F401  (fixtures)
from test_web_browser_accounts import fill_and_send, shown_account
from web_helpers import Server, pick

pytestmark = pytest.mark.browser
NAMES = ("Ann", "Bob", "Cy", "Dot")


def signed_in(site: str, name: str) -> httpx.Client:
    """The player's session for the API: what their browser would send, CSRF token and all."""
    client = httpx.Client(base_url=site, timeout=30)
    response = client.post("/api/account/sign-in", json={"name": name, "password": PASSWORD})
    assert response.status_code == 200, response.text
    client.headers["X-CSRF-Token"] = client.cookies.get("cantstop_csrf") or ""
    return client


def play_out(sessions: dict[str, httpx.Client], game_id: str) -> None:
    """A game played to its end, each move by the seat's own session (a simple player's)."""
    watcher = next(iter(sessions.values()))
    rolls = 0
    for _ in range(5000):
        game = watcher.get(f"/api/games/{game_id}").json()
        if game["status"] != "playing":
            return
        state = game["state"]
        action = pick(state, rolls)
        rolls = 1 if state["phase"] == "roll" else 0 if action == "stop" else rolls + (action == "roll")
        who = sessions[game["seats"][state["player"]]["name"]]
        response = who.post(f"/api/games/{game_id}/actions", json={"version": game["version"], "action": action})
        assert response.status_code in (200, 409), response.text  # 409: a stale look, taken again
    raise AssertionError(f"game {game_id} did not end")


def no_sideways_scroll(page: Any) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth"))


def test_a_tournament_of_four_accounts_from_entry_to_final_standings(browser: Any, server: Server) -> None:  # noqa: F811
    site = server.url
    pages: dict[str, Any] = {}
    errors: list[str] = []
    for i, name in enumerate(NAMES):
        viewport = {"width": 390, "height": 844} if i % 2 else {"width": 1280, "height": 900}  # Bob and Dot on phones
        page = browser.new_page(viewport=viewport)
        page.on("pageerror", lambda e: errors.append(str(e)))
        fill_and_send(page, site + "/sign-up", name, PASSWORD)
        assert shown_account(page) == name
        pages[name] = page
    ann = pages["Ann"]

    # Ann creates it on /tournaments by keyboard alone.
    ann.goto(site + "/tournaments")
    ann.wait_for_selector("[data-ready=true]")
    ann.wait_for_selector("#new:not([hidden])")
    assert serious_violations(ann) == [], "the tournaments page, with its form"
    ann.focus("#t-name")
    ann.keyboard.type("Friday Swiss")
    ann.keyboard.press("Tab")  # the rules: classic stays
    ann.keyboard.press("Tab")  # players a game: 2 stays
    ann.keyboard.press("Tab")
    ann.keyboard.press("Control+a")
    ann.keyboard.type("2")  # rounds
    ann.keyboard.press("Enter")
    ann.wait_for_url("**/tournament/*")
    ann.wait_for_selector("[data-ready=true]")
    tournament_url = ann.url
    tid = tournament_url.rsplit("/", 1)[1]
    assert ann.text_content("#t-title") == "Friday Swiss"
    assert "Entry is open until" in str(ann.text_content("#t-when"))
    assert serious_violations(ann) == [], "a tournament taking entries"

    # Everyone enters from its page (Ann too), with the keyboard.
    for name in NAMES:
        page = pages[name]
        page.goto(tournament_url)
        page.wait_for_selector("#t-join:not([hidden])")
        page.focus("#t-join")
        page.keyboard.press("Enter")
        page.wait_for_selector("#t-leave:not([hidden])")
        assert name in [str(n) for n in page.locator("#entrants a").all_text_contents()]
        assert no_sideways_scroll(page), name
    ann.wait_for_selector("#t-start:not([hidden])")  # Ann entered first: her page sees the others at its next look
    assert pages["Bob"].locator("#t-start").is_hidden()  # only its creator starts it early
    ann.click("#t-start")
    wait_js(ann, "document.body.dataset.status === 'playing'")
    assert "Round 1 of 2" in str(ann.text_content("#t-when"))
    assert ann.locator("#rounds .round-tables li").count() == 2
    assert serious_violations(ann) == [], "a tournament in play"

    game_url = ann.get_attribute("#rounds .round-tables li >> nth=0 >> a[href^='/game/']", "href")
    game = browser.new_page(viewport={"width": 390, "height": 844})  # a round's game, as a spectator sees it
    game.goto(site + str(game_url))
    game.wait_for_selector("#tournament-link:not([hidden])")
    assert game.text_content("#tournament-link a") == "Friday Swiss, round 1"
    assert game.text_content("#fair-what") == "A tournament's game" and game.locator("#fair").is_visible()
    assert game.locator("#odds-toggle").is_hidden()  # fair play: no odds while it is on
    game.close()

    sessions = {name: signed_in(site, name) for name in NAMES}
    for number in (1, 2):
        found = sessions["Ann"].get(f"/api/tournaments/{tid}").json()
        assert found["round"] == number
        for table in found["rounds_played"][-1]["tables"]:
            play_out(sessions, table["game"])
        if number == 1:  # the last game's end pairs round 2 by itself; the page looks again every few seconds
            wait_js(ann, "document.body.dataset.round === '2'", timeout=60_000)
    bob = pages["Bob"]
    wait_js(bob, "document.body.dataset.status === 'over'", timeout=60_000)
    rows = bob.locator("#standings tbody tr")
    assert rows.count() == 4
    assert sorted(r.split()[0] for r in rows.all_inner_texts())[0] == "1"
    assert no_sideways_scroll(bob), "the standings on a phone"
    assert serious_violations(bob) == [], "the final standings, on a phone"
    final = sessions["Bob"].get(f"/api/tournaments/{tid}").json()
    assert final["status"] == "over" and sum(float(s["points"]) for s in final["standings"]) == 4  # two rounds of two games
    met = [frozenset(p["name"] for p in t["players"]) for r in final["rounds_played"] for t in r["tables"]]
    assert len(set(met)) == 4  # no pair met twice

    bob.goto(site + "/tournaments")  # the list on a phone: the tournament under Finished
    bob.wait_for_selector("[data-ready=true]")
    assert "Friday Swiss" in str(bob.text_content("#finished")) and no_sideways_scroll(bob)
    assert serious_violations(bob) == [], "the tournaments page on a phone"

    # The results on a profile.
    bob.goto(site + "/player/Bob")
    bob.wait_for_selector("[data-ready=true]")
    bob.wait_for_selector("#tournaments-card:not([hidden])")
    line = str(bob.text_content("#tournaments"))
    standing = next(s for s in final["standings"] if s["name"] == "Bob")
    assert "Friday Swiss" in line and f"finished {standing['rank']} of 4" in line
    assert serious_violations(bob) == [], "a profile with a tournament"
    assert errors == []
