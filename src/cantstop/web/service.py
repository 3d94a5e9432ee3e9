"""One process's game server: the lobby, the live games, the bot seats and the record
writer wired together around one storage. Each part lives in its own module."""

from __future__ import annotations

from cantstop.core.dice import SecureDice
from cantstop.web.bot_seats import BotSeats
from cantstop.web.chat import Chat
from cantstop.web.games import LiveGames
from cantstop.web.lobby import Lobby
from cantstop.web.recorder import Recorder
from cantstop.web.storage import Storage


class GameService:
    def __init__(self, storage: Storage, bot_delay: float = 0.8, bot_standby: float = 5.0) -> None:
        self.storage = storage
        self.recorder = Recorder(storage)
        self.games = LiveGames(self.recorder, SecureDice())
        self.lobby = Lobby(self.games)
        self.bots = BotSeats(self.games, bot_delay, bot_standby)
        self.chat = Chat(self.recorder, self.games.send)

    async def chat_notified(self, game_id: str, text: str) -> None:
        """Another process (or this one) relayed a chat frame: for our clients of that game."""
        game = self.games.held.get(game_id)
        if game is not None:
            self.chat.received(game, text)

    async def close(self) -> None:
        await self.bots.close()
        await self.recorder.close()
