"""The browser client in a Chromium already installed (never a downloaded one), driven by Playwright."""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from web_helpers import Server, unavailable

pytestmark = pytest.mark.browser
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# A page a test serves through a route (to add a header) counts as public to Chromium, which
# would then block its WebSocket to this machine: the check is off for the tests.
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run",
        "--disable-features=LocalNetworkAccessChecks"]


def installed_chromium(playwright: Any) -> str | None:
    """A Chromium already on this machine: $CANTSTOP_TEST_CHROMIUM, one on the PATH, or
    the one `playwright install chromium` put in its cache. The tests never download one."""
    named = os.environ.get("CANTSTOP_TEST_CHROMIUM")
    if named:
        return named
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    managed = Path(playwright.chromium.executable_path)
    return str(managed) if managed.exists() else None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        executable = installed_chromium(p)
        if executable is None:
            unavailable("there is no Chromium here", "install Debian's chromium (see .ci/run), or set CANTSTOP_TEST_CHROMIUM")
        chromium = p.chromium.launch(executable_path=executable, args=ARGS)
        yield Returning(chromium)
        chromium.close()


SEEN_TOUR = "try { localStorage.setItem('cantstop-tour-done', '1'); } catch {}"


class Returning:
    """The browser of someone who has seen the first-visit tour (its own test takes it)."""

    def __init__(self, browser: Any) -> None:
        self.browser = browser

    def new_context(self, **options: Any) -> Any:
        context = self.browser.new_context(**options)
        context.add_init_script(SEEN_TOUR)
        return context

    def new_page(self, **options: Any) -> Any:
        return self.new_context(**options).new_page()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    with Server(f"sqlite:///{tmp_path / 'browser.sqlite3'}", bot_delay=0.01) as running:
        yield running


def wait_js(page: Any, expression: str, timeout: float = 30_000) -> None:
    """Wait until `expression` is true in the page. Playwright's wait_for_function compiles its
    text with eval, which the site's Content-Security-Policy forbids; evaluate is not."""
    deadline = time.monotonic() + timeout / 1000
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {expression}")
        page.wait_for_timeout(20)


def create(server: Server, variant: str, seats: list[str]) -> str:
    response = httpx.post(server.url + "/api/games", json={"variant": variant, "seats": seats})
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def take_seat(page: Any, name: str, seat: int) -> None:
    page.fill("#join-name", name)
    page.select_option("#join-seat", str(seat))
    page.click("#join button[type=submit]")
    page.wait_for_selector(f"#seats .seat:nth-child({seat + 1}) .tag")  # this browser holds it now



def my_move(page: Any, rolls: int) -> str | None:
    """Play one move with the keyboard if it is this page's turn; returns the key pressed."""
    if page.locator("#controls .choice:enabled").count():
        key = "1"
    elif page.locator("#controls .stop:enabled").count() and rolls >= 2:
        key = "s"
    elif page.locator("#controls .roll:enabled").count():
        key = "r"
    else:
        return None
    version = page.evaluate("document.body.dataset.version")
    page.keyboard.press(key)
    try:
        # The move is shown (perhaps by the live update first) and the page's request is done.
        wait_js(page, f"document.body.dataset.version !== '{version}' && document.body.dataset.busy === 'false'", timeout=10_000)
    except Exception:
        raise AssertionError(f"key {key} at version {version} did nothing: {page.text_content('#error')!r}, {page.text_content('#status')!r}") from None
    return key


def test_one_person_plays_a_whole_game_against_bots_with_the_keyboard(browser: Any, server: Server, tmp_path: Path) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 820})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # The home page's form creates the game and leads to it.
    page.goto(server.url)
    page.wait_for_selector("select[name=seat] >> nth=1")
    page.select_option("#variant", "classic")
    page.select_option("select[name=seat] >> nth=0", "open")
    page.select_option("select[name=seat] >> nth=1", "bot:random")
    page.click("#create button[type=submit]")
    page.wait_for_url("**/game/*")
    take_seat(page, "Ann", 0)
    page.keyboard.press("o")  # odds on demand
    page.wait_for_selector(".odds-head")
    rolls, shot = 0, False
    for _ in range(3000):
        if page.evaluate("document.body.dataset.status") == "over":
            break
        key = my_move(page, rolls)
        if key is None:
            page.wait_for_timeout(20)
            continue
        rolls = 0 if key == "s" else rolls + (key == "r")
        if not shot and page.locator("#controls .choice:enabled").count():
            page.hover("#controls .choice >> nth=0")  # hovering a choice previews its runners
            assert page.locator(".runner.ghost").count() >= 1
            # ... and shows which two pairs of dice make it, in colour and in words.
            assert page.locator("#dice .die-box.pair0").count() == 2 and page.locator("#dice .die-box.pair1").count() == 2
            assert page.text_content("#dice-way").count("=") == 2
            page.mouse.move(0, 0)
            wait_js(page, "document.getElementById('dice-way').textContent === ''")
            assert page.locator(".runner.ghost").count() == 0
            # The log shows the roll as dice, and says it as '4-6-2-6' to screen readers.
            wait_js(page, "document.querySelector('#log .log-roll') !== null")  # the log comes with the update, which may follow the answer
            roll = page.locator("#log .log-roll >> nth=0")
            assert roll.locator(".log-dice .die").count() == 4
            assert re.fullmatch(r"\S.* rolls \d-\d-\d-\d", " ".join(roll.text_content().split()))
            page.screenshot(path=str(tmp_path / "playing.png"))
            shot = True
    assert page.evaluate("document.body.dataset.status") == "over"
    page.wait_for_selector(".log-win")
    assert "won in" in page.text_content("#status")
    assert page.locator(".seat.winner").count() == 1
    assert errors == []
    # The odds of the last position are not left standing once the game is over.
    wait_js(page, "document.getElementById('odds').textContent === 'Odds are shown while a game is played.'")
    assert "busts" not in page.text_content("#odds") and page.locator(".advice").count() == 0
    # The replay viewer steps through the finished game, with the dice of each position.
    page.click("text=Replay this game")
    page.wait_for_selector("#replay:not([hidden])")
    assert page.text_content("#replay-pos").startswith("move 0 of")
    assert page.locator("#dice .die").count() == 0  # nothing rolled yet
    page.click("#replay-next")
    assert page.text_content("#replay-pos").startswith("move 1 of")
    frames = httpx.get(server.url + page.url.replace(server.url + "/game/", "/api/games/") + "/replay").json()["frames"]
    shown = lambda: [d.get_attribute("aria-label") for d in page.locator("#dice .die").all()]  # noqa: E731
    first_roll = [f"die {d}" for d in frames[1]["log"][0]["dice"]]
    assert shown() == first_roll
    page.click("#replay-next")  # after the first choice or a bust: still that roll's dice
    assert shown() == first_roll
    page.fill("#replay-turn", "3")
    page.click("#replay-jump button")
    assert "turn 3" in page.text_content("#replay-pos")
    page.keyboard.press("Escape")
    record = page.get_attribute("a[href$='/record']", "href")
    assert httpx.get(server.url + record).text.startswith("[Variant")
    page.screenshot(path=str(tmp_path / "over.png"))


def test_two_people_play_each_other_online(browser: Any, server: Server, tmp_path: Path) -> None:
    game_id = create(server, "classic+to_win=1", ["open", "open"])
    pages = []
    for seat, name in enumerate(("Ann", "Bob")):
        context = browser.new_context(viewport={"width": 390, "height": 844})  # a phone screen
        page = context.new_page()
        page.goto(f"{server.url}/game/{game_id}")
        take_seat(page, name, seat)
        pages.append(page)
    for page in pages:
        wait_js(page, "document.body.dataset.status === 'playing'")
    pages[1].reload()  # a reload finds the seat again (its cookie) and the game as it stands
    pages[1].wait_for_selector(".seat .tag")
    assert "Bob" in pages[1].text_content(".seat:has(.tag)")
    rolls = [0, 0]
    for _ in range(2000):
        if all(p.evaluate("document.body.dataset.status") == "over" for p in pages):
            break
        moved = False
        for i, page in enumerate(pages):
            key = my_move(page, rolls[i])
            if key is not None:
                moved = True
                rolls[i] = 0 if key == "s" else rolls[i] + (key == "r")
                other = pages[1 - i]
                version = page.evaluate("document.body.dataset.version")
                # The other browser sees the move at once, through its WebSocket.
                wait_js(other, f"Number(document.body.dataset.version) >= {version}")
        if not moved:
            pages[0].wait_for_timeout(20)
    versions = {p.evaluate("document.body.dataset.version") for p in pages}
    assert len(versions) == 1
    texts = [p.text_content("#log") for p in pages]
    assert texts[0] == texts[1] and "wins after" in texts[0]
    pages[1].screenshot(path=str(tmp_path / "phone.png"), full_page=True)


def watched_page(browser: Any, width: int, height: int) -> tuple[Any, list[str]]:
    """A new page, and the list its script errors go to."""
    page = browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return page, errors


def open_home(page: Any, server: Server) -> None:
    page.goto(server.url)
    page.wait_for_selector("select[name=seat] >> nth=1")


def create_on_home_page(page: Any, server: Server, variant: str, seats: list[tuple[str, str]], status: str = "playing") -> None:
    """Fill the home page's form: each seat a (select value, name for a person at this screen)."""
    open_home(page, server)
    # The form offers the presets; a shorter game is added as one more option for the test.
    page.evaluate("v => { const o = document.createElement('option'); o.value = o.textContent = v; document.getElementById('variant').append(o); }", variant)
    page.select_option("#variant", variant)
    while page.locator("select[name=seat]").count() < len(seats):
        page.click("#add-seat")
    for i, (value, name) in enumerate(seats):
        page.select_option(f"select[name=seat] >> nth={i}", value)
        field = page.locator("input[name=seat-name]").nth(i)
        assert field.is_visible() == (value == "here")  # a name only for a person at this screen
        if name:
            field.fill(name)
    page.click("#create button[type=submit]")
    page.wait_for_url("**/game/*")
    wait_js(page, f"document.body.dataset.status === '{status}'")


def to_move(page: Any) -> str:
    return str(page.text_content(".seat.to-move .seat-name"))


def test_two_people_at_one_screen_play_each_other(browser: Any, server: Server, tmp_path: Path) -> None:
    page, errors = watched_page(browser, 390, 844)  # a phone passed around
    # A name that would spoil the record is refused on the form, naming the seat.
    open_home(page, server)
    page.select_option("select[name=seat] >> nth=1", "here")
    page.fill("input[name=seat-name] >> nth=1", "a;b")
    page.click("#create button[type=submit]")
    assert "Seat B" in page.text_content("#create-error")
    create_on_home_page(page, server, "classic+to_win=1", [("here", "Ann"), ("here", "Bob")])
    assert page.locator(".seat .tag").all_text_contents() == ["here", "here"]
    assert page.locator("#join").is_hidden()
    # The tokens stay in this browser only: no cookie, nothing on the page or in the game's JSON.
    game_id = page.url.rsplit("/", 1)[1]
    tokens = page.evaluate(f"JSON.parse(localStorage.getItem('cantstop-seats-{game_id}'))")
    assert sorted(tokens) == ["0", "1"]
    assert page.context.cookies() == []
    public = httpx.get(f"{server.url}/api/games/{game_id}").text
    assert not any(t in public or t in page.content() for t in tokens.values())
    # Another tab acts first with the same seat's token: this page's roll is refused as stale,
    # plainly, and the game shows the one roll that was applied.
    def first_elsewhere(route: Any) -> None:
        token = route.request.header_value("authorization")
        assert token in {f"Bearer {t}" for t in tokens.values()}  # the page acts with the seat's token
        httpx.post(route.request.url, content=route.request.post_data, headers={"authorization": token, "content-type": "application/json"})
        route.continue_()

    page.route("**/actions", first_elsewhere)
    # The page takes keys once it is connected (offline, a move could not be sent): wait for that.
    page.wait_for_selector("#controls .roll:enabled")
    page.keyboard.press("r")
    page.wait_for_selector("#error:not(:empty)")
    assert page.text_content("#error") == "The game had moved on before your move arrived, so it was not played. Here is the game as it stands."
    page.unroute("**/actions")
    wait_js(page, "document.body.dataset.version === '1'")
    rolls, reloaded, shot = [0, 0], False, False
    for moves in range(1, 3000):
        if page.evaluate("document.body.dataset.status") == "over":
            break
        who = to_move(page)
        seat = ["Ann", "Bob"].index(who)
        status = page.text_content("#status")
        assert status.startswith(who)  # the status line says whose turn it is, by name
        if page.locator("#controls .choice").count() == 0 and page.locator("#controls .stop").count() == 0:
            assert status == f"{who} to roll — pass the device to {who}."
        key = my_move(page, rolls[seat])
        assert key is not None, f"no control for {who}: {status!r}"
        rolls[seat] = 0 if key == "s" else rolls[seat] + (key == "r")
        if not shot and page.locator("#controls .choice:enabled").count():
            page.screenshot(path=str(tmp_path / "hotseat-phone.png"), full_page=True)
            shot = True
        if moves == 6 and not reloaded:  # a reload mid-game keeps both seats
            page.reload()
            page.wait_for_selector(".seat .tag >> nth=1")
            assert page.locator(".seat .tag").count() == 2
            reloaded = True
    assert reloaded and page.evaluate("document.body.dataset.status") == "over"
    page.wait_for_selector(".log-win")
    assert "won in" in page.text_content("#status")
    assert page.locator(".seat.winner").count() == 1
    assert errors == []
    page.set_viewport_size({"width": 1280, "height": 820})
    page.screenshot(path=str(tmp_path / "hotseat-desktop.png"))
    # The next game at this screen offers the same names at the same seats.
    open_home(page, server)
    page.select_option("select[name=seat] >> nth=1", "here")
    assert page.input_value("input[name=seat-name] >> nth=1") == "Bob"


def test_a_person_at_the_screen_plays_a_bot(browser: Any, server: Server) -> None:
    page, errors = watched_page(browser, 1280, 820)
    create_on_home_page(page, server, "classic+to_win=1", [("here", "Ann"), ("bot:random", "")])
    assert page.locator(".seat .tag").all_text_contents() == ["you"]
    page.keyboard.press("o")  # odds and advice as for anyone seated
    page.wait_for_selector(".odds-head")
    saw_mine = False
    for _ in range(5):  # the bot may win before Ann's first turn (it may roll first, and one column wins): again
        rolls = 0
        for _ in range(3000):
            if page.evaluate("document.body.dataset.status") == "over":
                break
            # Read at one instant: the bot may win between two reads, and then no seat is to move.
            mover = page.evaluate("document.querySelector('.seat.to-move .seat-name')?.textContent ?? null")
            if mover == "Ann" and page.locator("#controls .roll:enabled").count() and not page.locator("#controls .stop").count():
                assert page.text_content("#status") == "Your turn: roll the dice."
                saw_mine = True
            key = my_move(page, rolls)
            if key is None:
                # The bot's turn, read at one instant: the status names it and no control is live
                # (unless the bot has just won: then Play again is offered).
                status, live, phase = page.evaluate("[document.getElementById('status').textContent, document.querySelectorAll('#controls .button:enabled').length, document.body.dataset.status]")
                if status.startswith("Random bot") and phase != "over":
                    assert live == 0
                page.wait_for_timeout(20)
                continue
            rolls = 0 if key == "s" else rolls + (key == "r")
        assert page.evaluate("document.body.dataset.status") == "over"
        page.wait_for_selector(".log-win")
        if saw_mine:
            break
        left = page.url
        page.locator("#controls button.again").press("Enter")
        page.wait_for_url(lambda url, left=left: url != left)
        wait_js(page, "document.body.dataset.status === 'playing'")
    assert saw_mine
    assert errors == []


def test_people_at_one_screen_play_again_and_the_online_player_follows(browser: Any, server: Server, tmp_path: Path) -> None:
    page, errors = watched_page(browser, 1280, 820)
    create_on_home_page(page, server, "classic+to_win=1", [("here", "Ann"), ("here", "Bob"), ("open", ""), ("bot:random", "")], "waiting")
    game_id = page.url.rsplit("/", 1)[1]
    online = browser.new_context(viewport={"width": 390, "height": 844}).new_page()  # Cy, on her phone
    online.goto(page.url)
    take_seat(online, "Cy", 2)
    watcher = browser.new_context().new_page()  # somebody only watching
    watcher.goto(page.url)
    wait_js(page, "document.body.dataset.status === 'playing'")
    rolls = {"Ann": 0, "Bob": 0, "Cy": 0}
    for _ in range(5000):
        if all(p.evaluate("document.body.dataset.status") == "over" for p in (page, online)):
            break
        who = page.evaluate("document.querySelector('.seat.to-move .seat-name')?.textContent")  # none once over
        mover = online if who == "Cy" else page
        key = my_move(mover, rolls.get(who, 0)) if who in rolls else None
        if key is None:
            page.wait_for_timeout(20)
            continue
        rolls[who] = 0 if key == "s" else rolls[who] + (key == "r")
    wait_js(watcher, "document.body.dataset.status === 'over'")
    # A spectator is offered a new game of their own; the players, a rematch.
    assert watcher.locator("#controls a.again").text_content() == "New game"
    assert watcher.locator("#controls button.again").count() == 0
    assert online.locator("#controls button.again").text_content() == "Play again"
    page.screenshot(path=str(tmp_path / "play-again.png"))
    # A refusal is shown as it is, and the button stays to try again.
    page.route("**/rematch", lambda route: route.fulfill(status=503, json={"error": "down", "message": "the database is away"}))
    page.click("#controls button.again")
    page.wait_for_selector("#error:text('the database is away')")
    assert page.url.endswith(game_id) and page.locator("#controls button.again:enabled").count() == 1
    page.unroute("**/rematch")
    # A button: reachable and pressed from the keyboard (focused and pressed in one step, so a
    # redraw of the controls between the two cannot leave the key on the page's body).
    page.locator("#controls button.again").press("Enter")
    page.wait_for_url(lambda url: game_id not in url)
    new_id = page.url.rsplit("/", 1)[1]
    page.wait_for_selector(".seat .tag >> nth=1")
    assert page.locator(".seat .tag").all_text_contents() == ["here", "here"]
    assert page.locator(".seat-name").all_text_contents() == ["Ann", "Bob", "open seat", "Random bot"]
    assert sorted(page.evaluate(f"JSON.parse(localStorage.getItem('cantstop-seats-{new_id}'))")) == ["0", "1"]
    rematch = httpx.get(f"{server.url}/api/games/{new_id}").json()
    assert rematch["variant"] == "classic+to_win=1" and rematch["status"] == "waiting"
    assert [(s["kind"], s["bot"]) for s in rematch["seats"]] == [("person", None), ("person", None), ("open", None), ("bot", "random")]
    # Everyone still on the finished game is offered the rematch; Cy follows and sits down.
    watcher.wait_for_selector("#controls a.again:text('Rematch created: join')")
    link = online.locator("#controls a.again:text('Rematch created: join')")
    link.click()
    online.wait_for_url(f"**/game/{new_id}")
    take_seat(online, "Cy", 2)
    for p in (page, online):
        wait_js(p, "document.body.dataset.status === 'playing'")
    assert errors == []
    page.screenshot(path=str(tmp_path / "rematch.png"))


def test_a_screen_holding_a_seat_adds_a_person_before_the_game_starts(browser: Any, server: Server, tmp_path: Path) -> None:
    page, errors = watched_page(browser, 1280, 820)
    create_on_home_page(page, server, "classic+to_win=1", [("here", "Ann"), ("open", ""), ("bot:random", "")], "waiting")
    game_id = page.url.rsplit("/", 1)[1]
    # Once the screen holds a seat, the form is for another person here, not for a new "you".
    page.wait_for_selector("#join[data-mode=screen]")
    assert page.text_content("#join-title") == "Add a person at this screen"
    assert page.text_content("#status") == "Waiting for seat B: share the link, or add a person at this screen."
    assert page.input_value("#join-name") == ""
    page.fill("#join-name", "ann")  # the server refuses a name the game has, and says why
    page.click("#join-submit")
    page.wait_for_selector("#error:not(:empty)")
    assert "Ann already plays seat A" in page.text_content("#error")
    page.fill("#join-name", "Bob")
    page.select_option("#join-seat", "1")
    page.click("#join-submit")
    wait_js(page, "document.body.dataset.status === 'playing'")
    assert page.locator("#join").is_hidden() and page.text_content("#error") == ""
    assert page.locator(".seat .tag").all_text_contents() == ["here", "here"]
    assert sorted(page.evaluate(f"JSON.parse(localStorage.getItem('cantstop-seats-{game_id}'))")) == ["0", "1"]
    assert page.context.cookies() == []  # both seats' tokens are this page's own
    page.screenshot(path=str(tmp_path / "added-here.png"))
    assert errors == []


BOB = "Bob Maximilian Alexander Hohenzollern-So"  # 40 characters, the most a name may have


def test_a_person_joined_online_adds_a_person_here_and_they_play_in_turn(browser: Any, server: Server) -> None:
    game_id = create(server, "classic+to_win=1", ["open", "bot:random", "open"])
    page, errors = watched_page(browser, 390, 844)  # a phone, then passed around
    page.goto(f"{server.url}/game/{game_id}")
    take_seat(page, "Ann", 0)  # online, with the game's cookie
    assert page.text_content("#join-title") == "Add a person at this screen"
    page.fill("#join-name", BOB)
    page.click("#join-submit")  # the only open seat left, C, is offered
    wait_js(page, "document.body.dataset.status === 'playing'")
    assert page.locator(".seat .tag").all_text_contents() == ["here", "here"]
    # The longest name allowed is cut short with an ellipsis; the page keeps the phone's width.
    assert page.evaluate("document.documentElement.scrollWidth") == 390
    assert [c["name"] for c in page.context.cookies()] == [f"cantstop_{game_id}"]  # still Ann's
    assert sorted(page.evaluate(f"JSON.parse(localStorage.getItem('cantstop-seats-{game_id}'))")) == ["2"]
    rolls, reloaded = {"Ann": 0, BOB: 0}, False
    for moves in range(5000):
        if page.evaluate("document.body.dataset.status") == "over":
            break
        who = page.evaluate("document.querySelector('.seat.to-move .seat-name')?.textContent")
        key = my_move(page, rolls[who]) if who in rolls else None
        if key is None:
            page.wait_for_timeout(20)
            continue
        rolls[who] = 0 if key == "s" else rolls[who] + (key == "r")
        if moves > 4 and not reloaded:  # a reload keeps the cookie's seat and the token's
            page.reload()
            page.wait_for_selector(".seat .tag >> nth=1")
            reloaded = True
    assert page.evaluate("document.body.dataset.status") == "over"
    record = httpx.get(f"{server.url}/api/games/{game_id}").json()
    assert [s["name"] for s in record["seats"]] == ["Ann", "bot:random", BOB]
    # Play again seats both again at this screen: Ann's by the cookie, the added person's by token.
    page.click("#controls button.again")
    page.wait_for_url(lambda url: game_id not in url)
    wait_js(page, "document.body.dataset.status === 'playing'")
    assert page.locator(".seat .tag").all_text_contents() == ["here", "here"]
    assert page.locator(".seat-name").all_text_contents() == ["Ann", "Random bot", BOB]
    assert errors == []


def test_a_link_to_an_unknown_game_says_so(browser: Any, server: Server) -> None:
    page, errors = watched_page(browser, 390, 844)
    page.goto(f"{server.url}/game/nope")
    page.wait_for_selector("#controls a.again")
    assert page.text_content("#status") == "There is no game 'nope' on this server: check the link, or start a new one."
    assert page.get_attribute("#controls a.again", "href") == "/"
    assert errors == []


def test_copy_puts_the_link_on_the_clipboard_and_says_so(browser: Any, server: Server) -> None:
    game_id = create(server, "classic", ["open", "open"])
    context = browser.new_context(viewport={"width": 390, "height": 844}, permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(f"{server.url}/game/{game_id}")
    page.wait_for_selector("#join:not([hidden])")
    # On a phone the link's field is hidden to save room: the button alone says what it copies.
    assert page.is_hidden("#share") and page.text_content("#share-copy") == "Copy link"
    page.click("#share-copy")
    page.wait_for_selector("#share-copy:text('Copied')")
    assert page.evaluate("navigator.clipboard.readText()") == f"{server.url}/game/{game_id}"
    # Over plain http to another machine there is no clipboard API: the older way still copies.
    plain = browser.new_context()
    bare = plain.new_page()
    bare.add_init_script("delete Navigator.prototype.clipboard")
    bare.goto(f"{server.url}/game/{game_id}")
    bare.wait_for_selector("#join:not([hidden])")
    assert bare.evaluate("navigator.clipboard === undefined")
    bare.click("#share-copy")
    bare.wait_for_selector("#share-copy:text('Copied')")
    context.close()
    plain.close()


def test_the_home_page_fits_a_phone_with_a_long_rule_spec(browser: Any, server: Server) -> None:
    create(server, "classic+to_win=2+runners=3+heights=3.5.7.9.11.13.11.9.7.5.3", ["open", "bot:random"])
    page, errors = watched_page(browser, 390, 844)
    open_home(page, server)
    page.wait_for_selector("#live li a")
    assert page.evaluate("document.documentElement.scrollWidth") == 390  # the spec wraps in its card
    assert errors == []


def test_a_long_name_without_spaces_wraps_in_the_status_and_log(browser: Any, server: Server) -> None:
    created = httpx.post(server.url + "/api/games", json={"seats": ["open", "open"], "take": [{"seat": 0, "name": "W" * 40}]}).json()
    page, errors = watched_page(browser, 390, 844)  # a phone: the names are in the seats, status and log
    page.goto(server.url + created["url"])
    page.wait_for_selector("#join:not([hidden])")
    take_seat(page, "V" * 40, 1)  # both names long: whoever wins the roll-off is named in the log
    wait_js(page, "document.body.dataset.status === 'playing'")
    log = page.text_content("#log") or ""
    assert "W" * 40 in log or "V" * 40 in log
    assert page.evaluate("document.documentElement.scrollWidth") == 390
    assert page.evaluate("[...document.querySelectorAll('#log li')].every((li) => li.scrollWidth <= li.clientWidth)")
    assert errors == []


def test_the_first_visit_tour_is_played_by_keyboard_and_remembered(browser: Any, server: Server, tmp_path: Path) -> None:
    context = browser.browser.new_context(viewport={"width": 390, "height": 844})  # a newcomer
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url)  # the home page offers the tour and does not stand in the way of its one-click game
    page.wait_for_selector("#quick-play:enabled")
    assert page.locator("dialog.tour").count() == 0
    page.click("#quick-play")
    page.wait_for_url("**/game/*")  # the first game page: the tour starts there, over the game
    page.wait_for_selector("dialog.tour[open]")
    title = lambda: page.text_content("#tour-title")  # noqa: E731
    assert title() == "Welcome to Can't Stop"
    page.keyboard.press("Enter")  # Next has the focus
    assert title() == "1. Roll" and page.locator(".tour-next").is_disabled()  # first the thing to do
    page.keyboard.press("Enter")  # Roll has the focus
    assert page.locator(".tour-dice .die").count() == 4
    page.keyboard.press("Enter")
    assert title() == "2. Choose"
    assert page.locator(".tour-board .runner.ghost").count() == 1  # the focused choice, 7+7, ghosts its runner
    page.keyboard.press("Tab")  # the next choice: 5+9 shows two runners
    assert page.locator(".tour-board .runner.ghost").count() == 2
    page.keyboard.press("Enter")
    assert page.locator(".tour-board .runner:not(.ghost)").count() == 2
    page.keyboard.press("Enter")
    assert title() == "3. The bust"
    page.keyboard.press("Enter")
    assert page.text_content(".tour-bust") == "Bust!" and page.locator(".tour-board .runner").count() == 0
    page.screenshot(path=str(tmp_path / "tour-bust.png"))
    page.keyboard.press("Enter")
    assert title() == "4. Stop in time"
    page.keyboard.press("Enter")
    assert page.locator(".tour-board .runner").count() == 0 and page.locator(".tour-board .mark").count() == 3
    page.keyboard.press("Enter")
    assert title() == "5. Claim a column"
    page.keyboard.press("Enter")
    assert page.locator(".tour-board .mark.claim").count() == 1
    assert page.text_content(".tour-next") == "Play"
    page.keyboard.press("Enter")
    assert page.locator("dialog.tour").count() == 0
    page.reload()  # remembered: not shown again
    wait_js(page, "document.body.dataset.status === 'playing'")
    assert page.locator("dialog.tour").count() == 0
    assert errors == []
    context.close()


def test_the_tour_can_be_skipped_where_a_newcomer_lands_and_taken_again_from_the_rules(browser: Any, server: Server) -> None:
    game_id = create(server, "classic", ["open", "bot:random"])
    context = browser.browser.new_context(viewport={"width": 1280, "height": 820})
    page = context.new_page()
    page.goto(f"{server.url}/game/{game_id}")  # a shared link: the game page is the first visit
    page.wait_for_selector("dialog.tour[open]")
    page.keyboard.press("Escape")  # skipped
    assert page.locator("dialog.tour").count() == 0
    page.reload()
    page.wait_for_selector("#join:not([hidden])")
    assert page.locator("dialog.tour").count() == 0
    # The rules are a link away on every page, and the tour is offered there again.
    for path in ("/", f"/game/{game_id}", "/leaderboard", "/player/Nobody", "/rules"):
        page.goto(server.url + path)
        assert page.locator("header a[href='/rules']").count() == 1, path
    page.click("#tour-start")
    page.wait_for_selector("dialog.tour[open]")
    page.click(".tour-skip")
    assert page.locator("dialog.tour").count() == 0
    context.close()


def seated_page(browser: Any, server: Server, seats: list[str], **options: Any) -> tuple[Any, str]:
    """A page holding seat A of a new game (taken at creation, its token kept as the home page keeps it)."""
    created = httpx.post(server.url + "/api/games", json={"seats": seats, "take": [{"seat": 0, "name": "Ann"}]}).json()
    context = browser.new_context(**options)
    context.add_init_script(f"localStorage.setItem('cantstop-seats-{created['id']}', JSON.stringify({{0: '{created['taken'][0]['token']}'}}))")
    page = context.new_page()
    page.goto(server.url + created["url"])
    wait_js(page, "document.body.dataset.status === 'playing'")
    return page, created["id"]


def until_my_choice(page: Any, moves: int) -> None:
    """Play `moves` moves by keyboard (stopping early in a turn), then on to a roll to choose from."""
    rolls = 0
    for _ in range(3000):
        if moves <= 0 and page.locator("#controls .choice:enabled").count():
            return
        key = my_move(page, rolls)
        if key is None:
            page.wait_for_timeout(20)
            continue
        moves -= 1
        rolls = 0 if key == "s" else rolls + (key == "r")
    raise AssertionError("no choice came")


LAYOUT = """() => {
  const board = document.getElementById('board').getBoundingClientRect();
  const side = document.querySelector('.side').getBoundingClientRect();
  const [, , w, h] = document.getElementById('board').getAttribute('viewBox').split(' ').map(Number);
  return {gap: side.left - board.right, below: side.top - board.bottom, stretch: Math.abs(board.width / board.height - w / h),
          scroll: document.documentElement.scrollWidth - innerWidth};
}"""


def settled_layout(page: Any) -> dict[str, float]:
    """The layout once two frames in a row agree: under load the board is refitted a few
    frames after a resize, and a measurement in between reads a gap that is not the page's."""
    frames = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
    page.evaluate(frames)
    layout = page.evaluate(LAYOUT)
    for _ in range(50):
        page.evaluate(frames)
        again = page.evaluate(LAYOUT)
        if again == layout:
            break
        layout = again
    return dict(layout)


def test_the_game_fits_a_phone_a_tablet_and_a_wide_screen(browser: Any, server: Server, tmp_path: Path) -> None:
    page, _ = seated_page(browser, server, ["open", "bot:random"], viewport={"width": 1440, "height": 900})
    until_my_choice(page, 6)
    page.hover("#controls .choice >> nth=0")
    for width, height in ((1440, 900), (768, 1024), (360, 740)):
        page.set_viewport_size({"width": width, "height": height})
        layout = settled_layout(page)
        assert layout["scroll"] == 0, width  # nothing wider than the screen
        assert layout["stretch"] < 0.01, width  # the board's box is the board: no blank margin inside it
        if width >= 768:  # side by side, the panel right against the board
            assert 0 <= layout["gap"] <= 20, layout
        else:  # a phone: the panel under the board, with the dice and choices in view
            assert 0 <= layout["below"] <= 20, layout
            assert page.locator("#controls .choice >> nth=0").bounding_box()["y"] < height
        page.screenshot(path=str(tmp_path / f"game-{width}.png"))
    # On a touch screen there are no keys: no keyboard hints.
    touch, _ = seated_page(browser, server, ["open", "bot:random"], viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    assert touch.locator("#controls kbd >> nth=0").is_hidden() and touch.locator(".keys").is_hidden()
    assert page.locator("#controls kbd >> nth=0").is_visible()  # with a keyboard they are shown


def test_a_long_game_log_scrolls_in_its_box_and_never_the_page(browser: Any, server: Server) -> None:
    """Each roll in the log carries its dice in words for screen readers, in an element taken
    out of the flow: it must stay in its log line, not hang far below the page (which then
    scrolled into an empty green half a screen for each ten moves)."""
    game_id = create(server, "classic", ["bot:random", "bot:random"])
    for _ in range(3000):  # bounded by the game's end; the bots are quick
        if httpx.get(f"{server.url}/api/games/{game_id}").json()["status"] == "over":
            break
        time.sleep(0.02)
    page = browser.new_page(viewport={"width": 1280, "height": 820})
    page.goto(f"{server.url}/game/{game_id}")
    page.wait_for_selector(".log-win")
    assert page.locator("#log li").count() > 40  # far longer than its box
    assert page.evaluate("document.documentElement.scrollHeight") <= 820
    assert page.evaluate("document.getElementById('log').scrollHeight") > 260  # the log itself scrolls


GREY = "rgb(209, 213, 219)"


def test_roll_and_stop_look_disabled_when_they_are(browser: Any, server: Server) -> None:
    page, game_id = seated_page(browser, server, ["open", "bot:random"], viewport={"width": 1280, "height": 820})
    watcher = browser.new_page(viewport={"width": 1280, "height": 820})  # a spectator: nothing is theirs to press
    watcher.goto(f"{server.url}/game/{game_id}")
    background = "el => getComputedStyle(el).backgroundColor"
    until_my_choice(page, 0)
    page.keyboard.press("1")
    page.wait_for_selector("#controls .stop:enabled")
    assert page.eval_on_selector("#controls .roll", background) != GREY  # live: green
    watcher.wait_for_selector("#controls .stop")
    # The choice made stays explained on the dice while its player decides, for them and watchers.
    for p in (page, watcher):
        assert p.locator("#dice .die-box.pair0").count() == 2 and "=" in p.text_content("#dice-way")
    for selector in ("#controls .roll", "#controls .stop"):
        assert watcher.locator(selector).is_disabled()
        assert watcher.eval_on_selector(selector, background) == GREY


def serious_violations(page: Any) -> list[str]:
    """What axe-core finds on the page as it stands that is serious or critical."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page).response["violations"]
    return [f"{v['impact']} {v['id']}: {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
            for v in found if v["impact"] in ("serious", "critical")]


def test_axe_finds_nothing_serious_on_any_page(browser: Any, server: Server) -> None:
    page, _ = seated_page(browser, server, ["open", "bot:random"], viewport={"width": 1280, "height": 820})
    until_my_choice(page, 0)
    page.hover("#controls .choice >> nth=0")  # the dice marked in pairs, a ghost runner
    assert serious_violations(page) == [], "game"
    page.mouse.move(0, 0)
    finished = page.url
    rolls = 0
    while page.evaluate("document.body.dataset.status") != "over":  # bounded by the game's end; bots are quick
        key = my_move(page, rolls)
        rolls = 0 if key == "s" else rolls + (key == "r")
        if key is None:
            page.wait_for_timeout(20)
    page.wait_for_selector(".log-win")
    assert serious_violations(page) == [], "game over"
    page.goto("about:blank")
    page.goto(finished + "#replay")  # a finished game's replay, as the lists link to it
    page.wait_for_selector("#replay:not([hidden])")
    page.click("#replay-next")
    assert serious_violations(page) == [], "replay"
    for path, ready in (("/", "#finished li a"), ("/leaderboard", "[data-ready=true]"), ("/player/Ann", "[data-ready=true] #stats-card:not([hidden])"),
                        ("/player/Nobody", "[data-ready=true]"), ("/rules", "[data-ready=true]")):
        page.goto(server.url + path)
        page.wait_for_selector(ready)
        assert serious_violations(page) == [], path
    page.click("#tour-start")
    page.wait_for_selector("dialog.tour[open]")
    assert serious_violations(page) == [], "tour"
    page.click(".tour-next")
    assert serious_violations(page) == [], "tour with its board"


SAID = """new MutationObserver(() => { (window.said ||= []).push(document.getElementById('announce').textContent); })
  .observe(document.getElementById('announce'), {childList: true, characterData: true, subtree: true})"""


def press_on(page: Any, selector: str) -> None:
    """Tab to the control (the keyboard alone: no shortcut keys), then press Enter on it."""
    for _ in range(80):
        if page.evaluate(f"document.activeElement.matches({selector!r})"):
            version = page.evaluate("document.body.dataset.version")
            page.keyboard.press("Enter")
            wait_js(page, f"document.body.dataset.version !== '{version}' && document.body.dataset.busy === 'false'")
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def test_a_whole_game_with_tab_and_enter_alone_announced_to_screen_readers(browser: Any, server: Server) -> None:
    page, _ = seated_page(browser, server, ["open", "bot:random"], viewport={"width": 1280, "height": 820})
    page.evaluate(SAID)
    rolls = 0
    for _ in range(3000):
        if page.evaluate("document.body.dataset.status") == "over":
            break
        if page.locator("#controls .choice:enabled").count():
            # A roll lands the focus on its first choice: Enter takes it, no Tab needed.
            assert page.evaluate("document.activeElement.matches('#controls .choice')")
            press_on(page, "#controls .choice")
        elif page.locator("#controls .stop:enabled").count() and rolls >= 2:
            press_on(page, "#controls .stop")
            rolls = 0
        elif page.locator("#controls .roll:enabled").count():
            press_on(page, "#controls .roll")
            rolls += 1
        else:
            page.wait_for_timeout(20)
    assert page.evaluate("document.body.dataset.status") == "over"
    page.wait_for_selector(".log-win")
    said = " | ".join(page.evaluate("window.said"))
    assert re.search(r"Ann rolls \d, \d, \d, \d\. Choices: 1, \d+", said), said  # dice and choices, in words
    assert re.search(r"Random bot rolls \d, \d, \d, \d\.", said)
    assert re.search(r"(Ann|Random bot) wins after \d+ turns\.", said)
    assert page.locator("#announce[aria-live=polite]").count() == 1


CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'"


def test_every_page_runs_under_a_strict_content_security_policy(browser: Any, server: Server) -> None:
    """No inline script, handler or style attribute: the pages work under a CSP that forbids them."""
    page, _ = seated_page(browser, server, ["open", "bot:random"], viewport={"width": 1280, "height": 820})
    refused: list[str] = []
    page.on("console", lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None)

    def strict(route: Any) -> None:
        response = route.fetch()
        route.fulfill(response=response, headers={**response.headers, "content-security-policy": CSP})

    page.context.route(f"{server.url}/**", strict)
    page.reload()
    page.wait_for_selector("body[data-status=playing]")
    until_my_choice(page, 4)  # dice, pairs, the log's dice, odds bars
    page.hover("#controls .choice >> nth=0")
    page.keyboard.press("o")
    page.wait_for_selector(".odds-head")
    for path, ready in (("/", "#finished"), ("/leaderboard", "[data-ready=true]"), ("/player/bot:random", "[data-ready=true]"),
                        ("/sign-in", "[data-ready=true]"), ("/sign-up", "[data-ready=true]"), ("/account", "[data-ready=true]"),
                        ("/rules", "[data-ready=true]")):
        page.goto(server.url + path)
        page.wait_for_selector(ready)
    page.click("#tour-start")
    page.click(".tour-next")
    page.click(".tour-controls .button")
    assert refused == []


def until_two_choices_in_focus(page: Any) -> None:
    """Play on to a roll with at least two choices; a roll lands the focus on its first choice
    (a render after the choices show): wait for that."""
    for _ in range(50):
        until_my_choice(page, 0)
        if page.locator("#controls .choice").count() >= 2:
            break
        page.keyboard.press("1")
        page.wait_for_selector("#controls .roll:enabled")
    wait_js(page, "document.activeElement.dataset.choice === document.querySelector('#controls .choice').dataset.choice")


def test_the_focus_stays_on_the_choice_tabbed_to_while_the_dice_tumble(browser: Any, server: Server) -> None:
    page, _ = seated_page(browser, server, ["open", "bot:random"], viewport={"width": 1280, "height": 820})
    until_two_choices_in_focus(page)
    page.keyboard.press("Tab")  # at once, while the dice still tumble
    assert page.evaluate("document.activeElement.dataset.choice") == page.get_attribute("#controls .choice >> nth=1", "data-choice")
    # They land and are drawn again (a timer of the page's, 520 ms after the roll came).
    wait_js(page, "document.querySelectorAll('#dice .die.tumble').length === 0")
    assert page.evaluate("document.activeElement.dataset.choice") == page.get_attribute("#controls .choice >> nth=1", "data-choice")
    assert page.locator("#dice .die.tumble").count() == 0 and page.locator("#dice .die-box.pair0").count() == 2


def test_the_focus_stays_on_the_choice_tabbed_to_when_the_page_is_drawn_again(browser: Any, server: Server) -> None:
    """Every message re-renders the controls; the same update heard twice (the move's answer and
    its live notice, a CI run's flake) put the focus back on the first choice."""
    page, _ = seated_page(browser, server, ["open", "bot:random"], viewport={"width": 1280, "height": 820})
    heard: list[str] = []
    sockets: list[Any] = []

    def relay(ws: Any) -> None:  # the page's socket, through the test: it can hear a message twice
        upstream = ws.connect_to_server()
        upstream.on_message(lambda message: (heard.append(message), ws.send(message)))
        ws.on_message(upstream.send)
        sockets.append(ws)

    page.route_web_socket("**/ws/games/*", relay)
    page.reload()
    wait_js(page, "document.body.dataset.status === 'playing'")
    until_two_choices_in_focus(page)
    page.keyboard.press("Tab")
    second = page.get_attribute("#controls .choice >> nth=1", "data-choice")
    assert page.evaluate("document.activeElement.dataset.choice") == second
    update = next(m for m in reversed(heard) if json.loads(m)["type"] == "update")
    page.evaluate("document.querySelector('#controls .choice').dataset.drawn = 'before'")
    sockets[-1].send(update)
    wait_js(page, "document.querySelector('#controls .choice').dataset.drawn === undefined")  # drawn again
    assert page.evaluate("document.activeElement.dataset.choice") == second
    assert page.locator("#controls .choice").count() >= 2
