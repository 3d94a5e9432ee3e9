"""The lobby's routes: the presets and bots on offer, creating and listing games, taking
seats, rematches, the games a client plays in, guests' seat links, and the home page."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.responses import HTMLResponse

from cantstop.bots import Level, bot_names, get_bot
from cantstop.core.errors import UnknownBotError
from cantstop.core.variant import PRESET_TITLES, PRESETS
from cantstop.web.db.values import RatingKind, Taker
from cantstop.web.deps import (
    ServiceDep,
    SettingsDep,
    bearer_of,
    limit,
    rate_limited,
    seat_cookies,
    set_seat_cookie,
    token_of,
)
from cantstop.web.errors import Invalid
from cantstop.web.games.deps import ActingSeat, check_cookie_change
from cantstop.web.identity.accounts import Account
from cantstop.web.identity.deps import AccountsDep, CurrentAccount
from cantstop.web.lobby.schemas import (
    Created,
    HeldSeats,
    Join,
    Joined,
    JoinIn,
    LinkCode,
    NewGame,
    Rematch,
)
from cantstop.web.lobby.service import new_taker
from cantstop.web.names import same_name
from cantstop.web.pages import page_response

router = APIRouter(prefix="/api")
pages = APIRouter(include_in_schema=False)  # beside the API, not under it: no router nested in another


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
        b.name: {n: [k for k in range(v.min_players, v.most_players + 1) if b.fits(v, k) is None] for n, v in PRESETS.items()}
        for b in infos
    }
    return {
        "variants": [
            {"name": n, "title": PRESET_TITLES[n], "min_players": v.min_players, "max_players": v.most_players}
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
        return new_taker(account.name, account.id)
    if take.name is None:
        who = "a person at this screen" if account is not None else "a guest"
        raise Invalid("bad_name", f"name: {who} takes a seat under a name, 1..40 characters")
    return new_taker(take.name, None, take.seat)  # what it holds is said before whose it looks like


@router.post("/games", status_code=201, response_model_exclude_none=True, dependencies=[Depends(rate_limited("create"))])
async def create_game(body: NewGame, service: ServiceDep, accounts: AccountsDep, account: CurrentAccount) -> Created:
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
    if mine and account is not None:
        await accounts.may_play(account.id)
    await accounts.guest_names_free([p.name for p in people.values() if p.account_id is None])
    game_id = await service.lobby.create(body.variant, body.seats, people, clock=body.clock, rated=body.rated)
    taken = [Joined(game=game_id, seat=s, token=p.token) for s, p in people.items()]
    return Created(id=game_id, url=f"/game/{game_id}", taken=taken or None)


@router.post("/games/{game_id}/rematch", status_code=201, response_model_exclude_none=True)
async def rematch(game_id: str, body: Rematch, request: Request, service: ServiceDep, accounts: AccountsDep, account: CurrentAccount) -> Created:
    """Play a finished game again, rated if it was: same variant, seats and bots; the seats
    this client holds (its cookie or bearer token, `tokens`, and its account's seat) are taken
    again under the same names, the other people's seats are open. The finished game links
    to it (`rematch`); once only."""
    game = await service.games.live(game_id)  # an unknown game is a 404 before any token is looked at
    seats = {await service.lobby.held_seat(game_id, token) for token in body.tokens}
    cookie = token_of(request, game_id)
    if cookie:
        held = await service.lobby.held_seat(game_id, cookie)
        if bearer_of(request) is None:  # the browser sends its cookie with any request
            check_cookie_change(request, game.meta.seats[held].account_id is not None)
        seats.add(held)
    if account is not None:
        mine = await service.lobby.seat_of(game_id, None, account.id)
        seats |= set() if mine is None else {mine}
    for seat in seats:  # an account's seat played again: not while it is suspended
        await accounts.may_play(game.meta.seats[seat].account_id)
    limit(request, "create")
    new_id, tokens = await service.lobby.rematch(game_id, seats)
    taken = [Joined(game=new_id, seat=s, token=t) for s, t in tokens.items()]
    return Created(id=new_id, url=f"/game/{new_id}", taken=taken)


@router.get("/games")
async def list_games(service: ServiceDep, finished: bool = Query(False, description="finished games (won or abandoned) instead of live ones")) -> list[dict[str, Any]]:
    """Games waiting for players or in play, the last moved first; with `finished`, those that ended."""
    return await service.lobby.listed(finished)


@router.post("/games/{game_id}/join", dependencies=[Depends(rate_limited("join"))])
async def join(game_id: str, body: JoinIn, request: Request, response: Response, service: ServiceDep, accounts: AccountsDep, account: CurrentAccount) -> Joined:
    """Take an open seat before the game starts: a signed-in person's seat is their account's
    (on any device), a guest's is held by its token under the name sent. The token is
    returned once and set as a cookie. With `screen`, for one more person at a screen that
    holds seats already (tokens kept by the page, or the cookie of a seat joined online), no
    cookie is set: the token is in the reply only, and the cookie keeps the seat it holds."""
    who = taker(body, account, body.screen)
    if who.account_id is None:
        await accounts.guest_names_free([who.name])
    else:
        await accounts.may_play(who.account_id)
    token = await service.lobby.join(game_id, body.seat, who.name, who.account_id)
    if not body.screen:
        set_seat_cookie(request, response, game_id, token)
    return Joined(game=game_id, seat=body.seat, token=token)


@router.get("/leaderboard")
async def leaderboard(service: ServiceDep) -> list[dict[str, Any]]:
    """People by rating in two-player games, as /api/players gives them."""
    return await service.players.board(RatingKind.PERSON, 2, 50)


@router.post("/my-games")
async def my_games(body: HeldSeats, request: Request, service: ServiceDep, account: CurrentAccount) -> dict[str, Any]:
    """The games this client plays in that are waiting or under way: its account's, and those
    its seat cookies and `tokens` hold; the games waiting for its move first (`your_turn`),
    the least time left first (`left`, seconds, on a move clock), then the others, the last
    moved first. `waiting` counts the first kind."""
    held = {**seat_cookies(request), **{t.game: t.token for t in body.tokens}}
    return await service.seats.held(None if account is None else account.id, held)


@router.post("/games/{game_id}/seat-link", dependencies=[Depends(rate_limited("join"))])
async def seat_link(game_id: str, seat: ActingSeat, service: ServiceDep) -> dict[str, Any]:
    """A one-time link (ten minutes) that moves this guest's seat to the device that opens it."""
    return await service.seats.link(game_id, seat)


@router.post("/games/{game_id}/seat-link/use", dependencies=[Depends(rate_limited("join"))])
async def use_seat_link(game_id: str, body: LinkCode, request: Request, response: Response, service: ServiceDep) -> Joined:
    """Take the seat a link moves: its new token, set as this browser's cookie for the game
    (the device that made the link holds the seat no more)."""
    seat, token = await service.seats.use_link(game_id, body.code)
    set_seat_cookie(request, response, game_id, token)
    return Joined(game=game_id, seat=seat, token=token)


@pages.get("/")
async def home(settings: SettingsDep) -> HTMLResponse:
    return page_response("index", settings.api_docs)

