"""The browser client's pages (its scripts and styles are mounted at /static)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from cantstop.web.deps import SettingsDep
from cantstop.web.pages import page_response

router = APIRouter(include_in_schema=False)


@router.get("/")
async def home(settings: SettingsDep) -> HTMLResponse:
    return page_response("index", settings.api_docs)


@router.get("/game/{game_id}")
async def game_page(game_id: str) -> HTMLResponse:
    return page_response("game")
