""""Your turn" in a real browser: the home page lists the games waiting for this browser's
move (its account's and the guest seats it holds), counts them in the tab's title and
icon, and, once the player allowed it (Chromium's permission grant), notifies while the
tab is out of view."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from account_helpers import PASSWORD
from test_web_browser import browser, wait_js  # noqa: F401  (a fixture)
from test_web_browser_accounts import fill_and_send, local, shown_account, watched
from web_helpers import Server, pick

pytestmark = pytest.mark.browser

# Out of view (a tab in the background), and every notification the page makes kept where
# the test can read it, the real one still shown.
BACKGROUND_TAB = """
Object.defineProperty(document, "visibilityState", { get: () => "hidden" });
window.notified = [];
const Real = window.Notification;
if (Real) {
  window.Notification = class extends Real {
    constructor(title, options) { super(title, options); window.notified.push({ title, body: options && options.body, tag: options && options.tag }); }
  };
}
"""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    with Server(f"sqlite:///{tmp_path / 'turns.sqlite3'}", bot_delay=0.01) as running:
        yield running


class Player:
    """Someone playing through the API with their own session (the other side of the board)."""

    def __init__(self, server: Server, name: str, new: bool = True) -> None:
        self.http = httpx.Client(base_url=local(server), timeout=30)
        path = "/api/account/sign-up" if new else "/api/account/sign-in"
        assert self.http.post(path, json={"name": name, "password": PASSWORD}).status_code in (200, 201)

    def post(self, path: str, body: dict[str, Any]) -> Any:
        return self.http.post(path, json=body, headers={"X-CSRF-Token": self.http.cookies.get("cantstop_csrf") or ""})

    def play_turn(self, game_id: str, seat: int) -> None:
        """Move until this seat's turn is over (a stop, or a bust)."""
        rolls = 0
        for _ in range(100):  # a turn of this player's is a few moves: it stops after three rolls
            game = self.http.get(f"/api/games/{game_id}").json()
            state = game["state"]
            if game["status"] == "over" or state["player"] != seat:
                return
            action = pick(state, rolls)
            rolls = 0 if action == "stop" else rolls + (action == "roll")
            assert self.post(f"/api/games/{game_id}/actions", {"version": game["version"], "action": action}).status_code == 200
        raise AssertionError(f"seat {seat}'s turn in game {game_id} did not end in 100 moves")


def notified_page(browser: Any, site: str, name: str) -> tuple[Any, list[str]]:  # noqa: F811
    """A page of a browser that allowed notifications, in a tab out of view, signed up as
    `name`; and the list its script errors go to."""
    context = browser.new_context()
    context.grant_permissions(["notifications"], origin=site)
    context.add_init_script("try { localStorage.setItem('cantstop-tour-done', '1'); } catch {}")
    context.add_init_script(BACKGROUND_TAB)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    fill_and_send(page, site + "/sign-up", name, PASSWORD)
    assert shown_account(page) == name
    return page, errors


def test_the_home_page_counts_the_games_waiting_and_notifies_when_one_starts_to(browser: Any, server: Server) -> None:  # noqa: F811
    site = local(server)
    page, errors = notified_page(browser, site, "Ann")
    ann, bob = Player(server, "Ann", new=False), Player(server, "Bob")  # Ann's moves are made by the test, as Bob's are
    made = ann.post("/api/games", {"variant": "classic", "seats": ["open", "open"], "rated": True, "take": [{"seat": 0}]}).json()
    game_id = made["id"]
    assert bob.post(f"/api/games/{game_id}/join", {"seat": 1}).status_code == 200
    if ann.http.get(f"/api/games/{game_id}").json()["state"]["player"] == 0:
        ann.play_turn(game_id, 0)  # Bob's turn now: Ann's game is listed, not waiting

    page.goto(site + "/")
    page.wait_for_selector("#mine-card:not([hidden]) #mine li")
    wait_js(page, "document.body.dataset.waiting === '0'")
    assert page.title() == "Can't Stop" and page.locator("#mine .your-turn").count() == 0
    plain_icon = page.get_attribute("link[rel=icon]", "href")
    assert page.locator("#mine-card button", has_text="Tell me when it is my turn").is_hidden()  # granted already
    assert "tells you when a game waits for your move" in str(page.text_content("#mine-card"))

    bob.play_turn(game_id, 1)  # the turn passes to Ann
    wait_js(page, "document.body.dataset.waiting === '1'", timeout=30_000)
    assert page.title() == "(1) Can't Stop"
    assert page.locator("#mine li").first.locator(".your-turn").text_content() == "Your turn"
    icon = page.get_attribute("link[rel=icon]", "href")
    assert icon != plain_icon and icon.startswith("data:image/svg+xml,") and "%3E1%3C" in icon  # the badge reads 1
    wait_js(page, "window.notified.length === 1")
    notified = page.evaluate("window.notified[0]")
    assert notified["title"] == "Can't Stop: your turn" and notified["tag"] == game_id and "Bob" in notified["body"]

    ann.play_turn(game_id, 0)  # Ann plays: nothing waits any more
    wait_js(page, "document.body.dataset.waiting === '0'", timeout=30_000)
    assert page.title() == "Can't Stop" and page.evaluate("window.notified.length") == 1
    assert errors == []


def test_a_guests_seats_are_listed_and_notifications_are_asked_for(browser: Any, server: Server) -> None:  # noqa: F811
    page, errors = watched(browser)
    page.goto(server.url + "/")
    page.wait_for_selector("#create button[type=submit]")
    # The form is in the page before the script has asked who is signed in: its note says when.
    wait_js(page, "document.getElementById('rated-note').textContent !== ''")
    assert page.locator("#rated").is_disabled() and "sign in" in str(page.text_content("#rated-note")).lower()
    page.select_option("select[name=seat] >> nth=0", "here")
    page.fill("input[name=seat-name] >> nth=0", "Gus")
    page.select_option("select[name=seat] >> nth=1", "open")
    page.click("#create button[type=submit]")
    page.wait_for_url("**/game/*")
    game_id = page.url.rsplit("/", 1)[1]
    page.goto(server.url + "/")
    page.wait_for_selector(f"#mine li a[href='/game/{game_id}']")  # a seat kept for a person at this screen
    assert page.locator("#mine-card button", has_text="Tell me when it is my turn").is_visible()  # not asked yet
    assert errors == []


def test_a_turn_based_game_tells_the_time_left_on_the_home_page_and_your_turn_in_its_tab(browser: Any, server: Server) -> None:  # noqa: F811
    page, errors = watched(browser)
    page.goto(server.url + "/")
    page.wait_for_selector("#create button[type=submit]")
    page.select_option("select[name=seat] >> nth=0", "here")
    page.fill("input[name=seat-name] >> nth=0", "Gus")
    page.select_option("select[name=seat] >> nth=1", "bot:random")
    page.select_option("#clock", label="1 day a move")
    page.click("#create button[type=submit]")
    page.wait_for_url("**/game/*")
    game_id = page.url.rsplit("/", 1)[1]
    page.wait_for_selector("#controls .roll:enabled")  # the bot has played if it went first: Gus's move
    assert page.title() == "Your turn — Can't Stop — Gus vs Random bot"  # a tab in the background says so
    page.goto(server.url + "/")
    page.wait_for_selector(f"#mine li a[href='/game/{game_id}']")
    listed = str(page.text_content("#mine li"))
    assert "Your turn" in listed and ("23 h 59 min left" in listed or "1 day 0 h left" in listed), listed
    assert errors == []
