"""Security headers on every response, no inline script, the seat cookie's flags, no CDN by default."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from web_helpers import NO_LIMITS, new_game

from cantstop.web.app import create_app
from cantstop.web.db.storage import Storage
from cantstop.web.pages import PAGES, page_html


def test_every_response_carries_the_security_headers(client: TestClient) -> None:
    game_id = new_game(client, ["open", "open"])
    for path in ("/", f"/game/{game_id}", "/static/game.js", "/api/variants", "/api/nothing", f"/api/games/{game_id}"):
        headers = client.get(path).headers
        csp = dict(part.strip().split(" ", 1) for part in headers["content-security-policy"].split(";"))
        assert csp["frame-ancestors"] == "'none'" and csp["script-src"] == "'self'" and csp["object-src"] == "'none'"
        assert "unsafe-inline" not in headers["content-security-policy"]
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "same-origin"


def test_the_pages_hold_no_inline_script_or_handler() -> None:
    for page in PAGES:
        html = page_html(page)
        scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", html, re.S)
        assert scripts and all("src=" in attrs and not body.strip() for attrs, body in scripts), page
        assert not re.search(r"\son[a-z]+\s*=", html), page  # no onclick= and the like
        assert "javascript:" not in html and "<style" not in html and "style=" not in html


@pytest.mark.parametrize(
    ("path", "page"), [("/", "index"), ("/game/abc", "game"), ("/leaderboard", "leaderboard"), ("/rules", "rules"), ("/player/Ann", "player"),
                        ("/friends", "friends")]
)
def test_each_page_is_the_layout_around_its_own_body(client: TestClient, path: str, page: str) -> None:
    response = client.get(path)
    html = response.text
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    assert html.startswith("<!doctype html>") and html.rstrip().endswith("</html>") and "$" not in html.split("<body")[0]
    assert f"<title>{PAGES[page].title}</title>" in html and f'src="/static/{PAGES[page].script}.js"' in html
    assert f'<body class="{PAGES[page].body_class}">' in html and html.count("<main") == 1


def cookie_of(client: TestClient, headers: dict[str, str] | None = None) -> str:
    game_id = new_game(client, ["open", "open"])
    response = client.post(f"/api/games/{game_id}/join", json={"seat": 0, "name": "Ann"}, headers=headers or {})
    assert response.status_code == 200
    return response.headers["set-cookie"].lower()


def flags(cookie: str) -> set[str]:
    return {part.strip().split("=")[0] for part in cookie.split(";")[1:]}


def test_the_seat_cookie_is_httponly_strict_and_site_wide(client: TestClient) -> None:
    cookie = cookie_of(client)
    assert {"httponly", "samesite", "path"} <= flags(cookie) and "samesite=strict" in cookie and "path=/" in cookie
    assert "secure" not in flags(cookie)  # plain http: a Secure cookie would never come back
    assert "secure" not in flags(cookie_of(client, {"x-forwarded-proto": "https"}))  # from nobody we trust


def test_the_seat_cookie_is_secure_over_https(storage: Storage) -> None:
    with TestClient(create_app(storage, bot_delay=0, **NO_LIMITS), base_url="https://testserver") as direct:
        assert "secure" in flags(cookie_of(direct))
    with TestClient(create_app(storage, bot_delay=0, trusted_proxies=("testclient",), **NO_LIMITS)) as proxied:
        assert "secure" in flags(cookie_of(proxied, {"x-forwarded-proto": "https"}))
        assert "secure" not in flags(cookie_of(proxied, {"x-forwarded-proto": "http"}))


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_the_api_docs_pages_are_off_unless_asked_for(client: TestClient, storage: Storage, path: str) -> None:
    assert client.get(path).status_code == 404
    assert client.get("/openapi.json").status_code == 200  # the description itself stays
    with TestClient(create_app(storage, bot_delay=0, api_docs=True)) as with_docs:
        page = with_docs.get(path)
        assert page.status_code == 200 and "cdn.jsdelivr.net" in page.headers["content-security-policy"]
