"""The chat panel in a real browser: a player and a spectator talk, markup shows as text,
the player mutes spectators; and the pages run under the site's Content-Security-Policy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from test_web_browser import browser, server, take_seat, wait_js, watched_page  # noqa: F401  (fixtures)
from web_helpers import Server

HOSTILE = '<img src=x id=pwned onerror="document.body.dataset.pwned=1"><b>bold?</b>'


def csp_watched(page: Any) -> list[str]:
    """Console messages that tell of something the Content-Security-Policy blocked."""
    blocked: list[str] = []
    page.on("console", lambda m: blocked.append(m.text) if "Content Security Policy" in m.text else None)
    return blocked


def chat_lines(page: Any) -> list[str]:
    return [" ".join(t.split()) for t in page.locator(".chat-log li").all_text_contents()]


def test_a_player_and_a_spectator_chat_and_the_player_mutes_spectators(browser: Any, server: Server, tmp_path: Path) -> None:  # noqa: F811
    game_id = httpx.post(server.url + "/api/games", json={"variant": "classic", "seats": ["open", "bot:random"]}).json()["id"]
    player, errors = watched_page(browser, 1280, 820)
    watcher, watcher_errors = watched_page(browser, 390, 844)
    blocked = csp_watched(player) + csp_watched(watcher)
    player.goto(f"{server.url}/game/{game_id}")
    take_seat(player, "Ann", 0)
    player.wait_for_selector(".chat-mute input")  # the socket is back with the seat's cookie
    watcher.goto(f"{server.url}/game/{game_id}")
    for page in (player, watcher):
        wait_js(page, "document.body.dataset.status !== undefined")
        page.wait_for_selector(".chat-form input:enabled")
    # Ann writes markup: everyone sees it as text, and nothing of it runs.
    player.fill(".chat-form input", HOSTILE)
    player.press(".chat-form input", "Enter")
    watcher.wait_for_selector(".chat-log li.chat-player")
    assert chat_lines(watcher) == [f"Ann: {HOSTILE}"]
    assert watcher.locator("#pwned").count() == 0 and watcher.locator(".chat-log b:text('bold?')").count() == 0
    assert player.input_value(".chat-form input") == ""
    # The spectator answers; only the player is offered the mute.
    assert watcher.locator(".chat-mute").is_hidden() and player.locator(".chat-mute").is_visible()
    watcher.fill(".chat-form input", "nice move")
    watcher.click(".chat-form button")
    player.wait_for_selector(".chat-log li.chat-spectator")
    assert chat_lines(player)[-1].endswith(": nice move") and chat_lines(player)[-1].startswith("Spectator ")
    player.screenshot(path=str(tmp_path / "chat.png"))
    # Ann mutes spectators: the spectator's box is disabled and says why.
    player.check(".chat-mute input")
    watcher.wait_for_selector(".chat-form input:disabled")
    assert watcher.get_attribute(".chat-form input", "placeholder") == "The players have muted spectators."
    assert "Ann muted spectators." in watcher.text_content(".chat-note")
    player.uncheck(".chat-mute input")
    watcher.wait_for_selector(".chat-form input:enabled")
    assert watcher.evaluate("document.body.dataset.pwned") is None
    assert errors == watcher_errors == blocked == []
