"""The review room's routes: a finished game's analysis, the roll map of a point of a game,
the tutor's values of the decision before a player, practice, and the practice page."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Query, Response

from cantstop.web.deps import rate_limited
from cantstop.web.games.deps import SeatDep
from cantstop.web.identity.deps import SignedInSession
from cantstop.web.pages import page
from cantstop.web.review.deps import ReviewsDep
from cantstop.web.review.schemas import AnswerIn
from cantstop.web.review.service import ASK_AGAIN

router = APIRouter()
ASKED = [Depends(rate_limited("analysis"))]
JSON = "application/json"


@router.get("/api/games/{game_id}/analysis", dependencies=ASKED, responses={202: {"description": "under way: ask again after Retry-After seconds"}})
async def analysis(game_id: str, reviews: ReviewsDep) -> Response:
    """A finished game's analysis: every decision's options with the mover's chance to win
    (alone: expected turns), the best, the loss and a grade; every roll's luck; a point per
    event with every seat's value; each player's accuracy and luck; and `versions`, the game
    version after each event (the replay's frames). Computed once, then stored: while it is
    computed the answer is 202, to ask again. A rated game's only once it has ended."""
    served = await reviews.analysis(game_id)
    if served.data is None:
        return Response(served.body(), status_code=202, media_type=JSON, headers={"Retry-After": str(ASK_AGAIN)})
    return Response(served.body(), media_type=JSON)


@router.get("/api/games/{game_id}/rollmap", dependencies=ASKED)
async def rollmap(
    game_id: str, reviews: ReviewsDep,
    ply: int | None = Query(None, ge=0, le=100_000, description="the position after this event of the record (0: the start); none: the game's current one"),
) -> dict[str, Any]:
    """What the next roll can bring: every roll grouped by the choices it offers, each group's
    chance and the mover's value after its best choice, the bust's chance, and rolling
    against stopping. A friendly game's at any point; a rated game's only once it has ended."""
    return await reviews.roll_map(game_id, ply)


@router.get("/api/games/{game_id}/tutor", dependencies=ASKED)
async def tutor(game_id: str, you: SeatDep, reviews: ReviewsDep) -> dict[str, Any]:
    """The tutor, for the player whose decision it is in a friendly game: each option's value,
    what it gives up against the best, its grade and a sentence saying so."""
    return await reviews.tutor(game_id, you)


@router.get("/api/practice")
async def practice(me: SignedInSession, reviews: ReviewsDep) -> dict[str, Any]:
    """A position from the signed-in player's own analysed games where their decision cost
    5 points or more (alone: 0.25 turns), asked again: the board and the options, in the
    rules' order; and their progress. `position` is null when there is none to ask."""
    return await reviews.question(me.account.id)


@router.post("/api/practice/answer")
async def answer(body: AnswerIn, me: SignedInSession, reviews: ReviewsDep) -> dict[str, Any]:
    """The signed-in player's answer to a practice position: whether it was right (it gave
    up under a point), every option's value, what was played in the game, and the progress."""
    return await reviews.answer(me.account.id, body.game, body.ply, body.action)


router.add_api_route("/practice", page("practice"), include_in_schema=False)
