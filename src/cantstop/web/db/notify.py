"""Several server processes, one PostgreSQL: each learns of the others' moves by LISTEN/NOTIFY.

Storage sends `NOTIFY` (`pg_notify('cantstop', ...)`) inside the transaction or statement
that stores a change (so the notice goes out exactly when it is committed): a group commit
one notice for the games it moved, `'<game> <version> <game> <version> ...'`; a game's
seats changed, `'<game> -1'`; a chat frame, `'<game> <frame JSON>'`. This module's listener
hands each game's news to the game service, which catches up from the database and
broadcasts to its own clients. News that is about no game (an account's blocks changed)
goes the same way under a topic starting with `~`, which no game id does:
'~blocks <account id>'.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import psycopg
from sqlalchemy import text
from sqlalchemy.engine import make_url

CHANNEL = "cantstop"  # the channel of game changes
# Games named in one notice of a group commit: a notice is at most 7,999 bytes, and a game's
# entry at most 45 (an id of up to 32 characters, a version, two spaces).
NOTICE_GAMES = 150
NOTIFY = text("SELECT pg_notify(:channel, :payload)")  # its payload: `notice(...)`

log = logging.getLogger("cantstop.web")


TOPIC = "~"  # what starts a notice's first word when it is about no game


def notice(game_id: str, news: int | str) -> dict[str, str]:
    """NOTIFY's parameters: a game's new version (-1: its seats changed) or a chat frame (JSON
    text); or, for a topic (`TOPIC...`) in place of the game, the news of that topic."""
    return {"channel": CHANNEL, "payload": f"{game_id} {news}"}


def news_of(payload: str) -> list[tuple[str, str]]:
    """A notice's news, game by game: (game, version) pairs, or one (game, chat frame JSON),
    or one (topic, its news).

    Raises ValueError for a payload that is none of these (a game without its version)."""
    game_id, _, rest = payload.partition(" ")
    if game_id.startswith(TOPIC) or rest.startswith("{"):
        return [(game_id, rest)]
    words = payload.split(" ")
    if len(words) % 2:
        raise ValueError(f"a notice names games and their versions in pairs, not {payload[:80]!r}")
    return list(zip(words[::2], words[1::2], strict=True))


def libpq_url(url: str) -> str:
    """The SQLAlchemy URL as psycopg takes it (no '+psycopg' driver part)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


async def listen(
    url: str,
    on_change: Callable[[str, int], Awaitable[None]],
    on_listen: Callable[[], Awaitable[None]],
    on_chat: Callable[[str, str], Awaitable[None]],
    on_news: Callable[[str, str], Awaitable[None]],
    listening: asyncio.Event,
) -> None:
    """Listen until cancelled, reconnecting after a lost connection. Once LISTEN has run (the
    first time too: the server served from its start), `on_listen` catches up with what the
    notices sent meanwhile said, and then `listening` is set until the connection is lost.
    A notice is '<game> <version> ...' (the games a group commit moved; -1: a game's seats
    changed), '<game> <chat frame JSON>' or '<topic> <news>' (`on_news`)."""
    delay = 0.5
    while True:
        try:
            async with await psycopg.AsyncConnection.connect(libpq_url(url), autocommit=True) as conn:
                await conn.execute(f"LISTEN {CHANNEL}")
                await on_listen()
                listening.set()
                delay = 0.5
                async for note in conn.notifies():
                    try:
                        news = news_of(note.payload)
                    except ValueError:
                        log.exception("a notice of no game")
                        continue
                    for game_id, told in news:
                        try:
                            if game_id.startswith(TOPIC):
                                await on_news(game_id, told)
                            elif told.startswith("{"):
                                await on_chat(game_id, told)
                            else:
                                await on_change(game_id, int(told))
                        except Exception:  # one game's trouble must not stop the others' updates
                            log.exception("catching up game %s", game_id)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            listening.clear()
            log.warning("LISTEN connection lost or refused (%s); reconnecting in %.1fs", error, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 10)
