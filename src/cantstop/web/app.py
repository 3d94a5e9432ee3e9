"""The FastAPI application: JSON API under /api, live updates on /ws, the client's files at /."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from fractions import Fraction
from importlib.resources import files
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI, Query, Request, Response, WebSocket, WebSocketDisconnect
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from cantstop.bots import Level, bot_names, get_bot
from cantstop.bots.advice import advise
from cantstop.core.odds import next_roll
from cantstop.core.record import apply_event, write_record
from cantstop.core.state import Phase, State
from cantstop.core.variant import PRESETS
from cantstop.web import players
from cantstop.web.describe import action_json, log_lines, state_json, summary_json
from cantstop.web.notify import listen
from cantstop.web.schemas import ActionIn, Created, Joined, JoinIn, NewGame, Rematch, WsAction
from cantstop.web.service import ApiError, GameService
from cantstop.web.storage import Storage, new_token

STATIC = Path(str(files("cantstop.web") / "static"))
MAX_BODY = 8 * 1024  # bytes of an HTTP request body
MAX_MESSAGE = 2 * 1024  # bytes of one WebSocket message
RATE = 20.0  # WebSocket messages per second a connection may send on average
BURST = 40.0  # ... and at once


def cookie_name(game_id: str) -> str:
    return f"cantstop_{game_id}"


def create_app(
    storage: Storage,
    bot_delay: float = 0.8,
    origins: tuple[str, ...] = (),
) -> FastAPI:
    """The whole server around one storage; `origins` are extra origins allowed on WebSockets."""
    games = GameService(storage, bot_delay)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await games.resume()
        listener = None
        if storage.shared:  # other processes may serve the same games: hear of their moves
            listener = asyncio.create_task(listen(storage.url, games.notified, games.catch_up_all))
        yield
        if listener is not None:
            listener.cancel()
            await asyncio.gather(listener, return_exceptions=True)
        await games.close()

    app = FastAPI(title="Can't Stop", version="1", lifespan=lifespan, description="Play Can't Stop: create games, join seats, act, watch.")
    app.state.games = games
    app.add_middleware(BodyLimit)

    @app.exception_handler(ApiError)
    async def api_error(_: Request, error: ApiError) -> JSONResponse:
        return JSONResponse(error.json(), status_code=error.status)

    # Every refusal has the same shape, an `error` code and a `message`, whoever refuses.
    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, error: RequestValidationError) -> JSONResponse:
        return JSONResponse(invalid_json(error), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, error: StarletteHTTPException) -> JSONResponse:
        if isinstance(error.__cause__, BodyTooLarge):  # FastAPI turns a failed body read into a 400
            return JSONResponse(TOO_LARGE, status_code=413)
        code = HTTP_CODES.get(error.status_code, "http_error")
        return JSONResponse({"error": code, "message": str(error.detail)}, status_code=error.status_code, headers=error.headers)

    async def token_of(request: Request | WebSocket, game_id: str) -> str | None:
        auth = request.headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            return auth[7:].strip()
        return request.cookies.get(cookie_name(game_id))

    # ------------------------------------------------------------- the API
    @app.get("/api/variants")
    async def variants() -> dict[str, Any]:
        """The rule presets and the bots (by name and by level) a seat may hold."""
        infos = [get_bot(n) for n in bot_names()]
        return {
            "variants": [{"name": n, "min_players": v.min_players, "max_players": v.max_players} for n, v in PRESETS.items()],
            "bots": [{"name": b.name, "level": b.level.value, "description": b.description, "display": b.display} for b in infos],
            "levels": [level.value for level in Level if any(b.level is level for b in infos)],
        }

    @app.post("/api/games", status_code=201, response_model_exclude_none=True)
    async def create_game(body: NewGame) -> Created:
        """Create a game: a variant and 1-4 seats, each 'open' or 'bot:NAME'; `take` seats
        open ones at once for people at this screen (their tokens are in the reply only)."""
        people = {t.seat: (t.name, new_token()) for t in body.take}
        if len(people) < len(body.take):
            raise ApiError(422, "bad_seat", "each seat can be taken once")
        game_id = await games.create(body.variant, body.seats, people)
        taken = [Joined(game=game_id, seat=s, token=t) for s, (_, t) in people.items()]
        return Created(id=game_id, url=f"/game/{game_id}", taken=taken or None)

    @app.post("/api/games/{game_id}/rematch", status_code=201, response_model_exclude_none=True)
    async def rematch(game_id: str, body: Rematch, request: Request) -> Created:
        """Play a finished game again: same variant, seats and bots; the seats this client holds
        (its cookie or bearer token, and `tokens`) are taken again under the same names, the
        other people's seats are open. The finished game links to it (`rematch`); once only."""
        await games.live(game_id)  # an unknown game is a 404 before any token is looked at
        cookie = await token_of(request, game_id)
        seats = set()
        for token in [*body.tokens, *([cookie] if cookie else [])]:
            seat = await games.seat_of(game_id, token)
            if seat is None:
                raise ApiError(403, "bad_token", "a token holds no seat in this game; nothing was created")
            seats.add(seat)
        new_id, tokens = await games.rematch(game_id, seats)
        taken = [Joined(game=new_id, seat=s, token=t) for s, t in tokens.items()]
        return Created(id=new_id, url=f"/game/{new_id}", taken=taken)

    @app.get("/api/games")
    async def list_games(finished: bool = Query(False, description="finished games instead of live ones")) -> list[dict[str, Any]]:
        status = ("over",) if finished else ("waiting", "playing")
        return [summary_json(g) for g in await games.db(storage.games, status, 100)]

    @app.get("/api/games/{game_id}")
    async def get_game(game_id: str, request: Request) -> dict[str, Any]:
        """The game as everyone sees it, its log, and which seat this client holds."""
        game = await games.live(game_id)
        async with game.lock:
            await games.refresh(game)
        you = await games.seat_of(game_id, await token_of(request, game_id))
        return {**game.snapshot(), "you": you, "log": game.log}

    @app.post("/api/games/{game_id}/join")
    async def join(game_id: str, body: JoinIn, response: Response) -> Joined:
        """Take an open seat under a name before the game starts; the token is returned once and
        set as a cookie. With `screen`, for one more person at a screen that holds seats already
        (tokens kept by the page, or the cookie of a seat joined online), no cookie is set: the
        token is in the reply only, and the cookie keeps the seat it holds."""
        token = await games.join(game_id, body.seat, body.name)
        if not body.screen:
            response.set_cookie(cookie_name(game_id), token, httponly=True, samesite="strict", max_age=90 * 86400)
        return Joined(game=game_id, seat=body.seat, token=token)

    @app.post("/api/games/{game_id}/actions")
    async def act(game_id: str, body: ActionIn, request: Request) -> dict[str, Any]:
        """Play 'roll', 'stop' or a choice, made on state `version`; the seat comes from the token."""
        await games.live(game_id)  # an unknown game is a 404 before any token is looked at
        seat = await games.seat_of(game_id, await token_of(request, game_id))
        if seat is None and await token_of(request, game_id):
            raise ApiError(403, "bad_token", "this token holds no seat in this game")
        return await games.act(game_id, seat, body.version, body.action)

    @app.get("/api/games/{game_id}/record", response_class=PlainTextResponse)
    async def record(game_id: str) -> PlainTextResponse:
        """The game in the engine's record format (a download)."""
        game = await games.live(game_id)
        if game.record is None:
            raise ApiError(409, "not_started", "the game has not started: no record yet")
        return PlainTextResponse(
            write_record(game.record),
            headers={"Content-Disposition": f'attachment; filename="cantstop-{game_id}.txt"'},
        )

    @app.get("/api/games/{game_id}/replay")
    async def replay(game_id: str) -> dict[str, Any]:
        """Every position of the game, with the log lines that led to it."""
        game = await games.live(game_id)
        if game.record is None:
            raise ApiError(409, "not_started", "the game has not started: nothing to replay")
        state = game.record.start()
        frames = [{"version": 0, "turn": 0, "state": state_json(state), "log": game.log[:1]}]
        for version, item in enumerate(list(game.record.events), 1):
            before, state = state, apply_event(state, item)
            frames.append({"version": version, "turn": state.turn, "state": state_json(state), "log": log_lines(before, item, state, game.names)})
        return {**game.snapshot(), "frames": frames}

    @app.get("/api/games/{game_id}/odds")
    async def odds(game_id: str) -> dict[str, Any]:
        """Exact odds for the player to move, and the strongest bot's suggestion."""
        game = await games.live(game_id)
        if game.state is None or game.state.is_over:
            raise ApiError(409, "no_odds", "odds are for a game in progress")
        return await asyncio.to_thread(odds_json, game.state)

    @app.get("/api/leaderboard")
    async def leaderboard() -> list[dict[str, Any]]:
        """Named players and bots by rating (openskill, mu - 3 sigma)."""
        return [
            {"name": r.name, "rating": round(r.ordinal, 2), "mu": round(r.mu, 2), "sigma": round(r.sigma, 2), "games": r.games, "wins": r.wins}
            for r in await games.db(storage.leaderboard)
        ]

    # ------------------------------------------------------------ live play
    @app.websocket("/ws/games/{game_id}")
    async def live(ws: WebSocket, game_id: str) -> None:
        origin = ws.headers.get("origin")
        if origin and not origin_allowed(origin, ws.headers.get("host", ""), origins):
            await ws.close(code=1008, reason="origin not allowed")
            return
        try:
            game = await games.live(game_id)
        except ApiError as error:
            await ws.close(code=1008, reason=error.message[:100])
            return
        await ws.accept()
        seat = await games.seat_of(game_id, await token_of(ws, game_id))
        queue: asyncio.Queue[str] = asyncio.Queue()
        sender: asyncio.Task[None] | None = None
        bucket = TokenBucket(RATE, BURST)
        try:
            async with game.lock:  # no update can slip between the hello and the first update
                await games.refresh(game)
                game.listeners.add(queue)
                await ws.send_json({"type": "hello", "you": seat, "game": game.snapshot(), "log": game.log})
            sender = asyncio.create_task(forward(ws, queue))
            while True:
                frame = await ws.receive()
                if frame["type"] == "websocket.disconnect":
                    break
                reply = await handle(frame.get("text"), bucket, game_id, seat)
                if reply is not None:
                    await ws.send_json(reply)
                    if reply.get("error") == "too_fast":
                        await ws.close(code=1008, reason="too many messages")
                        break
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            game.listeners.discard(queue)
            if sender is not None:
                sender.cancel()
            games.forget_if_idle(game)

    async def handle(text: str | None, bucket: TokenBucket, game_id: str, seat: int | None) -> dict[str, Any] | None:
        if not bucket.take():
            return {"type": "error", "error": "too_fast", "message": f"more than {RATE:g} messages a second"}
        if text is None:
            return {"type": "error", "error": "bad_message", "message": "messages are JSON text: a binary message is not read"}
        if len(text.encode()) > MAX_MESSAGE:
            return {"type": "error", "error": "too_big", "message": f"messages are at most {MAX_MESSAGE} bytes"}
        try:
            data = json.loads(text)
            if isinstance(data, dict) and data.get("type") == "ping":
                return {"type": "pong"}
            message = WsAction.model_validate(data)
        except (ValueError, ValidationError) as error:
            return {"type": "error", "error": "bad_message", "message": f"expected {{\"type\": \"action\", \"version\": N, \"action\": ...}}: {str(error)[:300]}"}
        try:
            await games.act(game_id, seat, message.version, message.action)
        except ApiError as error:
            return {"type": "error", **error.json()}
        return {"type": "ok", "version": message.version + 1}

    # ---------------------------------------------------------- the client
    @app.get("/", include_in_schema=False)
    async def home() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/game/{game_id}", include_in_schema=False)
    async def game_page(game_id: str) -> FileResponse:
        return FileResponse(STATIC / "game.html")

    app.include_router(players.router)  # the leaderboard, profiles and the rules page
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


async def forward(ws: WebSocket, queue: asyncio.Queue[str]) -> None:
    try:
        while True:
            await ws.send_text(await queue.get())
    except (WebSocketDisconnect, RuntimeError, asyncio.CancelledError):
        pass


HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}


def invalid_json(error: RequestValidationError) -> dict[str, Any]:
    """A body that does not fit the endpoint's model: each problem as 'field: what is wrong'."""
    detail = jsonable_encoder(error.errors(), exclude={"input", "url"})
    problems = []
    for item in detail[:5]:
        if item.get("type") == "json_invalid":  # its loc is a character position, not a field
            problems.append(f"the body is not JSON ({item.get('ctx', {}).get('error', 'unreadable')})")
            continue
        field = ".".join(str(part) for part in item.get("loc", ())[1:]) or "the body"
        problems.append(f"{field}: {item.get('msg', 'invalid')}")
    return {"error": "bad_request", "message": "the request does not fit the API: " + "; ".join(problems), "detail": detail}


def origin_allowed(origin: str, host: str, extra: tuple[str, ...]) -> bool:
    """Browsers send Origin: only pages served by this server (or listed ones) may connect."""
    return urlsplit(origin).netloc == host or origin in extra


class TokenBucket:
    """Allows `rate` messages a second on average and `burst` at once."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst, self.tokens, self.last = rate, burst, burst, time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


def percent(x: Fraction) -> float:
    return round(float(x) * 100, 2)


def odds_json(state: State) -> dict[str, Any]:
    """Bust chance of the next roll, each column's chance, each choice's risk, and advice."""
    result: dict[str, Any] = {"phase": state.phase.name.lower()}
    if state.phase in (Phase.ROLL, Phase.DECIDE):
        nxt = next_roll(state)
        result["bust"] = percent(nxt.bust)
        result["columns"] = {
            str(c): percent(sum((p for choice, p in nxt.choices.items() if c in choice), Fraction(0)))
            for c in state.variant.columns
        }
        result["expected_steps"] = round(float(nxt.expected_steps), 3)
    if state.phase is Phase.CHOOSE:
        result["choices"] = [
            {"choice": list(option), "bust_after": percent(next_roll(state.play(option)).bust)} for option in state.options
        ]
    if state.phase in (Phase.CHOOSE, Phase.DECIDE):
        for level in ("expert", "hard", "medium", "easy"):
            try:
                advice = advise(state, get_bot(level).name)
            except ValueError:
                continue
            result["advice"] = {"bot": get_bot(level).name, "action": action_json(advice.action), "reason": advice.reason}
            break
    return result


Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


class BodyLimit:
    """Refuses HTTP request bodies over MAX_BODY bytes with a JSON 413, before any parsing."""

    def __init__(self, app: Callable[[MutableMapping[str, Any], Receive, Send], Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: MutableMapping[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > MAX_BODY:
            await too_large(send)
            return
        seen = 0

        async def limited() -> MutableMapping[str, Any]:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > MAX_BODY:
                raise BodyTooLarge
            return message

        try:
            await self.app(scope, limited, send)
        except BodyTooLarge:
            await too_large(send)


class BodyTooLarge(Exception):
    pass


TOO_LARGE = {"error": "too_large", "message": f"request bodies are at most {MAX_BODY} bytes"}


async def too_large(send: Send) -> None:
    body = json.dumps(TOO_LARGE).encode()
    await send({"type": "http.response.start", "status": 413, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})
