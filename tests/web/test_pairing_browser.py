"""Quick pairing in a real Chromium: two accounts (one on a phone) ask for the same rated game
by keyboard and land in the same game; an account blocked by another is not paired with it
(the one who asked first meets the next player instead); a guest waiting alone is offered a
bot, keeps waiting, cancels, asks again and plays the bot. Every state of the page is read at
390 px and checked with axe. The server offers the bot at once (its setting at 0), so no test
waits for it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from account_helpers import PASSWORD
from test_tournaments_browser import no_sideways_scroll
from test_web_browser import browser, serious_violations, wait_js  # noqa: F401  (fixtures)
from web_helpers import Server

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture
def site(tmp_path: Path) -> Iterator[str]:
    with Server(f"sqlite:///{tmp_path / 'pairing.sqlite3'}", bot_delay=0.01, env={"CANTSTOP_PAIRING_BOT_AFTER": "0"}) as running:
        yield running.url


def person(chromium: Any, site: str, name: str | None, viewport: dict[str, int], errors: list[str]) -> Any:
    """A page of its own browser, signed up as `name` (None: a guest), on /play."""
    page = chromium.new_page(viewport=viewport)
    page.on("pageerror", lambda e: errors.append(str(e)))
    if name is not None:
        made = page.request.post(site + "/api/account/sign-up", data={"name": name, "password": PASSWORD})
        assert made.status == 201, made.text()
    page.goto(site + "/play")
    page.wait_for_selector("[data-ready=true]")
    page.wait_for_selector("#ask:not([hidden])")
    return page


def ask_rated_by_keyboard(page: Any) -> None:
    page.focus("#q-friendly")
    page.keyboard.press("ArrowUp")  # the radio group: Rated
    assert page.is_checked("#q-rated")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    # Waiting, or paired at once and gone to the game (the last of a table to ask).
    wait_js(page, "location.pathname.startsWith('/game/') || document.getElementById('waiting')?.hidden === false")


def csrf(page: Any) -> dict[str, str]:
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "cantstop_csrf")
    return {"X-CSRF-Token": token}


def test_two_browsers_asking_for_the_same_game_land_in_it(browser: Any, site: str) -> None:  # noqa: F811
    errors: list[str] = []
    ann = person(browser, site, "Ann", DESKTOP, errors)
    bob = person(browser, site, "Bob", PHONE, errors)
    assert serious_violations(bob) == [], "the quick game form"
    assert no_sideways_scroll(bob)
    assert ann.is_hidden("#q-name-label") and ann.is_enabled("#q-rated")  # signed in: no name asked, rated offered
    ask_rated_by_keyboard(ann)
    assert "rated game: 2 players, Classic, 2 minutes a move" in str(ann.text_content("#q-what"))
    assert "1400 to 1600" in str(ann.text_content("#q-window"))
    assert ann.evaluate("document.activeElement.id") == "q-cancel"
    ask_rated_by_keyboard(bob)
    ann.wait_for_url("**/game/*")
    bob.wait_for_url("**/game/*")
    assert ann.url == bob.url
    game = bob.request.get(site + "/api/games/" + bob.url.rsplit("/", 1)[1]).json()
    assert game["rated"] is True and sorted(s["name"] for s in game["seats"]) == ["Ann", "Bob"]
    bob.wait_for_selector("#fair")  # a rated game's fair play: no odds while it is on
    assert errors == []


def test_a_blocked_account_is_not_paired_with_the_one_that_blocks_it(browser: Any, site: str) -> None:  # noqa: F811
    errors: list[str] = []
    cy = person(browser, site, "Cy", DESKTOP, errors)
    dan = person(browser, site, "Dan", PHONE, errors)
    fay = person(browser, site, "Fay", DESKTOP, errors)
    blocked = cy.request.post(site + "/api/social/blocks", data={"name": "Dan"}, headers=csrf(cy))
    assert blocked.status == 204, blocked.text()
    ask_rated_by_keyboard(cy)
    ask_rated_by_keyboard(dan)
    assert serious_violations(dan) == [], "waiting, with the bot offered"
    assert no_sideways_scroll(dan)
    ask_rated_by_keyboard(fay)  # the look this makes sees all three: Cy, the oldest, meets Fay
    cy.wait_for_url("**/game/*")
    fay.wait_for_url("**/game/*")
    assert cy.url == fay.url
    assert dan.request.get(site + "/api/pairing").json()["state"] == "waiting"
    assert dan.is_visible("#waiting") and "/play" in dan.url
    assert errors == []


def test_a_guest_waiting_alone_is_offered_a_bot(browser: Any, site: str) -> None:  # noqa: F811
    errors: list[str] = []
    guest = person(browser, site, None, PHONE, errors)
    assert guest.is_visible("#q-name") and guest.is_disabled("#q-rated") and guest.is_visible("#q-guest")
    assert serious_violations(guest) == [], "the form, for a guest"
    guest.focus("#q-name")
    guest.keyboard.type("Sam")
    guest.keyboard.press("Enter")
    guest.wait_for_selector("#q-offer:not([hidden])")
    assert "friendly game" in str(guest.text_content("#q-what"))
    assert serious_violations(guest) == [], "the bot offered"
    assert no_sideways_scroll(guest)
    guest.focus("#q-keep")
    guest.keyboard.press("Enter")  # keep waiting: the offer goes, the request stays
    guest.wait_for_selector("#q-offer", state="hidden")
    assert guest.evaluate("document.activeElement.id") == "q-cancel"
    guest.keyboard.press("Enter")  # cancel
    guest.wait_for_selector("#ask:not([hidden])")
    assert guest.request.get(site + "/api/pairing").json()["state"] == "cancelled"
    guest.focus("#q-name")
    guest.keyboard.press("Enter")  # asked again, under the name kept
    guest.wait_for_selector("#q-offer:not([hidden])")
    guest.focus("#q-bot")
    guest.keyboard.press("Enter")
    guest.wait_for_url("**/game/*")
    game = guest.request.get(site + "/api/games/" + guest.url.rsplit("/", 1)[1]).json()
    assert game["you"] == 0 and game["rated"] is False and game["seats"][0]["name"] == "Sam" and game["seats"][1]["kind"] == "bot"
    assert errors == []
