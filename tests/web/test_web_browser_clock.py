"""The move clock and presence in a real browser: a game made on the home page with a
clock shows the countdown to the person to move; the seats show who is connected and who
is thinking, and a spectator sees a player leave."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_web_browser import browser, open_home, wait_js, watched_page  # noqa: F401  (fixtures)
from web_helpers import Server


@pytest.fixture
def slow_server(tmp_path: Path) -> Iterator[Server]:
    """Bots wait a little before each move, as people would see them."""
    with Server(f"sqlite:///{tmp_path / 'clock.sqlite3'}", bot_delay=0.1) as running:
        yield running


def seat_marks(page: Any, seat: int) -> str:
    return " ".join(page.locator(f"#seats .seat:nth-child({seat + 1}) span").all_text_contents())


def test_the_countdown_and_the_presence_marks(browser: Any, slow_server: Server, tmp_path: Path) -> None:  # noqa: F811
    server = slow_server
    page, errors = watched_page(browser, 1280, 820)
    open_home(page, server)
    page.select_option("#clock", "30")
    page.select_option("select[name=seat] >> nth=0", "here")
    page.locator("input[name=seat-name]").nth(0).fill("Ann")
    page.select_option("select[name=seat] >> nth=1", "bot:random")
    page.click("#create button[type=submit]")
    page.wait_for_url("**/game/*")
    game_id = page.url.rsplit("/", 1)[1]
    wait_js(page, "document.body.dataset.status === 'playing'")
    assert httpx.get(f"{server.url}/api/games/{game_id}").json()["clock"]["seconds"] == 30

    # Ann (at this screen) and the bot are connected; the seat to move is thinking.
    wait_js(page, "document.querySelectorAll('#seats .presence.on').length === 2")
    wait_js(page, "document.querySelectorAll('#seats .thinking').length === 1")
    # Ann's move: the countdown shows and runs down.
    wait_js(page, "document.querySelector('.seat.to-move .seat-name')?.textContent === 'Ann'", timeout=120_000)
    wait_js(page, "!document.getElementById('clock').hidden")
    first = page.text_content("#clock")
    assert first is not None and first.startswith("Ann: 0:") and "left for this move" in first
    wait_js(page, f"document.getElementById('clock').textContent !== {json.dumps(first)}")
    assert "thinking" in seat_marks(page, 0)
    page.screenshot(path=str(tmp_path / "clock.png"))

    # A spectator sees Ann connected, then gone when her page closes.
    watcher, watcher_errors = watched_page(browser, 390, 844)
    watcher.goto(f"{server.url}/game/{game_id}")
    wait_js(watcher, "document.querySelector('#seats .seat:nth-child(1) .presence')?.title === 'connected'")
    page.close()
    wait_js(watcher, "document.querySelector('#seats .seat:nth-child(1) .presence')?.title === 'not connected'")
    assert errors == [] and watcher_errors == []
