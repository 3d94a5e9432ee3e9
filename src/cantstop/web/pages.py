"""The browser's pages: one layout (static/layout.html: the head, the styles, the icon)
around each page's own body (static/pages/NAME.html), put together once per process."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path
from string import Template

from fastapi.responses import HTMLResponse

STATIC = Path(str(files("cantstop.web") / "static"))


@dataclass(frozen=True)
class Page:
    title: str
    script: str  # its module in static/, without .js
    body_class: str


PAGES = {
    "index": Page("Can't Stop", "home", "home-page"),
    "game": Page("Can't Stop", "game", "game-page"),
    "leaderboard": Page("Leaderboard — Can't Stop", "leaderboard", "list-page"),
    "player": Page("Player — Can't Stop", "player", "list-page"),
    "rules": Page("Rules — Can't Stop", "rules", "list-page"),
    "sign-in": Page("Sign in — Can't Stop", "account", "list-page"),
    "sign-up": Page("Sign up — Can't Stop", "account", "list-page"),
    "account": Page("Your account — Can't Stop", "account", "list-page"),
    "practice": Page("Practice — Can't Stop", "practice", "practice-page"),
    "friends": Page("Friends — Can't Stop", "friends", "list-page"),
    "tournaments": Page("Tournaments — Can't Stop", "tournaments", "list-page"),
    "tournament": Page("Tournament — Can't Stop", "tournament", "list-page"),
    "play": Page("Quick game — Can't Stop", "quick", "list-page"),
}


API_LINK = '<a href="/docs">API</a>'  # only where /docs is served (Settings.api_docs)


@cache
def page_html(name: str, api_docs: bool = False) -> str:
    """The whole page `name` (a key of PAGES); `api_docs` when the server shows its API pages."""
    page = PAGES[name]
    layout = Template((STATIC / "layout.html").read_text(encoding="utf-8"))
    body = Template((STATIC / "pages" / f"{name}.html").read_text(encoding="utf-8"))
    filled = body.safe_substitute(api_link=API_LINK if api_docs else "")
    return layout.substitute(title=page.title, script=page.script, body_class=page.body_class, body=filled)


def page_response(name: str, api_docs: bool = False) -> HTMLResponse:
    return HTMLResponse(page_html(name, api_docs))


def page(name: str) -> Callable[[], Awaitable[HTMLResponse]]:
    """A route that serves page `name`, for a room to add to its router."""

    async def serve() -> HTMLResponse:
        return page_response(name)

    return serve
