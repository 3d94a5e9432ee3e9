"""Players and ratings: the leaderboard, a profile per player name, finished games by turns.

Its own router, so the game service does not grow: create_app includes it. Pages are the
pages player, leaderboard and rules (see `cantstop.web.pages`); their data comes from here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import HTMLResponse

from cantstop.core.record import Event
from cantstop.web.describe import display_name, summary_json
from cantstop.web.errors import ApiError
from cantstop.web.pages import page_response
from cantstop.web.storage import Rating, Storage, StoredGame

router = APIRouter()
NAME_PATH = Path(max_length=40, description="a person's name, or a bot's as 'bot:NAME'")
TURNS_KEPT = 10_000  # finished games never change: their turn counts are kept, up to this many


def rating_json(r: Rating) -> dict[str, Any]:
    return {"name": r.name, "display": display_name(r.name), "rating": round(r.ordinal, 2), "mu": round(r.mu, 2),
            "sigma": round(r.sigma, 2), "games": r.games, "wins": r.wins}


_turns: dict[str, int] = {}


def turns(game: StoredGame, events: list[Event]) -> int | None:
    """The turns a finished game took (busted turns count), replayed once and then remembered."""
    if game.id not in _turns:
        if game.first is None:
            return None
        if len(_turns) >= TURNS_KEPT:
            _turns.clear()
        _turns[game.id] = game.record(events).final().turn
    return _turns[game.id]


def finished(storage: Storage, name: str | None, limit: int) -> list[dict[str, Any]]:
    """Finished games as the game lists show them, each with the turns it took."""
    return [{**summary_json(g), "turns": turns(g, events)} for g, events in storage.finished_games(name, limit)]


def profile(storage: Storage, name: str) -> dict[str, Any] | None:
    """A player's rating, history and games (finished ones, then those under way); None for a
    name that sits in no game here."""
    rating = storage.ratings([name]).get(name)
    games = finished(storage, name, 20)
    playing = [summary_json(g) for g in storage.games(("waiting", "playing"), 20, player=name)]
    if rating is None and not games and not playing:
        return None
    history = [{"game": p.game_id, "at": p.at.isoformat(), "rating": round(p.ordinal, 2), "mu": round(p.mu, 2), "sigma": round(p.sigma, 2)}
               for p in storage.rating_history(name)]
    return {"name": name, "display": display_name(name), "bot": name.startswith("bot:"),
            "rating": rating_json(rating) if rating else None, "history": history, "games": games,
            "playing": playing}


def run(request: Request) -> tuple[Storage, Callable[..., Awaitable[Any]]]:
    """The app's storage, and its way of calling storage off the event loop."""
    service = request.app.state.service
    return service.storage, service.recorder.db


@router.get("/api/players")
async def players(request: Request, limit: int = Query(50, ge=1, le=200)) -> list[dict[str, Any]]:
    """The leaderboard: players and bots by rating (openskill, mu - 3 sigma), with display names."""
    storage, db = run(request)
    return [rating_json(r) for r in await db(storage.leaderboard, limit)]


@router.get("/api/players/{name:path}")
async def player(request: Request, name: str = NAME_PATH) -> dict[str, Any]:
    """A player's rating, its history after each rated game (oldest first), and recent finished games."""
    storage, db = run(request)
    found = await db(profile, storage, name)
    if found is None:
        raise ApiError(404, "no_player", f"no player called {name!r} has played here")
    return found  # type: ignore[no-any-return]


@router.get("/api/finished")
async def finished_games(
    request: Request,
    player: str | None = Query(None, max_length=40, description="only the games this player sat in"),
    limit: int = Query(30, ge=1, le=100),
) -> list[dict[str, Any]]:
    """Finished games, newest first, with the turns each took."""
    storage, db = run(request)
    return await db(finished, storage, player, limit)  # type: ignore[no-any-return]


def page(name: str) -> Callable[[], Awaitable[HTMLResponse]]:
    async def serve() -> HTMLResponse:
        return page_response(name)

    return serve


router.add_api_route("/leaderboard", page("leaderboard"), include_in_schema=False)
router.add_api_route("/rules", page("rules"), include_in_schema=False)
router.add_api_route("/player/{name:path}", page("player"), include_in_schema=False)  # a name may hold a /
