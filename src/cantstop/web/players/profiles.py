"""What the leaderboard and a player's page show: ratings, rating history, finished games
with the turns each took."""

from __future__ import annotations

from typing import Any

from cantstop.core.record import Event
from cantstop.web.db.storage import Storage
from cantstop.web.db.values import LIVE, Rating, StoredGame
from cantstop.web.games.describe import display_name, summary_json

TURNS_KEPT = 10_000  # finished games never change: their turn counts are kept, up to this many


def rating_json(r: Rating) -> dict[str, Any]:
    return {"name": r.name, "display": display_name(r.name), "rating": round(r.ordinal, 2), "mu": round(r.mu, 2),
            "sigma": round(r.sigma, 2), "games": r.games, "wins": r.wins}


class Profiles:
    """Players' pages from storage; each call blocks (the routes make it off the event loop)."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._turns: dict[str, int] = {}  # game id -> the turns it took

    def turns(self, game: StoredGame, events: list[Event]) -> int | None:
        """The turns a finished game took (busted turns count), replayed once and then remembered."""
        if game.id not in self._turns:
            if game.first is None:
                return None
            if len(self._turns) >= TURNS_KEPT:
                self._turns.clear()
            self._turns[game.id] = game.record(events).final().turn
        return self._turns[game.id]

    def finished(self, name: str | None, limit: int) -> list[dict[str, Any]]:
        """Finished games as the game lists show them, each with the turns it took."""
        return [{**summary_json(g), "turns": self.turns(g, events)} for g, events in self.storage.finished_games(name, limit)]

    def leaderboard(self, limit: int) -> list[dict[str, Any]]:
        return [rating_json(r) for r in self.storage.leaderboard(limit)]

    def profile(self, name: str) -> dict[str, Any] | None:
        """A player's rating, its history after each rated game, recent finished games and those
        under way; None for a name that sits in no game here."""
        rating = self.storage.ratings([name]).get(name)
        games = self.finished(name, 20)
        playing = [summary_json(g) for g in self.storage.games(LIVE, 20, player=name)]
        if rating is None and not games and not playing:
            return None
        history = [
            {"game": p.game_id, "at": p.at.isoformat(), "rating": round(p.ordinal, 2), "mu": round(p.mu, 2), "sigma": round(p.sigma, 2)}
            for p in self.storage.rating_history(name)
        ]
        return {"name": name, "display": display_name(name), "bot": name.startswith("bot:"),
                "rating": rating_json(rating) if rating else None, "history": history, "games": games,
                "playing": playing}
