"""Lobby routes: the presets and bots on offer, creating and listing games, seats, rematches, ratings."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Query, Request, Response

from cantstop.bots import Level, bot_names, get_bot
from cantstop.core.errors import UnknownBotError
from cantstop.core.variant import PRESET_TITLES, PRESETS
from cantstop.web.db.tokens import new_token
from cantstop.web.db.values import ENDED, LIVE, RatingKind, Taker
from cantstop.web.deps import ServiceDep, limit, rate_limited, set_seat_cookie, token_of
from cantstop.web.errors import Invalid
from cantstop.web.games.describe import summary_json
from cantstop.web.identity.accounts import Account
from cantstop.web.identity.deps import CurrentAccount, check_guest_names
from cantstop.web.names import checked_name, same_name
from cantstop.web.schemas import Created, Join, Joined, JoinIn, NewGame, Rematch

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
    for each level, the bot that seat gets, so a menu's words cannot differ from the game;
    each bot's `plays` maps each preset to the numbers of players it can play it with."""
    infos = [get_bot(n) for n in bot_names()]
    # Where each bot can sit, asked of the bot itself, so a menu offers a bot only where it plays.
    plays = {
        b.name: {n: [k for k in range(v.min_players, v.max_players + 1) if b.fits(v, k) is None] for n, v in PRESETS.items()}
        for b in infos
    }
    return {
        "variants": [
            {"name": n, "title": PRESET_TITLES[n], "min_players": v.min_players, "max_players": v.max_players}
            for n, v in PRESETS.items()
        ],
        "bots": [
            {"name": b.name, "level": b.level.value, "description": b.description, "display": b.display, "plays": plays[b.name]}
            for b in infos
        ],
        "levels": [{"name": level, "bot": bot} for level, bot in level_bots().items()],
    }


def taker(take: Join, account: Account | None, screen: bool) -> Taker:
    """Who takes a seat: the signed-in person themselves (their account's name; `name`, if
    sent, must be it), or, with `screen`, a guest at their screen under the name sent."""
    if account is not None and not screen:
        if take.name is not None and not same_name(take.name, account.name):
            raise Invalid("bad_name", f"signed in as {account.name}, you sit under that name; to seat another person at this"
                          " screen, send screen: true (and their name)")
        return Taker(account.name, new_token(), account.id)
    if take.name is None:
        who = "a person at this screen" if account is not None else "a guest"
        raise Invalid("bad_name", f"name: {who} takes a seat under a name, 1..40 characters")
    return Taker(checked_name(take.name, take.seat), new_token())  # what it holds is said before whose it looks like


@router.post("/games", status_code=201, response_model_exclude_none=True, dependencies=[Depends(rate_limited("create"))])
async def create_game(body: NewGame, request: Request, service: ServiceDep, account: CurrentAccount) -> Created:
    """Create a game, `rated` or friendly: a variant and 1-4 seats, each 'open' or 'bot:NAME';
    `take` seats open ones at once, the signed-in person's own (no name needed) and, in a
    friendly game, people at this screen (`screen`, with their names). Tokens are in the reply only."""
    # Signed in, the seat taken with no name (or the account's) is the account's; any other is a guest's at this screen.
    mine = [t for t in body.take if account is not None and not t.screen and (t.name is None or same_name(t.name, account.name))]
    if len(mine) > 1:
        raise Invalid("bad_seat", "an account takes one seat of a game: the other seats taken here are for people at this screen, by name")
    people = {t.seat: taker(t, account, t not in mine) for t in body.take}
    if len(people) < len(body.take):
        raise Invalid("bad_seat", "each seat can be taken once")
    await check_guest_names(request, [p.name for p in people.values() if p.account_id is None])
    game_id = await service.lobby.create(body.variant, body.seats, people, clock=body.clock, rated=body.rated)
    taken = [Joined(game=game_id, seat=s, token=p.token) for s, p in people.items()]
    return Created(id=game_id, url=f"/game/{game_id}", taken=taken or None)


@router.post("/games/{game_id}/rematch", status_code=201, response_model_exclude_none=True)
async def rematch(game_id: str, body: Rematch, request: Request, service: ServiceDep, account: CurrentAccount) -> Created:
    """Play a finished game again, rated if it was: same variant, seats and bots; the seats
    this client holds (its cookie or bearer token, `tokens`, and its account's seat) are taken
    again under the same names, the other people's seats are open. The finished game links
    to it (`rematch`); once only."""
    await service.games.live(game_id)  # an unknown game is a 404 before any token is looked at
    cookie = token_of(request, game_id)
    seats = {await service.lobby.held_seat(game_id, token) for token in [*body.tokens, *([cookie] if cookie else [])]}
    if account is not None:
        mine = await service.lobby.seat_of(game_id, None, account.id)
        seats |= set() if mine is None else {mine}
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
    """Take an open seat before the game starts: a signed-in person's seat is their account's
    (on any device), a guest's is held by its token under the name sent. The token is
    returned once and set as a cookie. With `screen`, for one more person at a screen that
    holds seats already (tokens kept by the page, or the cookie of a seat joined online), no
    cookie is set: the token is in the reply only, and the cookie keeps the seat it holds."""
    who = taker(body, account, body.screen)
    if who.account_id is None:
        await check_guest_names(request, [who.name])
    token = await service.lobby.join(game_id, body.seat, who.name, who.account_id)
    if not body.screen:
        set_seat_cookie(request, response, game_id, token)
    return Joined(game=game_id, seat=body.seat, token=token)


@router.get("/leaderboard")
async def leaderboard(service: ServiceDep) -> list[dict[str, Any]]:
    """People by rating (openskill, mu - 3 sigma), as /api/players gives them."""
    await service.games.ratings_written()
    return await service.recorder.db(service.profiles.leaderboard, RatingKind.PERSON, 50)
