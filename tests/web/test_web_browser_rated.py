"""Accounts and rated play in a real browser: a rated game made from the home page and joined
by a second account, the seat found again on another device after signing in, no odds or
advice for players or spectators, a guest's seat moved by a one-time link, a page of another
site refused, guesses throttled, look-alike and invisible names refused."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from account_helpers import PASSWORD
from test_web_browser import browser, my_move, serious_violations, wait_js  # noqa: F401  (a fixture)
from test_web_browser_accounts import fill_and_send, local, shown_account, watched
from web_helpers import Server

pytestmark = pytest.mark.browser


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """A server whose sign-in waits are long enough to read on the page."""
    with Server(f"sqlite:///{tmp_path / 'rated.sqlite3'}", bot_delay=0.01, env={"CANTSTOP_SIGN_IN_DELAY": "60"}) as running:
        yield running


def signed_up(chromium: Any, site: str, name: str) -> tuple[Any, list[str]]:
    page, errors = watched(chromium)
    fill_and_send(page, site + "/sign-up", name, PASSWORD)
    assert shown_account(page) == name
    return page, errors


def odds_answer(page: Any, game_id: str) -> int:
    """What the odds API answers this page's own request (its cookies), as a script on it would ask."""
    return int(page.evaluate(f"fetch('/api/games/{game_id}/odds').then((r) => r.status)"))


def test_a_rated_game_from_the_home_page_with_the_seat_back_on_a_second_browser(browser: Any, server: Server) -> None:  # noqa: F811
    site = local(server)
    ann, ann_errors = signed_up(browser, site, "Ann")
    bob, bob_errors = signed_up(browser, site, "Bob")
    ann.goto(site + "/")
    ann.wait_for_selector("[data-ready=true] select[name=seat] >> nth=1")
    assert ann.input_value("select[name=seat] >> nth=0") == "me"  # signed in, the first seat is one's own
    ann.check("#rated")
    assert ann.locator("select[name=seat] >> nth=1 >> option[value=here]").is_disabled()  # no guest at the screen in a rated game
    ann.select_option("select[name=seat] >> nth=1", "open")
    ann.click("#create button[type=submit]")
    ann.wait_for_url("**/game/*")
    game_url = ann.url
    game_id = game_url.rsplit("/", 1)[1]
    assert serious_violations(ann) == [], "a rated game, waiting"

    bob.goto(game_url)
    bob.wait_for_selector("#join:not([hidden])")
    assert bob.locator("#join-name").is_hidden() and bob.text_content("#join-submit") == "Take the seat as Bob"
    bob.click("#join-submit")
    bob.wait_for_selector("#seats .seat:nth-child(2) .tag")
    for page in (ann, bob):
        wait_js(page, "document.body.dataset.status === 'playing'")
        page.wait_for_selector("#fair:not([hidden])")
        assert page.locator("#odds-toggle").is_hidden()  # fair play: not offered
        page.keyboard.press("o")
        assert page.locator("#odds").is_hidden()
        assert odds_answer(page, game_id) == 403

    # Ann on a second browser: a spectator until she signs in, then her seat is hers again.
    phone, phone_errors = watched(browser)
    phone.goto(game_url)
    wait_js(phone, "document.body.dataset.status === 'playing'")
    assert phone.locator("#seats .tag").count() == 0 and phone.locator("#odds-toggle").is_hidden()
    assert odds_answer(phone, game_id) == 403  # nor for a spectator
    fill_and_send(phone, site + "/sign-in", "Ann", PASSWORD)
    assert shown_account(phone) == "Ann"
    phone.goto(game_url)
    phone.wait_for_selector("#seats .seat:nth-child(1) .tag")
    assert phone.text_content("#seats .seat:nth-child(1) .tag") == "you"
    rolls = 0
    played = None
    for _ in range(400):  # a move of Ann's from the second browser (Bob's turn first, maybe)
        played = my_move(phone, rolls)
        if played is not None:
            break
        state = httpx.get(f"{server.url}/api/games/{game_id}").json()["state"]
        if state["player"] == 1:
            my_move(bob, 0 if state["phase"] != "decide" else 3)
        phone.wait_for_timeout(20)
    assert played is not None, "Ann never got to move from her second browser"
    assert ann_errors == bob_errors == phone_errors == []


def test_a_waiting_rated_game_sends_a_guest_to_sign_in_and_back_and_offers_its_creator_no_screen_seat(browser: Any, server: Server) -> None:  # noqa: F811
    site = local(server)
    ann, ann_errors = signed_up(browser, site, "Ann")
    ann.goto(site + "/")
    ann.wait_for_selector("select[name=seat] >> nth=1")
    ann.check("#rated")
    ann.select_option("select[name=seat] >> nth=1", "open")
    ann.click("#create button[type=submit]")
    ann.wait_for_url("**/game/*")
    game_path = "/game/" + ann.url.rsplit("/", 1)[1]
    # Ann holds seat A: no "add a person at this screen", which a rated game refuses; a note says how others join.
    ann.wait_for_selector("#join-rated:not([hidden])")
    assert ann.locator("#join").is_hidden() and "on their own device" in str(ann.text_content("#join-rated"))
    assert ann.text_content("#status") == "Waiting for seat B: share the link."

    guest, guest_errors = watched(browser)
    guest.goto(site + game_path)
    guest.wait_for_selector("#join-rated:not([hidden])")
    assert guest.locator("#join").is_hidden()  # no name to type for a seat that would be refused
    assert "signed-in players only" in str(guest.text_content("#join-rated"))
    assert serious_violations(guest) == [], "a rated game's note to a guest"
    guest.click("#join-rated >> text=make an account")
    guest.wait_for_url("**/sign-up?next=*")
    guest.wait_for_selector("[data-ready=true]")  # its script has the form: before, Enter sent it as a plain GET of the page
    guest.fill("#name", "Bob")
    guest.fill("#password", PASSWORD)
    guest.keyboard.press("Enter")
    guest.wait_for_url(site + game_path)  # back where the guest came from, signed in now
    guest.wait_for_selector("#join:not([hidden])")
    assert guest.locator("#join-rated").is_hidden() and guest.text_content("#join-submit") == "Take the seat as Bob"
    guest.click("#join-submit")
    guest.wait_for_selector("#seats .seat:nth-child(2) .tag")
    wait_js(guest, "document.body.dataset.status === 'playing'")
    assert ann_errors == guest_errors == []


def test_signing_in_goes_back_only_to_a_page_of_this_site(browser: Any, server: Server) -> None:  # noqa: F811
    site = local(server)
    httpx.post(server.url + "/api/account/sign-up", json={"name": "Ann", "password": PASSWORD})
    page, errors = watched(browser)
    for elsewhere in ("//evil.example/x", "/\\evil.example/x", "https://evil.example/x", "/%09/evil.example"):
        page.context.clear_cookies()
        fill_and_send(page, f"{site}/sign-in?next={elsewhere}", "Ann", PASSWORD)
        page.wait_for_url("**/account")  # the account page of this site, not the address given
        assert page.url == site + "/account", elsewhere
    page.context.clear_cookies()
    fill_and_send(page, f"{site}/sign-in?next=/leaderboard", "Ann", PASSWORD)
    page.wait_for_url(site + "/leaderboard")
    assert errors == []


def test_a_guests_seat_moves_to_a_phone_by_a_one_time_link(browser: Any, server: Server) -> None:  # noqa: F811
    made = httpx.post(server.url + "/api/games", json={"variant": "classic", "seats": ["open", "open"]}).json()
    laptop, errors = watched(browser)
    laptop.goto(server.url + made["url"])
    laptop.fill("#join-name", "Gus")
    laptop.click("#join button[type=submit]")
    laptop.wait_for_selector("#seats .seat:nth-child(1) .tag")
    laptop.wait_for_selector("#move-seat:not([hidden])")
    laptop.click("#move-seat button")
    laptop.wait_for_selector("#seat-link:not([hidden])")
    link = laptop.input_value("#seat-link")
    assert "#seat=" in link and "works once" in str(laptop.text_content("#move-seat .meta"))
    phone, phone_errors = watched(browser)
    phone.goto(link)
    phone.wait_for_selector("#seats .seat:nth-child(1) .tag")
    assert "plays seat A now" in str(phone.text_content("#error"))
    assert "#seat=" not in phone.url  # the used code leaves the address bar
    laptop.reload()
    laptop.wait_for_selector("#join:not([hidden])")  # the laptop holds nothing now: it may take the open seat as anyone
    assert laptop.locator("#seats .seat:nth-child(1) .tag").count() == 0
    again, again_errors = watched(browser)
    again.goto(link)
    again.wait_for_selector("#error:not(:empty)")
    assert "unknown, used, expired" in str(again.text_content("#error"))
    assert errors == phone_errors == again_errors == []


class Hostile:
    """A page of another origin that tries to act for whoever visits it: by default of another
    site (another host and port); on `host` "localhost", of the same site as a server there
    (another port of the same host), whose SameSite=Strict cookies the browser still sends."""

    def __init__(self, target: str, path: str = "/api/account/sign-out-everywhere", host: str = "127.0.0.1") -> None:
        script = (
            f"fetch('{target}{path}', {{method: 'POST', credentials: 'include', body: '{{}}',"
            f" headers: {{'content-type': 'text/plain'}}}}).catch(() => null).finally(() => {{ document.title = 'done'; }});"
        )
        page = f"<!doctype html><title>win a prize</title><form method=post action='{target}/api/account/delete'></form><script>{script}</script>"

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = page.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://{host}:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def test_a_page_of_another_site_cannot_act_for_a_signed_in_visitor(browser: Any, server: Server) -> None:  # noqa: F811
    site = local(server)
    page, errors = signed_up(browser, site, "Ann")
    hostile = Hostile(site)
    try:
        trap = page.context.new_page()
        trap.goto(hostile.url)
        wait_js(trap, "document.title === 'done'")
        trap.evaluate("document.forms[0].submit()")  # a plain form POST too, as a top-level navigation
        trap.wait_for_load_state()
    finally:
        hostile.server.shutdown()
    page.goto(site + "/account")
    assert shown_account(page) == "Ann"  # still signed in: neither request did a thing
    assert page.locator("#sessions li").count() == 1
    assert errors == []


def test_a_page_of_the_same_site_on_another_port_cannot_resign_a_guests_seat(browser: Any, server: Server) -> None:  # noqa: F811
    """The seat cookie is SameSite=Strict, and a page on another port of the same host is of the
    same site, so the browser sends the cookie with its request: the server refuses it by its Origin."""
    site = local(server)
    made = httpx.post(server.url + "/api/games", json={"variant": "classic", "seats": ["open", "open"]}).json()
    page, errors = watched(browser)
    page.goto(site + made["url"])
    page.fill("#join-name", "Gus")
    page.click("#join button[type=submit]")
    page.wait_for_selector("#seats .seat:nth-child(1) .tag")
    hostile = Hostile(site, f"/api/games/{made['id']}/resign", host="localhost")
    try:
        trap = page.context.new_page()
        trap.goto(hostile.url)
        wait_js(trap, "document.title === 'done'")
    finally:
        hostile.server.shutdown()
    seat = httpx.get(f"{server.url}/api/games/{made['id']}").json()["seats"][0]
    assert seat["kind"] == "person" and seat["name"] == "Gus"  # still Gus's: the request did nothing
    page.reload()
    page.wait_for_selector("#seats .seat:nth-child(1) .tag")  # and this browser still holds it
    assert errors == []


def test_guessing_a_password_is_throttled_on_the_sign_in_page(browser: Any, server: Server) -> None:  # noqa: F811
    httpx.post(server.url + "/api/account/sign-up", json={"name": "Ann", "password": PASSWORD})
    page, errors = watched(browser)
    for n in range(6):  # five free tries and a sixth that starts the wait
        fill_and_send(page, server.url + "/sign-in", "Ann", f"guess number {n}")
        page.wait_for_selector("#form-error:not(:empty)")
        assert page.text_content("#form-error") == "the name or the password is wrong"
    fill_and_send(page, server.url + "/sign-in", "Ann", PASSWORD)  # even the right one waits now
    wait_js(page, "document.getElementById('form-error').textContent.includes('too many')")
    said = str(page.text_content("#form-error"))
    assert "too many failed sign-ins" in said and "try again in" in said
    assert page.url.endswith("/sign-in") and errors == []


@pytest.mark.parametrize(("name", "said"), [
    ("Маllоry", "looks like"),  # Cyrillic а and о
    ("Mal\u200blory", "U+200B"),
    ("\u3164", "U+3164"),
])
def test_look_alike_and_invisible_names_are_refused_where_people_type_them(browser: Any, server: Server, name: str, said: str) -> None:  # noqa: F811
    httpx.post(server.url + "/api/account/sign-up", json={"name": "Mallory", "password": PASSWORD})
    page, errors = watched(browser)
    fill_and_send(page, server.url + "/sign-up", name, PASSWORD)
    page.wait_for_selector("#form-error:not(:empty)")
    assert said in str(page.text_content("#form-error"))
    made = httpx.post(server.url + "/api/games", json={"variant": "classic", "seats": ["open", "bot:random"]}).json()
    page.goto(server.url + made["url"])
    page.fill("#join-name", name)
    page.click("#join button[type=submit]")
    page.wait_for_selector("#error:not(:empty)")
    assert said in str(page.text_content("#error"))
    assert errors == []
