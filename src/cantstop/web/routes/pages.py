"""The browser client's pages (its scripts and styles are mounted at /static)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

STATIC = Path(str(files("cantstop.web") / "static"))

router = APIRouter(include_in_schema=False)


@router.get("/")
async def home() -> FileResponse:
    return FileResponse(STATIC / "index.html")


@router.get("/game/{game_id}")
async def game_page(game_id: str) -> FileResponse:
    return FileResponse(STATIC / "game.html")
