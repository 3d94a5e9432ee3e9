"""The challenges room's routes: challenging an account, the challenges made to you and by
you, and accepting, declining and withdrawing one. Every change is a signed-in account's,
with its session's CSRF token (`identity.deps`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Path

from cantstop.web.challenges.deps import ChallengesDep
from cantstop.web.challenges.schemas import NewChallenge
from cantstop.web.challenges.store import SeatOrder
from cantstop.web.deps import rate_limited
from cantstop.web.identity.deps import SignedInSession

router = APIRouter(prefix="/api/challenges", tags=["challenges"])
ID = Path(max_length=32, description="the challenge's id")


@router.get("")
async def mine(me: SignedInSession, challenges: ChallengesDep) -> dict[str, Any]:
    """The challenges made to you and still open (`received`), and those you made (`sent`):
    open, or accepted (with its `game`), declined or expired within the last day; `most` is
    how many an account may have open, `lasts` how many seconds one lasts."""
    return await challenges.mine(me.account)


@router.post("", status_code=201, dependencies=[Depends(rate_limited("create"))])
async def challenge(body: NewChallenge, me: SignedInSession, challenges: ChallengesDep) -> dict[str, Any]:
    """Challenge the account `to` to a game of two: its `rules`, move `clock`, `rated` or
    friendly, and your seat (`seats`). It sees it on its home page until it answers, for a day."""
    return await challenges.create(me.account, body.to, body.rules, body.clock, body.rated, SeatOrder(body.seats))


@router.post("/{challenge_id}/accept", dependencies=[Depends(rate_limited("create"))])
async def accept(me: SignedInSession, challenges: ChallengesDep, challenge_id: str = ID) -> dict[str, Any]:
    """Accept a challenge made to you: the game is made with both seats taken and starts; its
    address is `url`."""
    return await challenges.accept(me.account, challenge_id)


@router.post("/{challenge_id}/decline", dependencies=[Depends(rate_limited("join"))])
async def decline(me: SignedInSession, challenges: ChallengesDep, challenge_id: str = ID) -> dict[str, Any]:
    return await challenges.decline(me.account, challenge_id)


@router.post("/{challenge_id}/withdraw", dependencies=[Depends(rate_limited("join"))])
async def withdraw(me: SignedInSession, challenges: ChallengesDep, challenge_id: str = ID) -> dict[str, Any]:
    return await challenges.withdraw(me.account, challenge_id)
