"""The social room's routes: following and blocking accounts, the friends page (who of those
followed is online, and what they play), and reports to the moderators. Every change is a
signed-in account's, with its session's CSRF token (`identity.deps`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Path, Response

from cantstop.web.deps import rate_limited
from cantstop.web.identity.deps import SignedInSession
from cantstop.web.pages import page
from cantstop.web.social.deps import SocialDep
from cantstop.web.social.schemas import Named, ReportIn

router = APIRouter(prefix="/api/social", tags=["social"])
pages = APIRouter(include_in_schema=False)
NAME_PATH = Path(max_length=40, description="an account's name")


@router.get("")
async def friends(me: SignedInSession, social: SocialDep) -> dict[str, Any]:
    """The accounts you follow (those online first: a session used within `online_within`
    seconds), each with its games under way; and those you block."""
    return await social.friends(me.account)


@router.get("/with/{name}")
async def standing_with(me: SignedInSession, social: SocialDep, name: str = NAME_PATH) -> dict[str, Any]:
    """Whether you follow and block the account `name` (`you`: it is your own)."""
    return await social.with_(me.account, name)


@router.post("/follows", status_code=204, dependencies=[Depends(rate_limited("join"))])
async def follow(body: Named, me: SignedInSession, social: SocialDep) -> Response:
    """Follow an account: see whether it is online and what it plays. Refused (`blocked`, 403)
    when either of you blocks the other."""
    await social.follow(me.account, body.name)
    return Response(status_code=204)


@router.delete("/follows/{name}", status_code=204)
async def unfollow(me: SignedInSession, social: SocialDep, name: str = NAME_PATH) -> Response:
    await social.unfollow(me.account, name)
    return Response(status_code=204)


@router.post("/blocks", status_code=204, dependencies=[Depends(rate_limited("join"))])
async def block(body: Named, me: SignedInSession, social: SocialDep) -> Response:
    """Block an account: its chat lines are kept from you in every game; neither of you
    follows the other any more, nor can while the block lasts."""
    await social.block(me.account, body.name)
    return Response(status_code=204)


@router.delete("/blocks/{name}", status_code=204)
async def unblock(me: SignedInSession, social: SocialDep, name: str = NAME_PATH) -> Response:
    await social.unblock(me.account, name)
    return Response(status_code=204)


@router.post("/reports", status_code=201, dependencies=[Depends(rate_limited("chat"))])
async def report(body: ReportIn, me: SignedInSession, social: SocialDep) -> dict[str, int]:
    """Report a chat line (`message`, its id) or a player (`player`, an account's name) to the
    moderators, saying why (`reason`); its number."""
    return {"id": await social.report(me.account, body.reason, body.message, body.player)}


pages.add_api_route("/friends", page("friends"), include_in_schema=False)
