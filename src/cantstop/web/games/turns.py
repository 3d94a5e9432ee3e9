""""Your turn" as a webhook: when a turn passes to a signed-in person who set a hook address,
a signed JSON POST goes there (`web/webhooks.py` checks the address at every delivery and
refuses private and loopback ones unless the operator allows them).

Only the process that stored the move that passed the turn sends it, so a turn is announced
once however many server processes share the games; the POST is queued and retried off the
game's path, so a slow receiver never holds a game up.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from cantstop.web.db.recorder import Recorder
from cantstop.web.db.values import SeatKind
from cantstop.web.games.describe import display_names
from cantstop.web.games.live import LiveGame, LiveGames
from cantstop.web.identity.hooks import Hooks
from cantstop.web.webhooks import WebhookSender, time_text


def your_turn(game: LiveGame, seat: int, origin: str) -> dict[str, Any]:
    """What a hook receives: which game waits for whom, and where to play it."""
    return {
        "event": "your_turn",
        "game": game.meta.id,
        "url": f"{origin}/game/{game.meta.id}",
        "seat": seat,
        "version": game.version,
        "variant": game.meta.variant,
        "rated": game.meta.rated,
        "players": display_names(game.names),
        "sent": time_text(datetime.now(UTC)),
    }


class TurnHooks:
    """Hears each turn that begins (`LiveGames.on_turn`) and posts to the seat's account's
    hook; other rooms post their events to an account's hook through it (`post`)."""

    def __init__(self, games: LiveGames, recorder: Recorder, hooks: Hooks, sender: WebhookSender, origin: str = "") -> None:
        self.recorder = recorder
        self.hooks = hooks  # the app's own, so a hook changed through this process is seen at once
        self.sender = sender
        self.origin = origin.rstrip("/")  # the site's public origin; without one the link is a path
        self.tasks: set[asyncio.Task[None]] = set()
        games.on_turn.append(self.begins)

    def begins(self, game: LiveGame, seat: int) -> None:
        taken = game.meta.seats[seat]
        if taken.kind is SeatKind.PERSON and taken.account_id is not None:
            self.post(taken.account_id, lambda: your_turn(game, seat, self.origin))

    def post(self, account_id: int, payload: Callable[[], dict[str, Any]]) -> None:
        """POST what `payload` makes now to the account's hook, if it has one, off the caller's
        path: "your turn", and the other rooms' events (a challenge made to the account)."""
        known, hook = self.hooks.known(account_id)
        if known:  # no round trip to the database for a hook read lately (most accounts have none)
            if hook is not None:
                self.sender.submit(hook[0], hook[1], payload())
            return
        task = asyncio.get_running_loop().create_task(self._post(account_id, payload()))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _post(self, account_id: int, payload: dict[str, Any]) -> None:
        hook = await self.recorder.db(self.hooks.for_turn, account_id)
        if hook is not None:
            self.sender.submit(hook[0], hook[1], payload)

    async def drain(self) -> None:
        """Wait until every turn begun so far has had its hook looked up and its delivery
        tried to the end (tests wait on this, not on time)."""
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await self.sender.drain()

    async def close(self) -> None:
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await self.sender.close()
