"""The players room's service: leaderboards, profiles and finished games as the routes ask
for them, each read once the ratings this process is writing are written (what a client
reads next shows them), off the event loop."""

from __future__ import annotations

from typing import Any

from cantstop.web.db.values import RatingKind
from cantstop.web.errors import Invalid, NotFound
from cantstop.web.games.live import LiveGames
from cantstop.web.names import refused_character
from cantstop.web.players.profiles import Profiles


class Players:
    def __init__(self, games: LiveGames, profiles: Profiles) -> None:
        self.games, self.profiles = games, profiles

    async def board(self, kind: RatingKind, players: int, limit: int, provisional: bool = False) -> list[dict[str, Any]]:
        """A leaderboard of games of `players` by the rating shown (`players.scale`), with
        display names: people no longer provisional only, unless `provisional`."""
        await self.games.ratings_written()
        found: list[dict[str, Any]] = await self.games.recorder.db(self.profiles.leaderboard, kind, players, limit, provisional)
        return found

    async def profile(self, name: str, legacy: bool) -> dict[str, Any]:
        """A player's page; NotFound `no_player` for a name with nothing to show."""
        await self.games.ratings_written()
        # A name with a character no name may hold names nobody (and PostgreSQL refuses a NUL).
        found = None if refused_character(name) else await self.games.recorder.db(self.profiles.profile, name, legacy)
        if found is None:
            raise NotFound("no_player", f"no player called {name!r} has played here")
        result: dict[str, Any] = found
        return result

    async def finished(self, player: str | None, limit: int) -> list[dict[str, Any]]:
        """Finished games, newest first (only `player`'s, if given); Invalid `bad_name` for a
        name holding a character no name may hold."""
        wrong = None if player is None else refused_character(player)
        if wrong is not None:
            raise Invalid("bad_name", f"player: the name holds {wrong}, which no name may hold")
        found: list[dict[str, Any]] = await self.games.recorder.db(self.profiles.finished_of, player, limit)
        return found

    async def playing(self, account_id: int) -> list[dict[str, Any]]:
        """The games waiting or under way that the account sits in."""
        found: list[dict[str, Any]] = await self.games.recorder.db(self.profiles.playing, None, account_id)
        return found
