"""The pairing room's routes: asking for a quick game, one's request as it stands (waiting
for news), cancelling it, a bot instead, and the Quick game page."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Query, Request, Response

from cantstop.web.deps import rate_limited, set_seat_cookie
from cantstop.web.identity.deps import AccountsDep, CurrentAccount, check_origin
from cantstop.web.names import checked_name
from cantstop.web.pages import page
from cantstop.web.pairing.deps import HeldRequest, PairingDep, set_pairing_cookie
from cantstop.web.pairing.schemas import Ask
from cantstop.web.pairing.service import LONGEST_WAIT

router = APIRouter(prefix="/api/pairing")
pages = APIRouter(include_in_schema=False)


@router.post("", status_code=201, dependencies=[Depends(rate_limited("create"))])
async def ask(
    body: Ask, request: Request, response: Response, service: PairingDep, accounts: AccountsDep, account: CurrentAccount,
    held: HeldRequest,
) -> dict[str, Any]:
    """Ask to be paired: signed in, rated or friendly; as a guest (with a `name`), friendly.
    The request's secret is set as this browser's cookie."""
    check_origin(request)
    if account is not None:
        await accounts.may_play(account.id)
    elif body.name is not None:
        await accounts.guest_names_free([checked_name(body.name)])
    found, token = await service.ask(account, held, body.name, body.variant, body.players, body.clock, body.rated)
    set_pairing_cookie(request, response, token)
    return found


@router.get("")
async def look(
    request: Request, response: Response, service: PairingDep, account: CurrentAccount, held: HeldRequest,
    wait: float = Query(0.0, ge=0, le=LONGEST_WAIT, description="seconds to wait for the request to be paired or to end"),
) -> dict[str, Any]:
    """Your request as it stands: `waiting` (with `waited`, the rating `window` accepted now,
    and `offer_bot`), `paired` (with its `game`), `cancelled` or `expired`. Looking keeps a
    waiting request alive; with `wait` the answer comes as soon as it is paired. Once paired,
    a guest's browser gets its seat's cookie."""
    found, seated = await service.look(account, held, wait)
    if seated is not None and held is not None:
        set_seat_cookie(request, response, seated, held)
    return found


@router.delete("")
async def cancel(request: Request, service: PairingDep, account: CurrentAccount, held: HeldRequest) -> dict[str, Any]:
    """Stop waiting: your request is cancelled (refused once it is paired)."""
    check_origin(request)
    return await service.cancel(account, held)


@router.post("/bot", status_code=201, dependencies=[Depends(rate_limited("create"))])
async def bot(request: Request, response: Response, service: PairingDep, accounts: AccountsDep, account: CurrentAccount,
              held: HeldRequest) -> dict[str, Any]:
    """Stop waiting and play a bot now: a friendly game of your request's rules, players and
    clock, bots in the other seats. Its seat's token, also set as this browser's cookie."""
    check_origin(request)
    if account is not None:
        await accounts.may_play(account.id)
    game_id, seat, token = await service.bot(account, held)
    set_seat_cookie(request, response, game_id, token)
    return {"game": game_id, "url": f"/game/{game_id}", "seat": seat, "token": token}


pages.add_api_route("/play", page("play"), include_in_schema=False)
