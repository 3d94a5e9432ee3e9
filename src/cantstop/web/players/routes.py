"""The players room's routes: the leaderboards (people, bots, legacy names), a profile per player,
finished games by turns, and the pages that show them (see `cantstop.web.pages`)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query

from cantstop.web.db.values import RatingKind
from cantstop.web.deps import ServiceDep
from cantstop.web.pages import page

router = APIRouter()
NAME_PATH = Path(max_length=40, description="a person's name, or a bot's as 'bot:NAME'")


class Board(StrEnum):
    PEOPLE = "people"  # accounts
    BOTS = "bots"
    LEGACY = "legacy"  # ratings from before accounts, not attached to one


BOARD_KINDS = {Board.PEOPLE: RatingKind.PERSON, Board.BOTS: RatingKind.BOT, Board.LEGACY: RatingKind.LEGACY}


PLAYERS = Query(2, ge=2, le=4, description="the number of players of the games rated: each number has its own ratings")


@router.get("/api/players")
async def players(
    service: ServiceDep, limit: int = Query(50, ge=1, le=200),
    board: Annotated[Board, Query(description="people (accounts), bots, or legacy names from before accounts")] = Board.PEOPLE,
    players: int = PLAYERS,
    provisional: bool = Query(False, description="people whose rating is still provisional too (the leaderboard leaves them out)"),
) -> list[dict[str, Any]]:
    """A leaderboard of games of `players` by the rating shown (1500 for a new player), with
    display names: people whose rating is no longer provisional by default; bots have their
    own board, and so do the unclaimed legacy names."""
    return await service.players.board(BOARD_KINDS[board], players, limit, provisional)


@router.get("/api/players/{name:path}")
async def player(
    service: ServiceDep, name: str = NAME_PATH, legacy: bool = Query(False, description="the legacy entry of this name, from before accounts"),
) -> dict[str, Any]:
    """A player's page: rating, its history after each rated game (oldest first), recent
    finished games, win rates by variant and by number of players, and the games under way
    (those waiting for the player's move first). An account's, a bot's, a guest's, or with
    `legacy` an entry from before accounts."""
    return await service.players.profile(name, legacy)


@router.get("/api/finished")
async def finished_games(
    service: ServiceDep,
    player: str | None = Query(None, max_length=40, description="only the games this player sat in"),
    limit: int = Query(30, ge=1, le=100),
) -> list[dict[str, Any]]:
    """Finished games, newest first, with the turns each took."""
    return await service.players.finished(player, limit)


router.add_api_route("/leaderboard", page("leaderboard"), include_in_schema=False)
router.add_api_route("/rules", page("rules"), include_in_schema=False)
router.add_api_route("/player/{name:path}", page("player"), include_in_schema=False)  # a name may hold a /
