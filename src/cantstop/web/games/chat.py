"""Chat in each game: players and spectators write plain text, short and rate-limited;
a player can mute the spectators. While a rated game is on, players do not see what
spectators write (nobody coaches a player); they are shown all of it when the game ends.

Every message is stored before anyone is sent it, as a move is, and the mute with the
game: a game read back (after a restart, in another process, or once a finished game was
dropped from memory) has its chat. A game in memory keeps its last few messages, for
whoever connects next. The process that stores a message passes it to its clients at once;
with several server processes on PostgreSQL the others hear it by NOTIFY, sent with the
insert. The sender's process hears its own notice too and passes nothing on twice (a
message is known by its number, a mute by its state): its clients never wait on its
LISTEN connection, which is not up yet when the server starts.

A message is kept from the connections whose account blocks its author's (`social.blocks`),
and a silenced account writes nothing (`identity.moderation`).
"""

from __future__ import annotations

import asyncio
import json
import unicodedata
from bisect import insort
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import icu

from cantstop.web.db.recorder import Recorder
from cantstop.web.db.rows import CHAT_CHARS, CHAT_CODE_POINTS
from cantstop.web.db.values import ChatLine
from cantstop.web.errors import Invalid, NotAllowed
from cantstop.web.identity.moderation import Moderation
from cantstop.web.names import refused_character
from cantstop.web.spoof import invisible_character

if TYPE_CHECKING:
    from cantstop.web.games.live import LiveGame

MAX_CHAT = CHAT_CHARS  # characters of one message
HISTORY = 50  # messages a newcomer is shown


@dataclass
class ChatRoom:
    messages: list[dict[str, Any]] = field(default_factory=list)  # the last HISTORY chat frames, in the order said
    spectators_muted: bool = False
    revealed: bool = False  # a rated game's players have been shown the spectators' messages
    authors: dict[int, int] = field(default_factory=dict)  # message number -> its author's account, if signed in

    @classmethod
    def stored(cls, lines: list[ChatLine], muted: bool, revealed: bool) -> ChatRoom:
        """The chat of a game read back from storage."""
        kept = lines[-HISTORY:]
        return cls([line.frame() for line in kept], muted, revealed, authors_of(kept))

    def read_again(self, lines: list[ChatLine], muted: bool) -> None:
        """The chat as storage holds it now (a deleted account's lines renamed), keeping any
        message heard while it was read."""
        heard, authors = self.messages, self.authors
        kept = lines[-HISTORY:]
        self.messages, self.authors = [line.frame() for line in kept], authors_of(kept)
        self.spectators_muted = muted
        for frame in heard:
            self.take(frame, authors.get(frame.get("id", -1)))

    def json(self, for_player: bool = False, hiding: bool = False, blocked: frozenset[int] = frozenset()) -> dict[str, Any]:
        """The recent messages and the mute, as a client is sent them on connecting: a player
        of a rated game under way (`for_player`, `hiding`) without the spectators' messages,
        and nobody the messages of an account it blocks (`blocked`)."""
        shown = [m for m in self.messages if not (for_player and hiding and m["seat"] is None) and self.authors.get(m["id"]) not in blocked]
        return {"messages": shown, "spectators_muted": self.spectators_muted}

    def take(self, frame: dict[str, Any], author: int | None = None) -> bool:
        """Keep what a frame says (a message's author's account, if any); False for what is
        known already: a message kept (read with the game, or heard again as the notice of
        the process that stored it), a mute as it stands."""
        if frame["type"] != "chat":
            muted = bool(frame["spectators_muted"])
            changed, self.spectators_muted = muted != self.spectators_muted, muted
            return changed
        if any(m["id"] == frame["id"] for m in self.messages):
            return False
        insort(self.messages, frame, key=lambda m: m["id"])  # another process's message may come late
        if author is not None:
            self.authors[frame["id"]] = author
        for gone in self.messages[:-HISTORY]:
            self.authors.pop(gone["id"], None)
        del self.messages[:-HISTORY]
        return True


def authors_of(lines: list[ChatLine]) -> dict[int, int]:
    return {line.id: line.account_id for line in lines if line.id is not None and line.account_id is not None}


def characters(text: str) -> int:
    """How many characters a reader counts in `text`: its grapheme clusters (Unicode's
    extended ones, as ICU and the browser's Intl.Segmenter find them), so an accent written
    apart from its letter, a flag or a family emoji is one character, not two or seven."""
    breaks = icu.BreakIterator.createCharacterInstance(icu.Locale.getRoot())
    breaks.setText(text)
    return sum(1 for _ in breaks)


def chat_text(text: str) -> str:
    """A message as plain text: NFC, trimmed, 1..MAX_CHAT characters as a reader counts them
    (`characters`) and at most CHAT_CODE_POINTS code points, nothing invisible: what a name
    may not hold, a chat line may not either (but an emoji's presentation selector)."""
    text = unicodedata.normalize("NFC", text).strip()
    wrong = refused_character(text) or invisible_character(text, emoji=True)
    if wrong is not None:
        raise Invalid("bad_chat", f"a chat message is plain text on one line: it holds {wrong}")
    count = characters(text)
    if not 1 <= count <= MAX_CHAT:
        raise Invalid("bad_chat", f"a chat message has 1..{MAX_CHAT} characters, not {count}")
    if len(text) > CHAT_CODE_POINTS:  # a few characters piled high with accents, which no reader needs
        raise Invalid("bad_chat", f"a chat message holds at most {CHAT_CODE_POINTS} code points (letters with their accents), not {len(text)}")
    return text


class Chat:
    def __init__(self, recorder: Recorder, send: Callable[[LiveGame, str, set[asyncio.Queue[str]] | None], None]) -> None:
        self.recorder = recorder
        self.storage = recorder.storage
        self.send = send  # to every client of a game, as text
        self.moderation = Moderation(recorder.storage)

    async def say(self, game: LiveGame, seat: int | None, spectator: str, text: str, account: int | None = None) -> None:
        """`seat` (None for a spectator, known as `spectator`, signed in as `account` if so)
        says `text` to everyone in the game: stored first, then sent (refused, nothing stored,
        if spectators are muted, the author's account is silenced, or the text is no chat
        message). A player's line is their seat's account's; a spectator's, the connection's."""
        if seat is None and game.chat.spectators_muted:
            raise NotAllowed("muted", "the players have muted spectators: only players can write now")
        said = chat_text(text)
        author = account if seat is None else game.meta.seats[seat].account_id
        if author is not None:
            (await self.recorder.db(self.moderation.standing, author)).check_chat()
        if seat is None:
            line = ChatLine(game.meta.id, None, spectator, said, author)
        else:
            line = ChatLine(game.meta.id, seat, game.names[seat], said, author)
        stored = await self.recorder.db(self.storage.say, line)
        self.heard(game, stored.frame(), stored.account_id)

    async def mute(self, game: LiveGame, seat: int | None, on: bool) -> None:
        if seat is None:
            raise NotAllowed("not_seated", "only a player of this game can mute spectators")
        frame = {"type": "chat_mute", "spectators_muted": on, "by": game.names[seat]}
        await self.recorder.db(self.storage.mute_spectators, game.meta.id, on, json.dumps(frame))
        self.heard(game, frame)

    def received(self, game: LiveGame, text: str) -> None:
        """A frame relayed by a server process (JSON text, with its author's account): for this game's clients."""
        frame = json.loads(text)
        author = frame.pop("author", None)
        self.heard(game, frame, author)

    def heard(self, game: LiveGame, frame: dict[str, Any], author: int | None = None) -> None:
        """Keep a frame and pass it on, once: a spectator's message of a rated game under way
        to the spectators only; a message to nobody whose account blocks its author's."""
        if not game.chat.take(frame, author):
            return
        hidden = frame["type"] == "chat" and frame["seat"] is None and game.hides_spectators
        blind = game.connections.blind_to(author)
        to = game.connections.spectators if hidden else None
        if blind:
            to = (game.connections.listeners if to is None else to) - blind
        self.send(game, json.dumps(frame), to)

    async def catch_up(self, game: LiveGame) -> None:
        """Read the game's chat again and pass on what this process missed (its notices lost
        while its connection to PostgreSQL was down)."""
        lines, muted = await self.recorder.db(self.storage.chat, game.meta.id, HISTORY)
        for line in lines:
            self.heard(game, line.frame(), line.account_id)
        if muted != game.chat.spectators_muted:
            self.heard(game, {"type": "chat_mute", "spectators_muted": muted, "by": None})
