"""The tournaments room's routes: listing, creating, entering, leaving and starting
tournaments, one tournament's page (players, rounds, standings), and the pages."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Path, Query

from cantstop.web.deps import rate_limited
from cantstop.web.identity.deps import CurrentAccount, SignedInSession
from cantstop.web.pages import page
from cantstop.web.tournaments.deps import TournamentsDep
from cantstop.web.tournaments.schemas import NewTournament

router = APIRouter(prefix="/api/tournaments")
pages = APIRouter(include_in_schema=False)
ID = Path(max_length=32, description="the tournament's id")


@router.get("")
async def tournaments(
    service: TournamentsDep, player: str | None = Query(None, max_length=40, description="only those this account entered"),
) -> dict[str, Any]:
    """Tournaments taking entries (`open`, the next to start first), in play (`playing`) and
    `finished`; with `player`, the ones that account entered (`entered`), each with its rank."""
    return await service.listed(player)


@router.post("", status_code=201, dependencies=[Depends(rate_limited("create"))])
async def create(body: NewTournament, service: TournamentsDep, session: SignedInSession) -> dict[str, Any]:
    """A new Swiss tournament (signed in): entry open until `starts`, then `rounds` rounds of
    games of `seats` players on a move clock, rated or not."""
    made = await service.create(session.account, body.name, body.variant, body.seats, body.clock, body.rated, body.rounds,
                                body.capacity, body.starts)
    return {"id": made, "url": f"/tournament/{made}"}


@router.get("/{tournament_id}")
async def tournament(service: TournamentsDep, account: CurrentAccount, tournament_id: str = ID) -> dict[str, Any]:
    """One tournament: its settings, players (with ratings), rounds and standings; `you`
    says what the signed-in viewer may do."""
    return await service.detail(tournament_id, account)


@router.post("/{tournament_id}/join", dependencies=[Depends(rate_limited("join"))])
async def join(service: TournamentsDep, session: SignedInSession, tournament_id: str = ID) -> dict[str, Any]:
    """Enter, before the start and while there is room."""
    return await service.enter(tournament_id, session.account)


@router.post("/{tournament_id}/leave", dependencies=[Depends(rate_limited("join"))])
async def leave(service: TournamentsDep, session: SignedInSession, tournament_id: str = ID) -> dict[str, Any]:
    """Leave before the start; withdraw after it (later rounds no longer pair you)."""
    return await service.leave(tournament_id, session.account)


@router.post("/{tournament_id}/start")
async def start(service: TournamentsDep, session: SignedInSession, tournament_id: str = ID) -> dict[str, Any]:
    """The creator closes entry and starts round 1 now, with two players or more."""
    return await service.start_now(tournament_id, session.account)


pages.add_api_route("/tournaments", page("tournaments"), include_in_schema=False)
pages.add_api_route("/tournament/{tournament_id}", page("tournament"), include_in_schema=False)
