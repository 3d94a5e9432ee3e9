"""The game page across a server restart: told 1012 on SIGTERM, it says so and reconnects."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest
from test_web_browser import browser, create, wait_js
from web_helpers import Server

pytestmark = pytest.mark.browser
__all__ = ["browser"]  # the fixture, shared with the other browser tests

LIVE = "document.getElementById('live-dot').classList.contains('on')"
TITLE = "document.getElementById('live-dot').title"


def test_the_game_page_reconnects_after_the_server_restarts(browser: Any, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'restart.sqlite3'}"
    first = Server(db).start()
    try:
        game_id = create(first, "classic", ["open", "open"])
        page = browser.new_page()
        page.goto(f"{first.url}/game/{game_id}")
        wait_js(page, LIVE)
        assert first.process is not None
        first.process.send_signal(signal.SIGTERM)
        first.process.wait(timeout=60)
        wait_js(page, f"!{LIVE} && {TITLE}.includes('restarting')")
    finally:
        first.kill()
    with Server(db, port=first.port):  # the same address, as after `systemctl restart`
        wait_js(page, f"{LIVE} && {TITLE} === 'live'")
        assert page.locator("#seats .seat").count() == 2  # the same game, drawn again
    page.context.close()
