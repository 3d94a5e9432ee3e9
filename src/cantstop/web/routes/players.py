"""Player routes: the leaderboards (people, bots, legacy names), a profile per player,
finished games by turns, and the pages that show them (see `cantstop.web.pages`)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query

from cantstop.web.db.values import RatingKind
from cantstop.web.deps import ServiceDep
from cantstop.web.errors import Invalid, NotFound
from cantstop.web.names import refused_character
from cantstop.web.pages import page

router = APIRouter()
NAME_PATH = Path(max_length=40, description="a person's name, or a bot's as 'bot:NAME'")


class Board(StrEnum):
    PEOPLE = "people"  # accounts
    BOTS = "bots"
    LEGACY = "legacy"  # ratings from before accounts, not attached to one


BOARD_KINDS = {Board.PEOPLE: RatingKind.PERSON, Board.BOTS: RatingKind.BOT, Board.LEGACY: RatingKind.LEGACY}


@router.get("/api/players")
async def players(
    service: ServiceDep, limit: int = Query(50, ge=1, le=200),
    board: Annotated[Board, Query(description="people (accounts), bots, or legacy names from before accounts")] = Board.PEOPLE,
) -> list[dict[str, Any]]:
    """A leaderboard by rating (openskill, mu - 3 sigma), with display names: people by
    default; bots have their own board, and so do the unclaimed legacy names."""
    await service.games.ratings_written()
    return await service.recorder.db(service.profiles.leaderboard, BOARD_KINDS[board], limit)


@router.get("/api/players/{name:path}")
async def player(
    service: ServiceDep, name: str = NAME_PATH, legacy: bool = Query(False, description="the legacy entry of this name, from before accounts"),
) -> dict[str, Any]:
    """A player's page: rating, its history after each rated game (oldest first), recent
    finished games, win rates by variant and by number of players, and the games under way
    (those waiting for the player's move first). An account's, a bot's, a guest's, or with
    `legacy` an entry from before accounts."""
    # A name with a character no name may hold names nobody (and PostgreSQL refuses a NUL).
    await service.games.ratings_written()
    found = None if refused_character(name) else await service.recorder.db(service.profiles.profile, name, legacy)
    if found is None:
        raise NotFound("no_player", f"no player called {name!r} has played here")
    return found


@router.get("/api/finished")
async def finished_games(
    service: ServiceDep,
    player: str | None = Query(None, max_length=40, description="only the games this player sat in"),
    limit: int = Query(30, ge=1, le=100),
) -> list[dict[str, Any]]:
    """Finished games, newest first, with the turns each took."""
    wrong = None if player is None else refused_character(player)
    if wrong is not None:
        raise Invalid("bad_name", f"player: the name holds {wrong}, which no name may hold")
    return await service.recorder.db(service.profiles.finished_of, player, limit)


router.add_api_route("/leaderboard", page("leaderboard"), include_in_schema=False)
router.add_api_route("/rules", page("rules"), include_in_schema=False)
router.add_api_route("/player/{name:path}", page("player"), include_in_schema=False)  # a name may hold a /
