"""Lobby routes: the presets and bots on offer, creating and listing games, seats, rematches, ratings."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Query, Request, Response

from cantstop.bots import Level, bot_names, get_bot
from cantstop.core.errors import UnknownBotError
from cantstop.core.variant import PRESET_TITLES, PRESETS
from cantstop.web.db.tokens import new_token
from cantstop.web.db.values import ENDED, LIVE
from cantstop.web.deps import ServiceDep, cookie_name, is_https, limit, rate_limited, token_of
from cantstop.web.errors import Invalid
from cantstop.web.games.describe import summary_json
from cantstop.web.identity.deps import CurrentAccount, check_game_names
from cantstop.web.schemas import Created, Joined, JoinIn, NewGame, Rematch

router = APIRouter(prefix="/api")


def level_bots() -> dict[str, str]:
    """Level -> the bot a `bot:LEVEL` seat gets (`get_bot` decides), for the levels that seat one."""
    seated = {}
    for level in Level:
        try:
            seated[level.value] = get_bot(level.value).name
        except UnknownBotError:  # no bot of this level plays every game
            continue
    return seated


@router.get("/variants")
async def variants() -> dict[str, Any]:
    """The rule presets and the bots (by name and by level) a seat may hold; `levels` names,
    for each level, the bot that seat gets, so a menu's words cannot differ from the game."""
    infos = [get_bot(n) for n in bot_names()]
    return {
        "variants": [
            {"name": n, "title": PRESET_TITLES[n], "min_players": v.min_players, "max_players": v.max_players}
            for n, v in PRESETS.items()
        ],
        "bots": [{"name": b.name, "level": b.level.value, "description": b.description, "display": b.display} for b in infos],
        "levels": [{"name": level, "bot": bot} for level, bot in level_bots().items()],
    }


@router.post("/games", status_code=201, response_model_exclude_none=True, dependencies=[Depends(rate_limited("create"))])
async def create_game(body: NewGame, request: Request, service: ServiceDep, account: CurrentAccount) -> Created:
    """Create a game: a variant and 1-4 seats, each 'open' or 'bot:NAME'; `take` seats
    open ones at once for people at this screen (their tokens are in the reply only)."""
    await check_game_names(request, [t.name for t in body.take], account)
    people = {t.seat: (t.name, new_token()) for t in body.take}
    if len(people) < len(body.take):
        raise Invalid("bad_seat", "each seat can be taken once")
    game_id = await service.lobby.create(body.variant, body.seats, people, clock=body.clock)
    taken = [Joined(game=game_id, seat=s, token=t) for s, (_, t) in people.items()]
    return Created(id=game_id, url=f"/game/{game_id}", taken=taken or None)


@router.post("/games/{game_id}/rematch", status_code=201, response_model_exclude_none=True)
async def rematch(game_id: str, body: Rematch, request: Request, service: ServiceDep) -> Created:
    """Play a finished game again: same variant, seats and bots; the seats this client holds
    (its cookie or bearer token, and `tokens`) are taken again under the same names, the
    other people's seats are open. The finished game links to it (`rematch`); once only."""
    await service.games.live(game_id)  # an unknown game is a 404 before any token is looked at
    cookie = token_of(request, game_id)
    seats = {await service.lobby.held_seat(game_id, token) for token in [*body.tokens, *([cookie] if cookie else [])]}
    limit(request, "create")
    new_id, tokens = await service.lobby.rematch(game_id, seats)
    taken = [Joined(game=new_id, seat=s, token=t) for s, t in tokens.items()]
    return Created(id=new_id, url=f"/game/{new_id}", taken=taken)


@router.get("/games")
async def list_games(service: ServiceDep, finished: bool = Query(False, description="finished games (won or abandoned) instead of live ones")) -> list[dict[str, Any]]:
    """Games waiting for players or in play, the last moved first; with `finished`, those that ended."""
    status = ENDED if finished else LIVE
    return [summary_json(g) for g in await service.recorder.db(service.storage.games, status, 100)]


@router.post("/games/{game_id}/join", dependencies=[Depends(rate_limited("join"))])
async def join(game_id: str, body: JoinIn, request: Request, response: Response, service: ServiceDep, account: CurrentAccount) -> Joined:
    """Take an open seat under a name before the game starts; the token is returned once and
    set as a cookie. With `screen`, for one more person at a screen that holds seats already
    (tokens kept by the page, or the cookie of a seat joined online), no cookie is set: the
    token is in the reply only, and the cookie keeps the seat it holds."""
    await check_game_names(request, [body.name], account)
    token = await service.lobby.join(game_id, body.seat, body.name)
    if not body.screen:
        response.set_cookie(
            cookie_name(game_id), token, httponly=True, samesite="strict", max_age=90 * 86400, path="/", secure=is_https(request)
        )
    return Joined(game=game_id, seat=body.seat, token=token)


@router.get("/leaderboard")
async def leaderboard(service: ServiceDep) -> list[dict[str, Any]]:
    """Named players and bots by rating (openskill, mu - 3 sigma)."""
    return [
        {"name": r.name, "rating": round(r.ordinal, 2), "mu": round(r.mu, 2), "sigma": round(r.sigma, 2), "games": r.games, "wins": r.wins}
        for r in await service.recorder.db(service.storage.leaderboard)
    ]
