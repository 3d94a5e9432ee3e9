"""The games room's HTTP routes: a game's state and log, acting, resigning, its record, its
replay, its summary, odds, and the game page (its WebSocket is `socket.py`'s)."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import HTMLResponse, PlainTextResponse

from cantstop.core.record import write_record
from cantstop.table import Table
from cantstop.web.deps import ServiceDep, clear_seat_cookie, cookie_name, rate_limited
from cantstop.web.errors import Conflict, NotAllowed
from cantstop.web.games.deps import ActingSeat, SeatDep
from cantstop.web.games.describe import log_lines, readable_record, state_json
from cantstop.web.games.ending import finished_summary
from cantstop.web.games.live import fallback_notes, parse_action, told_moves
from cantstop.web.games.odds import odds_json
from cantstop.web.games.schemas import ActionIn
from cantstop.web.pages import page_response

router = APIRouter(prefix="/api/games/{game_id}")
pages = APIRouter(include_in_schema=False)  # beside the API, not under it: no router nested in another
FAIR_PLAY = ("this game is rated: odds and advice are off for everyone, players and spectators, until it ends"
             " (friendly games have them)")


@router.get("")
async def get_game(game_id: str, you: SeatDep, service: ServiceDep) -> dict[str, Any]:
    """The game as everyone sees it, its log, and which seat this client holds."""
    game = await service.games.live(game_id)
    async with game.lock:
        await service.games.refresh(game)
    return {**game.snapshot(), "you": you, "log": game.log}


@router.post("/actions", dependencies=[Depends(rate_limited("action"))])
async def act(game_id: str, body: ActionIn, seat: ActingSeat, service: ServiceDep) -> dict[str, Any]:
    """Play 'roll', 'stop' or a choice, made on state `version`; the seat comes from the token."""
    return await service.games.act(game_id, seat, body.version, parse_action(body.action))


@router.post("/resign", dependencies=[Depends(rate_limited("action"))])
async def resign(game_id: str, seat: ActingSeat, service: ServiceDep, request: Request, response: Response) -> dict[str, Any]:
    """The seat the token holds gives up, at any moment: with two players the other wins;
    with more it leaves (its pieces come off) and play goes on; alone, the game ends. Before
    the start the seat is opened again, and the browser's cookie for the game, which held
    it, is cleared. Returns the new game JSON."""
    game = await service.leaving.resign(game_id, seat)
    cookie = request.cookies.get(cookie_name(game_id))
    if cookie and await service.lobby.seat_of(game_id, cookie) is None:  # it held the seat just opened, or nothing already
        clear_seat_cookie(request, response, game_id)
    return game


@router.get("/record", response_class=PlainTextResponse)
async def record(game_id: str, service: ServiceDep) -> PlainTextResponse:
    """The game in the engine's record format (a download), players by their display names."""
    game = await service.games.live(game_id)
    if game.record is None:
        raise Conflict("not_started", "the game has not started: no record yet")
    return PlainTextResponse(
        write_record(readable_record(game.record), fallback_notes(game.table.moves if game.table else (), game.record.events)),
        headers={"Content-Disposition": f'attachment; filename="cantstop-{game_id}.txt"'},
    )


@router.get("/replay")
async def replay(game_id: str, service: ServiceDep) -> dict[str, Any]:
    """Every position of the game, with the log lines that led to it; each frame's `turn` is
    the turn its move was made in, counted from 1 (the start is turn 1 too)."""
    game = await service.games.live(game_id)
    if game.table is None:
        raise Conflict("not_started", "the game has not started: nothing to replay")
    # The game told again: a fresh table takes the stored moves one by one, as the live one did.
    again = Table(game.meta.record([]), game.table.deal, policy=game.table.policy)
    frames = [{"version": 0, "turn": 1, "state": state_json(again.state), "log": game.log[:1]}]
    turn = 1
    for version, happened in enumerate(told_moves(again, list(game.table.moves)), 1):
        state = again.state
        frames.append({"version": version, "turn": turn, "state": state_json(state), "log": log_lines(happened, game.names, again.variant)})
        turn = state.turn + 1  # the next move is made in the turn this position is in
    ended = [entry for entry in game.log if entry["kind"] == "end"]
    if ended:  # the end of an abandoned game is no move: a frame of its own, on the last position
        frames.append({**frames[-1], "log": ended})
    return {**game.snapshot(), "frames": frames}


@router.get("/summary")
async def summary(game_id: str, service: ServiceDep) -> dict[str, Any]:
    """A finished game in short: the winner (or why it ended without one), each seat's rating
    change, turns, rolls, busts, columns and biggest turn, the game's biggest single turn,
    and the addresses of its replay and record."""
    return await finished_summary(service.games, game_id)


@router.get("/odds")
async def odds(game_id: str, service: ServiceDep) -> dict[str, Any]:
    """Exact odds for the player to move, and the strongest bot's suggestion; in a friendly
    game only: while a rated game is on, nobody gets them (players nor spectators)."""
    game = await service.games.live(game_id)
    if game.meta.rated and not game.finished:
        raise NotAllowed("fair_play", FAIR_PLAY)
    if game.state is None or game.finished:
        raise Conflict("no_odds", "odds are for a game in progress")
    return await asyncio.to_thread(odds_json, game.state)


@pages.get("/game/{game_id}")
async def game_page(game_id: str) -> HTMLResponse:
    return page_response("game")

