"""The games room's WebSocket route: one socket per client and game, for updates and (for
seated clients) actions, chat and resigning."""

from __future__ import annotations

import asyncio
import json
import secrets
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import ValidationError
from sqlalchemy.exc import SQLAlchemyError

from cantstop.web.deps import ServiceDep, SettingsDep, client_address, get_limiter, token_of
from cantstop.web.errors import Refused
from cantstop.web.games.deps import account_id_of
from cantstop.web.games.live import LiveGame, parse_action
from cantstop.web.games.schemas import WsAction, WsChat, WsMute, WsPresent, WsResign
from cantstop.web.http import DB_DOWN, REFUSALS, TOO_DEEP, field_problems, refusal, too_deep
from cantstop.web.rate_limit import MESSAGE, RateLimiter
from cantstop.web.service import GameService
from cantstop.web.settings import MAX_MESSAGE

router = APIRouter()
# What `WebSocket.send_json` would send, by an encoder made once rather than one per reply.
ENCODE = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


@dataclass
class Client:
    """One WebSocket's client, as its messages are counted and answered: looked up once."""

    address: str  # what the rate limits count by
    limiter: RateLimiter
    socket_rate: float  # messages a second, for the refusal's words
    connection: str = field(default_factory=lambda: secrets.token_hex(8))  # what its messages are counted by
    spectator: str = field(default_factory=lambda: f"Spectator {secrets.token_hex(2)}")  # its chat name if it holds no seat
    here: set[int] = field(default_factory=set)  # the seats it counts as present (its cookie's, and those it holds at its screen)

    def limit(self, what: str) -> None:
        """Count one `what` (action, chat) for this client's address: TooMany past its limit."""
        self.limiter.check(what, self.address)


@router.websocket("/ws/games/{game_id}")
async def live(ws: WebSocket, game_id: str, service: ServiceDep, settings: SettingsDep) -> None:
    origin = ws.headers.get("origin")
    if origin and not origin_allowed(origin, ws.headers.get("host", ""), settings.origins):
        await ws.close(code=1008, reason="origin not allowed")
        return
    try:
        game = await service.games.live(game_id)
    except Refused as error:
        await ws.close(code=1008, reason=error.message[:100])
        return
    except SQLAlchemyError:
        await ws.close(code=1011, reason=DB_DOWN["message"][:100])
        return
    await ws.accept()
    queue: asyncio.Queue[str] = asyncio.Queue()
    sender: asyncio.Task[None] | None = None
    client = Client(client_address(ws), get_limiter(ws), settings.socket_rate)
    here = client.here
    seat: int | None = None
    try:
        connections = game.connections
        token, account_id, epoch = token_of(ws, game_id), await account_id_of(ws), connections.epoch
        seat = await service.lobby.seat_of(game_id, token, account_id)
        blocked = frozenset() if account_id is None else await service.social.blocked_by(account_id)
        async with game.lock:  # no update can slip between the hello and the first update
            await service.games.refresh(game)
            seated = seat is not None  # this connection's queue is among the players'
            connections.open(queue, seated, account_id, blocked)
            if seat is not None:
                here.add(seat)
                service.games.present(game, seat, joined=True)
            chat = game.chat.json(for_player=seat is not None, hiding=game.hides_spectators, blocked=blocked)
            hello = {"type": "hello", "you": seat, "game": game.snapshot(), "log": game.log, "chat": chat}
            presence = game.presence()
            await ws.send_json({**hello, "presence": presence, "now": presence["now"]})
        sender = asyncio.create_task(forward(ws, queue))
        while True:
            frame = await ws.receive()
            if frame["type"] == "websocket.disconnect":
                break
            if epoch != connections.epoch:  # a seat moved (a seat link used): is this one still held?
                epoch = connections.epoch
                now_held = await service.lobby.seat_of(game_id, token, account_id)
                if now_held != seat:
                    if seat is not None:
                        here.discard(seat)
                        service.games.present(game, seat, joined=False)
                        connections.seat_held(queue, False)
                        seated = False
                    seat = now_held
            reply = await handle(service, frame.get("text"), client, game, seat, account_id)
            if here and not seated:  # a screen holding seats (people at it) is a player's
                connections.seat_held(queue, True)
                seated = True
            if reply is not None:
                await ws.send_text(ENCODE(reply))
                if reply.get("error") == "too_fast":
                    await ws.close(code=1008, reason="too many messages")
                    break
    except (WebSocketDisconnect, RuntimeError):
        pass
    except SQLAlchemyError:
        await ws.close(code=1011, reason=DB_DOWN["message"][:100])
    finally:
        game.connections.close(queue)
        for held in here:
            service.games.present(game, held, joined=False)
        if sender is not None:
            sender.cancel()
        service.games.forget_if_idle(game)


ERRORS_ABOUT = {"action": "action", "resign": "action", "chat": "chat", "mute": "chat", "present": "action"}  # which part of the page shows a refusal
MODELS: dict[str, type[WsAction | WsResign | WsChat | WsMute | WsPresent]] = {
    "action": WsAction, "resign": WsResign, "chat": WsChat, "mute": WsMute, "present": WsPresent,
}
EXPECTED = (
    'send {"type": "action", "version": N, "action": ...}, {"type": "resign"}, {"type": "chat", "text": ...},'
    ' {"type": "mute", "spectators": true|false}, {"type": "present", "tokens": [...]} or {"type": "ping"}'
)


async def handle(
    service: GameService, text: str | None, client: Client, game: LiveGame, seat: int | None, account: int | None = None,
) -> dict[str, Any] | None:
    """One message from a client (signed in as `account`, if so): its answer (an error frame
    names what was wrong)."""
    if client.limiter.wait(MESSAGE, client.connection) is not None:
        return {"type": "error", "error": "too_fast", "message": f"more than {client.socket_rate:g} messages a second"}
    if text is None:
        return {"type": "error", "error": "bad_message", "message": "messages are JSON text: a binary message is not read"}
    if len(text.encode()) > MAX_MESSAGE:
        return {"type": "error", "error": "too_big", "message": f"messages are at most {MAX_MESSAGE} bytes"}
    if too_deep(text):
        return {"type": "error", **TOO_DEEP}
    try:
        data = json.loads(text)
    except ValueError as error:
        return bad_message(f"a message is JSON text, and this is not ({error}); {EXPECTED}")
    kind = data.get("type") if isinstance(data, dict) else None
    if kind == "ping":
        return {"type": "pong"}
    if kind is None:
        return bad_message(f'a message is a JSON object with a "type"; {EXPECTED}')
    if not isinstance(kind, str) or kind not in MODELS:
        return bad_message(f"no message has the type {kind!r}; {EXPECTED}")
    try:
        message = MODELS[kind].model_validate(data)
    except ValidationError as error:  # the fields named, each with what is wrong
        return {**bad_message(f"this {kind} message does not fit: {field_problems(error.errors())}"), "about": ERRORS_ABOUT[kind]}
    try:
        if isinstance(message, WsAction):
            client.limit("action")
            await service.games.act(game.meta.id, seat, message.version, parse_action(message.action))
            return {"type": "ok", "version": message.version + 1}
        if isinstance(message, WsPresent):
            await present(service, game, message.tokens, client.here)
            return None
        if message.token is not None:  # a screen holding several seats speaks (or resigns) for one of them
            seat = await service.lobby.held_seat(game.meta.id, message.token)
        if isinstance(message, WsResign):
            client.limit("action")
            await service.leaving.resign(game.meta.id, seat)
            return {"type": "ok", "resigned": seat}
        client.limit("chat")
        if isinstance(message, WsChat):
            await service.chat.say(game, seat, client.spectator, message.text, account)
        else:
            await service.chat.mute(game, seat, message.spectators)
        return None  # the message itself comes back to everyone, this client too
    except REFUSALS as error:
        return {"type": "error", "about": ERRORS_ABOUT[message.type], **refusal(error)[1]}
    except SQLAlchemyError:
        return {"type": "error", "about": ERRORS_ABOUT[message.type], **DB_DOWN}


def bad_message(message: str) -> dict[str, Any]:
    return {"type": "error", "error": "bad_message", "message": message}


async def present(service: GameService, game: LiveGame, tokens: list[str], here: set[int]) -> None:
    """A screen holding several seats (people at one screen) says so: each counts as connected."""
    seats = [await service.lobby.held_seat(game.meta.id, token) for token in tokens]
    for held in seats:
        if held not in here:
            here.add(held)
            service.games.present(game, held, joined=True)


async def forward(ws: WebSocket, queue: asyncio.Queue[str]) -> None:
    try:
        while True:
            await ws.send_text(await queue.get())
    except (WebSocketDisconnect, RuntimeError, asyncio.CancelledError):
        pass


def origin_allowed(origin: str, host: str, extra: tuple[str, ...]) -> bool:
    """Browsers send Origin: only pages served by this server (or listed ones) may connect."""
    return urlsplit(origin).netloc == host or origin in extra
