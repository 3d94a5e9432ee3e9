"""Challenges in a real Chromium, on a 390-px phone and by keyboard: Ann challenges Bob from his
profile (seat A for her), Bob sees it on his home page and accepts, and both land in the one
game it made, seated in that order; and Bob blocks Ann, whose challenge is then refused with
the reason, her button saying so. axe finds nothing serious on the dialog, the home page's box
or the friends list's button."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from test_web_browser import browser, serious_violations, server, wait_js, watched_page  # noqa: F401  (fixtures)
from test_web_browser_accounts import local
from test_web_browser_social import fits, press, signed_up
from test_web_browser_your_turn import Player, notified_page
from web_helpers import Server

from cantstop.web.db.rows import RatingRow
from cantstop.web.db.storage import Storage
from cantstop.web.db.values import RatingKind
from cantstop.web.identity.accounts import Accounts

pytestmark = pytest.mark.browser


def two_players(browser: Any, server: Server) -> tuple[Any, Any, list[str]]:  # noqa: F811
    """Ann's and Bob's pages on a phone, each signed up; the list both pages' script errors go to."""
    ann, errors = watched_page(browser, 390, 844)
    bob, _ = watched_page(browser, 390, 844)
    bob.on("pageerror", lambda e: errors.append(f"Bob's page: {e}"))
    signed_up(ann, server, "Ann")
    signed_up(bob, server, "Bob")
    return ann, bob, errors


def send_challenge(page: Any, seat_steps: int = 0) -> None:
    """Open the challenge dialog from the profile by keyboard, move the seat's choice down
    `seat_steps` places (Drawn at random, then Seat A, then Seat B), and send it."""
    press(page, "#challenge")
    page.wait_for_selector("#challenge-dialog[open]")
    assert page.evaluate("document.activeElement.id") == "challenge-rules"  # the dialog takes the focus
    assert serious_violations(page) == [], "the challenge dialog"
    assert fits(page)
    if seat_steps:
        for _ in range(20):  # Tab to the seat's radio group, then choose with the arrow keys
            if page.evaluate("document.activeElement.name") == "challenge-seats":
                break
            page.keyboard.press("Tab")
        for _ in range(seat_steps):
            page.keyboard.press("ArrowDown")
    press(page, "#challenge-send")
    page.wait_for_selector("#challenge-dialog:not([open])", state="attached")


def test_a_challenge_made_from_a_profile_is_accepted_from_the_home_page(browser: Any, server: Server) -> None:  # noqa: F811
    ann, bob, errors = two_players(browser, server)

    ann.goto(f"{server.url}/player/Bob")
    ann.wait_for_selector("[data-ready=true] #social:not([hidden])")
    send_challenge(ann, seat_steps=1)  # Seat A: Ann first
    ann.wait_for_selector("#social-said:text('Challenge sent to Bob')")
    assert ann.is_enabled("#challenge")

    bob.goto(server.url)
    bob.wait_for_selector("#challenges-card:not([hidden]) li:has-text('Ann challenges you')")
    assert "you play seat B" not in (bob.text_content("#challenges") or "")  # the seats as Bob reads them: Ann plays A
    assert "Ann plays seat A" in (bob.text_content("#challenges") or "")
    assert serious_violations(bob) == [], "home, a challenge received"
    assert fits(bob)
    press(bob, "#challenges .challenge-actions button.roll")  # Accept
    bob.wait_for_url("**/game/*")
    game_id = bob.url.rsplit("/", 1)[1]
    bob.wait_for_selector("#seats .seat:nth-child(2):has-text('Bob')")

    ann.goto(server.url)
    ann.wait_for_selector("#challenges li:has-text('Bob accepted your challenge')")
    assert serious_violations(ann) == [], "home, a challenge accepted"
    press(ann, "#challenges a.button")  # Play the game
    ann.wait_for_url(f"**/game/{game_id}")
    ann.wait_for_selector("#seats .seat:nth-child(1):has-text('Ann')")
    game = httpx.get(f"{server.url}/api/games/{game_id}").json()
    assert [s["name"] for s in game["seats"]] == ["Ann", "Bob"] and game["status"] == "playing"

    # The people's leaderboard offers a challenge on each other player's row (Bob's rating is
    # written settled here: ten games against five trusted opponents would take a while).
    store = Storage(server.db)
    try:
        bob_id = Accounts(store).named("Bob").id
        with store.session() as s:
            s.add(RatingRow(kind=RatingKind.PERSON.value, account_id=bob_id, name=None, players=2, mu=27.0, sigma=2.0, games=12,
                            wins=7, opponents=6))
    finally:
        store.close()
    ann.goto(f"{server.url}/leaderboard")
    ann.wait_for_selector("[data-ready=true] #leaders tr:has-text('Bob') button.challenge")
    assert serious_violations(ann) == [], "leaderboard, with a challenge button"
    assert fits(ann)
    press(ann, "#leaders button.challenge")
    ann.wait_for_selector("#challenge-dialog[open]")
    assert ann.text_content("#challenge-title") == "Challenge Bob"
    ann.keyboard.press("Escape")  # changed her mind: nothing sent
    ann.wait_for_selector("#challenge-dialog:not([open])", state="attached")

    # The friends list offers a challenge beside each player followed.
    ann.goto(f"{server.url}/friends")
    ann.wait_for_selector("[data-ready=true] #mine:not([hidden])")
    ann.focus("#follow-name")
    ann.keyboard.type("Bob")
    ann.keyboard.press("Enter")
    ann.wait_for_selector("#following li.friend:has-text('Bob') button.challenge")
    assert ann.get_attribute("#following button.challenge", "aria-label") == "Challenge Bob"
    assert serious_violations(ann) == [], "friends, with a challenge button"
    assert fits(ann)
    assert len(ann.request.get(f"{server.url}/api/challenges").json()["sent"]) == 1  # the one accepted, nothing more
    assert errors == []


def test_a_blocked_players_challenge_is_refused_and_the_button_says_so(browser: Any, server: Server) -> None:  # noqa: F811
    ann, bob, errors = two_players(browser, server)

    bob.goto(f"{server.url}/player/Ann")
    bob.wait_for_selector("[data-ready=true] #social:not([hidden])")
    press(bob, "#block")
    bob.wait_for_selector("#block:text('Unblock')")
    assert bob.is_disabled("#challenge") and bob.text_content("#challenge") == "Cannot challenge"  # Bob blocks Ann: nor he her

    ann.goto(f"{server.url}/player/Bob")
    ann.wait_for_selector("[data-ready=true] #social:not([hidden])")
    assert ann.is_enabled("#challenge")  # Ann is not told of the block until she tries
    send_challenge(ann)
    ann.wait_for_selector("#social-said.error:text('to: you cannot challenge Bob (one of you blocks the other)')")
    assert ann.is_disabled("#challenge") and ann.text_content("#challenge") == "Cannot challenge"
    assert serious_violations(ann) == [], "a profile, the challenge refused"
    assert fits(ann)
    mine = ann.request.get(f"{server.url}/api/challenges").json()
    assert mine["sent"] == []  # nothing stored
    bob.goto(server.url)
    bob.wait_for_selector("body[data-challenges='0']", state="attached")  # the box has looked: nothing for Bob
    assert bob.locator("#challenges li").count() == 0 and bob.is_hidden("#challenges-card")
    assert errors == []


def test_a_challenge_arriving_is_notified_while_the_home_page_is_out_of_view(browser: Any, server: Server) -> None:  # noqa: F811
    site = local(server)
    page, errors = notified_page(browser, site, "Bob")
    ann = Player(server, "Ann")
    page.goto(site + "/")
    page.wait_for_selector("body[data-challenges='0']", state="attached")  # the first look: nothing, nothing told
    made = ann.post("/api/challenges", {"to": "Bob", "rules": "classic", "clock": 43200, "seats": "second"})
    assert made.status_code == 201, made.text
    wait_js(page, "window.notified.length === 1")
    notified = page.evaluate("window.notified[0]")
    assert notified["title"] == "Can't Stop: a challenge" and notified["tag"] == f"challenge-{made.json()['id']}"
    assert notified["body"].startswith("Ann challenges you: Classic") and "Ann plays seat B" in notified["body"]
    page.wait_for_selector("#challenges li:has-text('Ann challenges you')")
    assert page.evaluate("window.notified.length") == 1  # told once, however often the box looks
    assert errors == []
