"""Accounts in a real browser: sign up, sign in from a second browser, and a passkey made and
used with Chromium's virtual authenticator (the DevTools protocol's WebAuthn domain)."""

from __future__ import annotations

from typing import Any

from account_helpers import PASSWORD
from test_web_browser import browser, serious_violations, server, wait_js  # noqa: F401  (fixtures)
from web_helpers import Server


def local(running: Server) -> str:
    """The server under a host name: a passkey belongs to a domain, never to an IP address."""
    return running.url.replace("127.0.0.1", "localhost")


def watched(chromium: Any) -> tuple[Any, list[str]]:
    page = chromium.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return page, errors


def fill_and_send(page: Any, url: str, name: str, password: str) -> None:
    page.goto(url)
    page.wait_for_selector("[data-ready=true]")
    page.fill("#name", name)
    page.fill("#password", password)
    page.keyboard.press("Enter")


def shown_account(page: Any) -> str:
    page.wait_for_url("**/account")
    page.wait_for_selector("#mine:not([hidden])")
    return str(page.text_content("#who"))


def test_sign_up_then_sign_in_from_a_second_browser(browser: Any, server: Server) -> None:  # noqa: F811
    site = local(server)
    first, first_errors = watched(browser)
    first.goto(site + "/account")
    first.wait_for_selector("#guest:not([hidden])")
    assert serious_violations(first) == [], "account, signed out"
    first.goto(site + "/")
    first.click("nav >> text=Account")  # the header leads there
    first.click("#guest >> text=make an account")
    first.wait_for_url("**/sign-up")
    assert serious_violations(first) == [], "sign up"
    fill_and_send(first, site + "/sign-up", "Ann", "short")  # the browser's own check stops this one
    assert first.url.endswith("/sign-up")
    fill_and_send(first, site + "/sign-up", "Ann", PASSWORD)
    assert shown_account(first) == "Ann"
    assert serious_violations(first) == [], "account"

    second, second_errors = watched(browser)  # another browser context: no cookie of the first
    fill_and_send(second, site + "/sign-in", "Ann", "not the right password")
    second.wait_for_selector("#form-error:not(:empty)")
    assert second.text_content("#form-error") == "the name or the password is wrong"
    assert serious_violations(second) == [], "sign in, refused"
    fill_and_send(second, site + "/sign-in", "ann", PASSWORD)
    assert shown_account(second) == "Ann"
    assert second.locator("#sessions li").count() == 2
    assert "(this browser)" in second.locator("#sessions li").all_text_contents()[0] + second.locator("#sessions li").all_text_contents()[1]

    second.click("#sign-out-everywhere")  # both browsers are signed out
    second.wait_for_url("**/sign-in")
    first.reload()
    first.wait_for_selector("#guest:not([hidden])")
    assert first_errors == [] and second_errors == []


def test_a_passkey_is_added_and_signs_in_without_a_password(browser: Any, server: Server) -> None:  # noqa: F811
    site = local(server)
    page, errors = watched(browser)
    devtools = page.context.new_cdp_session(page)
    devtools.send("WebAuthn.enable")
    authenticator = devtools.send("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
        "isUserVerified": True, "automaticPresenceSimulation": True,
    }})["authenticatorId"]
    fill_and_send(page, site + "/sign-up", "Bea", PASSWORD)
    assert shown_account(page) == "Bea"
    page.click("#add-passkey")
    page.wait_for_selector("#passkeys li button")
    assert "The passkey is added" in str(page.text_content("#passkeys-said"))
    [stored] = devtools.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]
    assert stored["isResidentCredential"] is True and stored["rpId"] == "localhost"
    page.click("#add-passkey")  # again, on the device that holds it already: said in words, the success gone
    wait_js(page, "document.getElementById('passkeys-said').textContent.includes('already holds')")
    assert page.text_content("#passkeys-said") == "this device already holds a passkey of this account: it signs you in as it is"
    assert page.locator("#passkeys li button").count() == 1

    page.click("#sign-out")
    page.wait_for_url(site + "/")
    page.goto(site + "/sign-in")
    page.wait_for_selector("[data-ready=true]")
    page.click("#passkey-sign-in")  # no name typed: the passkey says whose it is
    assert shown_account(page) == "Bea"
    [used] = devtools.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]
    assert used["signCount"] > stored["signCount"]

    page.click("#passkeys li button")  # removed, it signs in nobody
    page.wait_for_selector("#passkeys li:not(:has(button))")
    page.click("#sign-out")
    page.wait_for_url(site + "/")
    page.goto(site + "/sign-in")
    page.wait_for_selector("[data-ready=true]")
    page.click("#passkey-sign-in")
    page.wait_for_selector("#form-error:not(:empty)")
    assert "not one of an account here" in str(page.text_content("#form-error"))
    assert errors == []


def test_at_an_ip_address_the_passkey_buttons_say_to_use_the_sites_name(browser: Any, server: Server) -> None:  # noqa: F811
    """Browsers refuse passkeys at a bare IP address ("This is an invalid domain."), and
    `cantstop serve` prints http://127.0.0.1:PORT/: the buttons are greyed, with the way out."""
    page, errors = watched(browser)
    page.goto(server.url + "/sign-in")
    page.wait_for_selector("[data-ready=true]")
    assert page.locator("#passkey-sign-in").is_disabled()
    hint = f"open http://localhost:{server.port}/sign-in instead"
    assert hint in str(page.text_content(".passkey-hint"))
    fill_and_send(page, server.url + "/sign-up", "Ann", PASSWORD)
    assert shown_account(page) == "Ann"
    assert page.locator("#add-passkey").is_disabled()
    assert f"localhost:{server.port}/account" in str(page.text_content(".passkey-hint"))
    page.goto(local(server) + "/sign-in")  # by its name, passkeys are offered
    page.wait_for_selector("[data-ready=true]")
    assert page.locator("#passkey-sign-in").is_enabled() and page.locator(".passkey-hint").count() == 0
    assert errors == []


def in_view(page: Any, selector: str) -> bool:
    return bool(page.evaluate(f"(() => {{ const r = document.querySelector({selector!r}).getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }})()"))


def test_what_a_form_of_the_account_page_answers_is_said_beside_it(browser: Any, server: Server) -> None:  # noqa: F811
    """The page is long: a refusal written at its top was out of sight of the form that got it."""
    page, errors = watched(browser)
    page.set_viewport_size({"width": 390, "height": 844})
    fill_and_send(page, local(server) + "/sign-up", "Ann", PASSWORD)
    assert shown_account(page) == "Ann"
    page.fill("#current", "not the password at all")
    page.fill("#new-password", "a brand new passphrase")
    page.click("#change-password button")
    page.wait_for_selector("#password-said:not(:empty)")
    assert page.text_content("#password-said") == "the current password is wrong" and in_view(page, "#password-said")
    page.fill("#webhook-url", "http://127.0.0.1/hook")
    page.click("#webhook button[type=submit]")
    page.wait_for_selector("#webhook-said:not(:empty)")
    assert str(page.text_content("#webhook-said")).startswith("127.0.0.1 is a private") and in_view(page, "#webhook-said")
    assert page.text_content("#password-said") == ""  # one message at a time
    assert page.eval_on_selector("#webhook-said", "e => e.className") == "said error"
    assert serious_violations(page) == [], "account, with a refusal shown"
    assert errors == []
