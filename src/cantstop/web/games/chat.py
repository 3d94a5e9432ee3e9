"""Chat in each game: players and spectators write plain text, short and rate-limited;
a player can mute the spectators. While a rated game is on, players do not see what
spectators write (nobody coaches a player); they are shown all of it when the game ends.

Messages live in the game's memory (the last few, for whoever connects next), not in the
database. With several server processes on PostgreSQL they travel by NOTIFY, like moves:
every process, the sender's too, hears each message once and passes it to its clients.
"""

from __future__ import annotations

import asyncio
import json
import unicodedata
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from cantstop.web.db.recorder import Recorder
from cantstop.web.errors import Invalid, NotAllowed
from cantstop.web.names import refused_character

if TYPE_CHECKING:
    from cantstop.web.games.live import LiveGame

MAX_CHAT = 200  # characters of one message
HISTORY = 50  # messages a newcomer is shown


@dataclass
class ChatRoom:
    messages: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=HISTORY))
    spectators_muted: bool = False
    revealed: bool = False  # a rated game's players have been shown the spectators' messages

    def json(self, for_player: bool = False, hiding: bool = False) -> dict[str, Any]:
        """The recent messages and the mute, as a client is sent them on connecting: a player
        of a rated game under way (`for_player`, `hiding`) without the spectators' messages."""
        shown = [m for m in self.messages if not (for_player and hiding and m["seat"] is None)]
        return {"messages": shown, "spectators_muted": self.spectators_muted}

    def take(self, frame: dict[str, Any]) -> None:
        if frame["type"] == "chat":
            self.messages.append(frame)
        else:
            self.spectators_muted = bool(frame["spectators_muted"])


def chat_text(text: str) -> str:
    """A message as plain text: NFC, trimmed, 1..MAX_CHAT characters, nothing invisible."""
    text = unicodedata.normalize("NFC", text).strip()
    wrong = refused_character(text)
    if wrong is not None:
        raise Invalid("bad_chat", f"a chat message is plain text on one line: it holds {wrong}")
    if not 1 <= len(text) <= MAX_CHAT:
        raise Invalid("bad_chat", f"a chat message has 1..{MAX_CHAT} characters, not {len(text)}")
    return text


class Chat:
    def __init__(self, recorder: Recorder, send: Callable[[LiveGame, str, set[asyncio.Queue[str]] | None], None]) -> None:
        self.recorder = recorder
        self.storage = recorder.storage
        self.send = send  # to every client of a game, as text

    async def say(self, game: LiveGame, seat: int | None, spectator: str, text: str) -> None:
        """`seat` (None for a spectator, known as `spectator`) says `text` to everyone in the game."""
        if seat is None and game.chat.spectators_muted:
            raise NotAllowed("muted", "the players have muted spectators: only players can write now")
        name = game.names[seat] if seat is not None else spectator
        stamp = datetime.now(UTC).isoformat(timespec="seconds")
        await self._deliver(game, {"type": "chat", "seat": seat, "name": name, "text": chat_text(text), "at": stamp})

    async def mute(self, game: LiveGame, seat: int | None, on: bool) -> None:
        if seat is None:
            raise NotAllowed("not_seated", "only a player of this game can mute spectators")
        await self._deliver(game, {"type": "chat_mute", "spectators_muted": on, "by": game.names[seat]})

    async def _deliver(self, game: LiveGame, frame: dict[str, Any]) -> None:
        text = json.dumps(frame)
        if self.storage.shared:  # it comes back to every process, this one too
            await self.recorder.db(self.storage.notify_chat, game.meta.id, text)
        else:
            self.received(game, text)

    def received(self, game: LiveGame, text: str) -> None:
        frame = json.loads(text)
        game.chat.take(frame)
        hidden = frame["type"] == "chat" and frame["seat"] is None and game.hides_spectators
        self.send(game, text, game.listeners - game.seated if hidden else None)
