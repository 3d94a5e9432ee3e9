"""Game routes over HTTP: a game's state and log, acting, its record, its replay, odds."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse

from cantstop.core.record import write_record
from cantstop.table import Table
from cantstop.web.describe import log_lines, state_json
from cantstop.web.errors import ApiError
from cantstop.web.games import fallback_notes, parse_action, told_moves
from cantstop.web.odds import odds_json
from cantstop.web.routes.deps import limit, service_of, token_of
from cantstop.web.schemas import ActionIn

router = APIRouter(prefix="/api/games/{game_id}")


@router.get("")
async def get_game(game_id: str, request: Request) -> dict[str, Any]:
    """The game as everyone sees it, its log, and which seat this client holds."""
    service = service_of(request)
    game = await service.games.live(game_id)
    async with game.lock:
        await service.games.refresh(game)
    you = await service.lobby.seat_of(game_id, token_of(request, game_id))
    return {**game.snapshot(), "you": you, "log": game.log}


@router.post("/actions")
async def act(game_id: str, body: ActionIn, request: Request) -> dict[str, Any]:
    """Play 'roll', 'stop' or a choice, made on state `version`; the seat comes from the token."""
    service = service_of(request)
    await limit(request, "action")
    await service.games.live(game_id)  # an unknown game is a 404 before any token is looked at
    token = token_of(request, game_id)
    seat = await service.lobby.seat_of(game_id, token)
    if seat is None and token:
        raise ApiError(403, "bad_token", "this token holds no seat in this game")
    return await service.games.act(game_id, seat, body.version, parse_action(body.action))


@router.get("/record", response_class=PlainTextResponse)
async def record(game_id: str, request: Request) -> PlainTextResponse:
    """The game in the engine's record format (a download)."""
    game = await service_of(request).games.live(game_id)
    if game.record is None:
        raise ApiError(409, "not_started", "the game has not started: no record yet")
    return PlainTextResponse(
        write_record(game.record, fallback_notes(game.table.moves if game.table else (), game.record.events)),
        headers={"Content-Disposition": f'attachment; filename="cantstop-{game_id}.txt"'},
    )


@router.get("/replay")
async def replay(game_id: str, request: Request) -> dict[str, Any]:
    """Every position of the game, with the log lines that led to it."""
    game = await service_of(request).games.live(game_id)
    if game.table is None:
        raise ApiError(409, "not_started", "the game has not started: nothing to replay")
    # The game told again: a fresh table takes the stored moves one by one, as the live one did.
    again = Table(game.meta.record([]), game.table.deal, policy=game.table.policy)
    frames = [{"version": 0, "turn": 0, "state": state_json(again.state), "log": game.log[:1]}]
    for version, happened in enumerate(told_moves(again, list(game.table.moves)), 1):
        state = again.state
        frames.append({"version": version, "turn": state.turn, "state": state_json(state), "log": log_lines(happened, game.names, again.variant)})
    return {**game.snapshot(), "frames": frames}


@router.get("/odds")
async def odds(game_id: str, request: Request) -> dict[str, Any]:
    """Exact odds for the player to move, and the strongest bot's suggestion."""
    game = await service_of(request).games.live(game_id)
    if game.state is None or game.state.is_over:
        raise ApiError(409, "no_odds", "odds are for a game in progress")
    return await asyncio.to_thread(odds_json, game.state)
