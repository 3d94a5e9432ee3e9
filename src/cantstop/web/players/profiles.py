"""What the leaderboards and a player's page show: ratings, rating history, finished games
with the turns each took, win rates, the games under way with those waiting first, and the
averages of accuracy and luck over the analysed rated games (the review room's).

A page is a person's (an account: its games are the ones it sat in, whatever a guest typed),
a bot's, a guest's (the games played under a name no account has) or a legacy entry's (a
rating from before accounts, kept apart until attached to an account).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import quote

from sqlalchemy import func, select

from cantstop.core.record import Event
from cantstop.core.summary import turns_taken
from cantstop.core.variant import variant_title
from cantstop.web.db.rows import GameRow, SeatRow
from cantstop.web.db.storage import Storage
from cantstop.web.db.values import LIVE, GameStatus, Rating, RatingKind, RatingPoint, StoredGame
from cantstop.web.games.describe import display_name, seat_summary_json, summary_json, waiting_first
from cantstop.web.games.sweeper import stamp
from cantstop.web.identity.accounts import Accounts
from cantstop.web.players import scale, standings
from cantstop.web.review.analyses import Analyses

TURNS_KEPT = 10_000  # finished games never change: their turn counts are kept, up to this many


def profile_url(name: str, kind: RatingKind) -> str:
    return f"/player/{quote(name, safe='')}" + ("?legacy=1" if kind is RatingKind.LEGACY else "")


def rating_json(r: Rating) -> dict[str, Any]:
    """An entry as boards and profiles show it: the rating people read (`players.scale`),
    whether it is provisional, and openskill's own numbers for programs."""
    return {"name": r.name, "display": display_name(r.name), "kind": r.kind.value, "url": profile_url(r.name, r.kind),
            "players": r.players, "rating": scale.shown(r.mu), "spread": scale.shown_spread(r.sigma),
            "provisional": r.kind is not RatingKind.BOT and scale.provisional(r.games, r.opponents),
            "mu": round(r.mu, 2), "sigma": round(r.sigma, 2), "games": r.games, "wins": r.wins, "opponents": r.opponents}


def history_json(points: list[RatingPoint]) -> list[dict[str, Any]]:
    """Each point on the scale people read: the rating, and the band of one sigma either side."""
    return [{"game": p.game_id, "at": p.at.isoformat(), "rating": scale.shown(p.mu), "low": scale.shown(p.mu - p.sigma),
             "high": scale.shown(p.mu + p.sigma), "mu": round(p.mu, 2), "sigma": round(p.sigma, 2), "weight": p.weight,
             "provisional": p.provisional} for p in points]


def rates(outcomes: Iterable[tuple[str, int, bool]]) -> dict[str, list[dict[str, Any]]]:
    """Games and wins by variant and by number of players, from (variant, players, won)."""
    by: dict[str, dict[Any, list[int]]] = {"variant": defaultdict(lambda: [0, 0]), "players": defaultdict(lambda: [0, 0])}
    for variant, players, won in outcomes:
        for key, value in (("variant", variant), ("players", players)):
            by[key][value][0] += 1
            by[key][value][1] += won
    rows = {
        f"by_{key}": [{key: value, "games": games, "wins": wins, "rate": round(wins / games, 3)} for value, (games, wins) in sorted(counts.items())]
        for key, counts in by.items()
    }
    for row in rows["by_variant"]:  # a variant as people read it; the spec stays for programs
        row["title"] = variant_title(row["variant"])
    return rows


class Profiles:
    """Players' pages from storage; each call blocks (the routes make it off the event loop)."""

    def __init__(self, storage: Storage, clock_scale: float = 1.0, now: Callable[[], float] = time.time) -> None:
        """`clock_scale`: what a second of a move clock is worth and `now` the server's clock
        (as the live games count them)."""
        self.storage = storage
        self.clock_scale, self.now = clock_scale, now
        self.accounts = Accounts(storage)
        self.analyses = Analyses(storage)
        self._turns: dict[str, int] = {}  # game id -> the turns it took

    def turns(self, game: StoredGame, events: list[Event]) -> int | None:
        """The turns a finished game took (busted turns count, and a turn under way when it was
        abandoned, as its summary counts them), replayed once and then remembered; None for a
        game that never started."""
        if game.id not in self._turns:
            if game.first is None:
                return None
            if len(self._turns) >= TURNS_KEPT:
                self._turns.clear()
            self._turns[game.id] = turns_taken(game.record(events).final())
        return self._turns[game.id]

    def finished(self, name: str | None, limit: int, account: int | None = None) -> list[dict[str, Any]]:
        """Finished games as the game lists show them, each with the turns it took: all, or
        those of the account `account`, or those a guest or bot called `name` sat in."""
        games = self.storage.finished_games(name, limit, account)
        return [{**summary_json(g), "turns": self.turns(g, events)} for g, events in games]

    def finished_of(self, player: str | None, limit: int) -> list[dict[str, Any]]:
        """All finished games, or those of `player`: an account's if an account has that name."""
        found = None if player is None else self.accounts.find(player)
        return self.finished(player, limit) if found is None else self.finished(None, limit, found[0].id)

    def leaderboard(self, kind: RatingKind, players: int, limit: int, provisional: bool = False) -> list[dict[str, Any]]:
        return [rating_json(r) for r in standings.board(self.storage, kind, players, limit, provisional)]

    def outcomes(self, name: str | None, account: int | None) -> list[tuple[str, int, bool]]:
        """(variant, players, won) of every finished game the account (or the guest or bot
        `name`) sat in."""
        players = select(SeatRow.game_id, func.count().label("n")).group_by(SeatRow.game_id).subquery()
        mine = SeatRow.account_id == account if account is not None else (SeatRow.name == name) & SeatRow.account_id.is_(None)
        with self.storage.session() as s:
            rows = s.execute(
                select(GameRow.variant, players.c.n, GameRow.winner == SeatRow.seat)
                .join(SeatRow, SeatRow.game_id == GameRow.id).join(players, players.c.game_id == GameRow.id)
                .where(GameRow.status == GameStatus.OVER.value, mine)
            ).all()
        return [(variant, int(n), bool(won)) for variant, n, won in rows]

    def playing(self, name: str | None, account: int | None) -> list[dict[str, Any]]:
        """Games waiting or under way that the account (or guest or bot `name`) sits in, those
        waiting for its move first, each marked with its seat and whether it is its turn."""
        games = self.storage.games(LIVE, 50, player=name, account=account)
        listed, at = [], stamp(self.now())
        for g in games:
            seat = next(s.seat for s in g.seats if (s.account_id == account if account is not None else s.name == name and s.account_id is None))
            listed.append(seat_summary_json(g, seat, at, self.clock_scale))
        return waiting_first(listed)

    def profile(self, name: str, legacy: bool = False) -> dict[str, Any] | None:
        """A player's page: an account's, a bot's ('bot:NAME'), a legacy entry's (`legacy`), or
        else a guest's; None for a name with nothing to show."""
        if legacy:
            found = standings.entries(self.storage, (RatingKind.LEGACY, name))
            return self._page(name, "legacy", found, name, None) if found else None
        if name.startswith("bot:"):
            return self._page(name, "bot", standings.entries(self.storage, (RatingKind.BOT, name)), name, None)
        account = self.accounts.find(name)
        if account is not None:
            mine = standings.entries(self.storage, (RatingKind.PERSON, account[0].id))
            return self._page(account[0].name, "person", mine, None, account[0].id, empty_ok=True)
        page = self._page(name, "guest", [], name, None)
        if page is not None:
            page["legacy"] = profile_url(name, RatingKind.LEGACY) if standings.entries(self.storage, (RatingKind.LEGACY, name)) else None
        return page

    def _page(
        self, name: str, kind: str, ratings: list[Rating], by_name: str | None, account: int | None, empty_ok: bool = False,
    ) -> dict[str, Any] | None:
        games = self.finished(by_name, 20, account)
        playing = [] if kind == "legacy" else self.playing(by_name, account)
        if not ratings and not games and not playing and not empty_ok:
            return None
        shown = [{**rating_json(r), "history": history_json(standings.history(self.storage, r.id)) if r.id is not None else []}
                 for r in ratings]
        main = max(shown, key=lambda r: (r["games"], -r["players"]), default=None)  # the one played most (fewest players first)
        return {
            "name": name, "display": display_name(name), "kind": kind, "bot": kind == "bot",
            "ratings": shown,
            "rating": None if main is None else {k: v for k, v in main.items() if k != "history"},
            "history": [] if main is None else main["history"],
            "games": games, "playing": playing, "stats": rates(self.outcomes(by_name, account)),
            "analysis": self.analyses.averages(account) if kind == "person" else self.analyses.averages(bot=name) if kind == "bot" else None,
        }
