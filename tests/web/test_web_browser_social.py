"""Friends, blocks and reports in a real browser, on a 390-px phone and by keyboard: a chat
line reported from the game page, a block made from a profile keeping the blocked player's
chat from a page already open (and from the page opened again), and the friends page's
refusal, unblock and follow; axe finds nothing serious on any of them."""

from __future__ import annotations

from typing import Any

from account_helpers import PASSWORD
from test_web_browser import browser, serious_violations, server, wait_js, watched_page  # noqa: F401  (fixtures)
from web_helpers import Server


def signed_up(page: Any, server: Server, name: str) -> None:  # noqa: F811
    assert page.request.post(server.url + "/api/account/sign-up", data={"name": name, "password": PASSWORD}).status == 201


def csrf_of(page: Any) -> dict[str, str]:
    """The header a page sends with a change: the token of its cantstop_csrf cookie."""
    return {"X-CSRF-Token": next(c["value"] for c in page.context.cookies() if c["name"] == "cantstop_csrf")}


def lines(page: Any) -> list[str]:
    return [" ".join(t.split()) for t in page.locator(".chat-log li").all_text_contents()]


def say(page: Any, words: str) -> None:
    """Write in the game's chat, and wait until the server has sent the line back."""
    page.fill(".chat-form input", words)
    page.press(".chat-form input", "Enter")
    page.wait_for_selector(f".chat-log li:has-text({words!r})")


def fits(page: Any) -> bool:
    """Nothing is wider than the phone's screen."""
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def press(page: Any, selector: str) -> None:
    """Tab to the control (the keyboard alone), then press Enter on it."""
    for _ in range(60):
        if page.evaluate(f"document.activeElement.matches({selector!r})"):
            page.keyboard.press("Enter")
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def test_a_line_is_reported_and_a_block_keeps_the_blocked_players_chat_away(browser: Any, server: Server) -> None:  # noqa: F811
    ann, ann_errors = watched_page(browser, 390, 844)
    mallory, mallory_errors = watched_page(browser, 390, 844)
    signed_up(ann, server, "Ann")
    signed_up(mallory, server, "Mallory")
    made = ann.request.post(server.url + "/api/games", headers=csrf_of(ann),
                            data={"variant": "classic", "seats": ["open", "bot:random"], "take": [{"seat": 0}]})
    assert made.status == 201, made.text()
    game = f"{server.url}/game/{made.json()['id']}"
    for page in (ann, mallory):  # Ann plays, Mallory watches, signed in
        page.goto(game)
        page.wait_for_selector(".chat-form input:enabled")

    # Ann reports Mallory's line from the game page: the dialog asks why, by keyboard alone.
    say(mallory, "first words")
    ann.wait_for_selector(".chat-log li:has-text('first words') .chat-report")
    press(ann, ".chat-log li .chat-report")  # the only line
    ann.wait_for_selector("#report-dialog[open]")
    assert ann.evaluate("document.activeElement.id") == "report-reason"
    assert "first words" in (ann.text_content("#report-what") or "")
    assert serious_violations(ann) == [], "the report dialog"
    ann.keyboard.type("rude to the table")
    press(ann, "#report-send")
    ann.wait_for_selector("#report-dialog:not([open])", state="attached")
    wait_js(ann, "document.querySelector('.chat-note').textContent.startsWith('Reported')")

    # Mallory's report of her own line is refused in the dialog, which stays open to say why.
    mallory.click(".chat-log li:has-text('first words') .chat-report")
    mallory.fill("#report-reason", "testing")
    mallory.click("#report-send")
    mallory.wait_for_selector("#report-said:text('message: that is your own chat line')")
    mallory.keyboard.press("Escape")

    # Ann blocks Mallory from her profile, in another tab; the game page already open follows.
    profile = ann.context.new_page()
    profile.set_viewport_size({"width": 390, "height": 844})
    profile.goto(f"{server.url}/player/Mallory")
    profile.wait_for_selector("[data-ready=true] #social:not([hidden])")
    assert serious_violations(profile) == [], "a profile, signed in"
    assert fits(profile)
    press(profile, "#block")
    profile.wait_for_selector("#block:text('Unblock')")
    assert profile.get_attribute("#block", "aria-pressed") == "true" and profile.locator("#follow").is_disabled()
    assert "you do not see what they write" in (profile.text_content("#social-said") or "")

    say(mallory, "second words")  # sent to Ann's page before her own next line, if at all
    say(ann, "my words")
    assert not any("second words" in line for line in lines(ann)) and any("second words" in line for line in lines(mallory))
    ann.reload()  # the lines said before the page opened: none of Mallory's
    ann.wait_for_selector(".chat-log li:has-text('my words')")
    assert not any("words" in line and "Mallory" in line for line in lines(ann))

    # The friends page lists whom Ann blocks; following Mallory is refused until she unblocks.
    profile.goto(f"{server.url}/friends")
    profile.wait_for_selector("[data-ready=true] #mine:not([hidden])")
    profile.wait_for_selector("#blocked li:has-text('Mallory')")
    assert serious_violations(profile) == [], "friends"
    assert fits(profile)
    profile.focus("#follow-name")
    profile.keyboard.type("Mallory")
    profile.keyboard.press("Enter")
    profile.wait_for_selector("#follow-said.error:text('name: you cannot follow Mallory (one of you blocks the other)')")
    press(profile, "#blocked button")  # Unblock
    profile.wait_for_selector("#blocked li:text('You block nobody.')")
    assert profile.input_value("#follow-name") == "Mallory"  # kept after the refusal, to send again
    profile.focus("#follow-name")
    profile.keyboard.press("Enter")
    profile.wait_for_selector("#following li.friend:has-text('Mallory'):has-text('online')")
    assert serious_violations(profile) == [], "friends, following"
    assert fits(profile)
    assert ann_errors == mallory_errors == []
