"""The tournaments room's service: creating a tournament, entering and leaving it, and moving
each one on — its start, each round's pairing once the last game of the one before has
ended, results, withdrawals, its end — whichever process gets there first.

A tournament moves on when one of its games ends here (`LiveGames.on_move`), and at every
sweep (`Sweeper.also`), which also starts those whose start time has come, so nothing is
lost to a restart or to the process that was playing stopping. Every step is made safe to
repeat and to race (see `store`): a round is paired once, a result written once.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from cantstop.core.errors import VariantError
from cantstop.core.variant import preset, variant_title
from cantstop.web.db.values import ENDED, GameStatus, RatingKind
from cantstop.web.errors import Conflict, Invalid, NotAllowed, NotFound
from cantstop.web.games.clock import duration_text
from cantstop.web.games.describe import display_name
from cantstop.web.games.live import LiveGame, LiveGames
from cantstop.web.games.sweeper import stamp
from cantstop.web.identity.accounts import Account
from cantstop.web.lobby.service import Lobby
from cantstop.web.names import refused_character
from cantstop.web.players import scale
from cantstop.web.players import standings as ratings_store
from cantstop.web.players.profiles import profile_url
from cantstop.web.players.ratings import rated_variant
from cantstop.web.tournaments import swiss
from cantstop.web.tournaments.results import game_results, swiss_results
from cantstop.web.tournaments.store import (
    Entry,
    NewTable,
    Place,
    Tournament,
    TournamentStatus,
    TournamentStore,
)

log = logging.getLogger("cantstop.web")

MAX_ROUNDS = 20
MAX_PLAYERS = 128  # entrants at most: the pairing of a round stays well under a second
MAX_AHEAD = timedelta(days=366)  # the latest start a tournament may be given
FORFEITS_WITHDRAW = 2  # games forfeited on the clock that withdraw a player
NAME_CHARS = 80
LISTED = 50


def points_text(points: Any) -> str:
    """Points as people read them: 2, 1.5, 0.67."""
    value = float(points)
    return f"{value:g}" if value == round(value, 2) else f"{value:.2f}"


class Tournaments:
    def __init__(self, games: LiveGames, lobby: Lobby, every: float = 60.0) -> None:
        """`every`: seconds between sweeps (`sweep`), which start the tournaments due by the next."""
        self.games, self.lobby, self.every = games, lobby, every
        self.recorder = games.recorder
        self.store = TournamentStore(games.storage)
        self._locks: dict[str, asyncio.Lock] = {}
        self._running: dict[str, asyncio.Task[None]] = {}  # a tournament being moved on, by its id
        self._again: set[str] = set()  # asked to move on again while it was (a second game ended meanwhile)
        self._timers: dict[str, asyncio.Task[None]] = {}  # starts due before the next sweep
        games.on_move.append(self._moved)

    def _now(self) -> datetime:
        return stamp(self.games.now())

    # ------------------------------------------------------------ creating
    async def create(
        self, creator: Account, name: str, variant: str, seats: int, clock: int, rated: bool, rounds: int, capacity: int,
        starts: str,
    ) -> str:
        """A new tournament, entry open until `starts` (ISO 8601 with its time zone). Refused
        with `Invalid`, naming the field, for a name that is empty or holds what no text may,
        an unknown variant or one not for `seats` players, a variant a rated game cannot be
        played on, no move clock, or a start that is past or more than a year ahead."""
        name = " ".join(name.split())
        wrong = refused_character(name)
        if not name or wrong is not None:
            raise Invalid("bad_name", f"name: {wrong or 'a tournament needs a name'}")
        try:
            rules = preset(variant)
        except VariantError as error:
            raise Invalid("bad_variant", f"variant: {error}") from None
        if not max(2, rules.min_players) <= seats <= rules.most_players:
            raise Invalid("bad_seats", f"seats: {rules.name} is played by {rules.min_players}..{rules.most_players}, and a tournament's"
                          f" tables seat 2 or more, not {seats}")
        if rated:
            for size in range(max(2, rules.min_players), seats + 1):  # a round may seat fewer at a table than the most
                why = rated_variant(rules, size)
                if why is not None:
                    raise Invalid("not_rated_variant", f"rated: {why}")
        if not clock:
            raise Invalid("bad_clock", "clock: a tournament's games need a move clock, so that every round ends")
        when = self._start_of(starts)
        return await self.recorder.db(self.store.create, name, variant.strip(), seats, clock, rated, rounds, capacity, when, creator.id)

    def _start_of(self, starts: str) -> datetime:
        try:
            when = datetime.fromisoformat(starts)
        except ValueError:
            raise Invalid("bad_start", f"starts: {starts[:40]!r} is no date and time: write one as 2026-12-01T18:00:00Z") from None
        if when.tzinfo is None:
            raise Invalid("bad_start", "starts: give the time zone too (2026-12-01T18:00:00Z, or +01:00)")
        at = when.astimezone(UTC).replace(tzinfo=None)
        now = self._now()
        if at <= now:
            raise Invalid("bad_start", f"starts: {at:%Y-%m-%d %H:%M} UTC has passed; a tournament starts in the future")
        if at > now + MAX_AHEAD:
            raise Invalid("bad_start", "starts: at most a year ahead")
        return at

    # ------------------------------------------------------------ entering
    async def enter(self, tournament_id: str, account: Account) -> dict[str, Any]:
        """Enter the tournament. Refused (Conflict, nothing stored) once it has started, when
        it is full, or for one entered already."""
        await self._found(tournament_id)
        await self.recorder.db(self.store.enter, tournament_id, account.id, self._now())
        return await self.detail(tournament_id, account)

    async def leave(self, tournament_id: str, account: Account) -> dict[str, Any]:
        """Leave before the start, or withdraw after it (no later round pairs you; a game under
        way is yours to finish or resign). Refused (Conflict) for one not in it."""
        found = await self._found(tournament_id)
        if found.status not in (TournamentStatus.OPEN, TournamentStatus.PLAYING):
            raise Conflict("not_open", "the tournament is over: there is nothing to leave")
        if not await self.recorder.db(self.store.leave, tournament_id, account.id, self._now()):
            raise Conflict("not_entered", "you are not playing in this tournament")
        return await self.detail(tournament_id, account)

    async def start_now(self, tournament_id: str, account: Account) -> dict[str, Any]:
        """The creator starts the tournament before its time: entry closes and round 1 is
        paired. Refused for anyone else (NotAllowed), once started, or with fewer than two players."""
        found = await self._found(tournament_id)
        if found.creator_id != account.id:
            raise NotAllowed("not_creator", "only the tournament's creator can start it early")
        if found.status is not TournamentStatus.OPEN:
            raise Conflict("not_open", "the tournament has started already")
        if found.entered < 2:
            raise Conflict("too_few", f"a tournament needs two players at least; {found.entered} entered so far")
        await self.advance(tournament_id, start=True)
        return await self.detail(tournament_id, account)

    async def _found(self, tournament_id: str) -> Tournament:
        found = None if len(tournament_id) > 32 else await self.recorder.db(self.store.tournament, tournament_id)
        if found is None:
            raise NotFound("no_tournament", f"no tournament {tournament_id[:40]!r}")
        return found

    # ------------------------------------------------------------ moving on
    def _moved(self, game: LiveGame) -> None:
        """A game moved here: one of a tournament's that has just finished moves it on."""
        tournament = game.meta.tournament
        if tournament is not None and game.finished:
            self.soon(tournament)

    def soon(self, tournament_id: str) -> None:
        """Move the tournament on in a task of its own (again, if one is under way)."""
        if tournament_id in self._running:
            self._again.add(tournament_id)
            return
        task = asyncio.create_task(self._keep_advancing(tournament_id))
        self._running[tournament_id] = task

    async def _keep_advancing(self, tournament_id: str) -> None:
        try:
            while True:
                self._again.discard(tournament_id)
                try:
                    await self.advance(tournament_id)
                except Exception as error:  # the database is down: the next sweep moves it on
                    log.warning("tournament %s could not move on: %s", tournament_id, error)
                    return
                if tournament_id not in self._again:
                    return
        finally:
            self._running.pop(tournament_id, None)

    async def advance(self, tournament_id: str, start: bool = False) -> None:
        """Do what is due: the start (at its time, or now with `start`), the results of games
        that ended, withdrawals, the next round once every game of this one has ended, the end."""
        lock = self._locks.setdefault(tournament_id, asyncio.Lock())
        async with lock:
            found = await self.recorder.db(self.store.tournament, tournament_id)
            if found is not None and found.status is TournamentStatus.OPEN and (start or found.starts <= self._now()):
                await self._begin(found)
                found = await self.recorder.db(self.store.tournament, tournament_id)
            if found is None or found.status is not TournamentStatus.PLAYING:
                return
            places = await self.recorder.db(self.store.places, tournament_id)
            current = [p for p in places if p.round == found.round]
            for game_id in sorted({p.game_id for p in current if p.game_id is not None and p.game_status is GameStatus.WAITING}):
                await self.lobby.start_seated(game_id)  # a process stopped between pairing the round and starting it
            ended = sorted({p.game_id for p in current if p.game_id is not None and p.place is None and p.game_status in ENDED})
            for game_id in ended:
                await self._record(found, game_id)
            if ended:
                places = await self.recorder.db(self.store.places, tournament_id)
                current = [p for p in places if p.round == found.round]
            if any(p.place is None for p in current):
                return  # the round goes on
            await self._next_round(found, places)

    async def _begin(self, found: Tournament) -> None:
        """Close entry: with fewer than two players the tournament is cancelled; else they are
        seeded by rating (as the leaderboard has them), then by when they entered."""
        entries = [e for e in await self.recorder.db(self.store.entries, found.id) if e.playing]
        at = self._now()
        if len(entries) < 2:
            await self.recorder.db(self.store.close, found.id, TournamentStatus.CANCELLED, at)
            return
        holders: list[ratings_store.Holder] = [(RatingKind.PERSON, e.account_id) for e in entries]
        rated = await self.recorder.db(ratings_store.ratings, self.games.storage, holders, found.seats)
        ordinal = {key: r.ordinal for (_, key), r in rated.items()}
        seeds = [e.account_id for e in sorted(entries, key=lambda e: (-ordinal.get(e.account_id, 0.0), e.joined, e.account_id))]
        await self.recorder.db(self.store.begin, found.id, seeds, at)

    async def _record(self, found: Tournament, game_id: str) -> None:
        game = await self.recorder.db(self.games.storage.game, game_id)
        if game is None:
            return
        moves = await self.recorder.db(self.games.storage.events, game_id, 0)
        await self.recorder.db(self.store.record, found.id, found.round, game_id, game_results(game, moves))

    async def _next_round(self, found: Tournament, places: Sequence[Place]) -> None:
        at = self._now()
        results = swiss_results(places)
        forfeits = Counter(r.player for r in results if r.forfeited)
        out = [player for player, count in forfeits.items() if count >= FORFEITS_WITHDRAW]
        await self.recorder.db(self.store.withdraw, found.id, out, f"forfeited {FORFEITS_WITHDRAW} games on the clock", at)
        entries = await self.recorder.db(self.store.entries, found.id)
        playing = {e.account_id for e in entries if e.playing}
        if found.round >= found.rounds or len(playing) < 2:
            await self.recorder.db(self.store.close, found.id, TournamentStatus.OVER, at)
            return
        seeds = seed_order(entries)
        order = [p for p in swiss.pairing_order(swiss.standings(seeds, results), seeds) if p in playing]
        field = swiss.entrants(order, results)
        pairing = await asyncio.to_thread(swiss.pair_round, field, found.seats)
        names = {e.account_id: e.name or "" for e in entries}
        tables = [NewTable(board, tuple((p, names[p]) for p in table)) for board, table in enumerate(pairing.tables, 1)]
        made = await self.recorder.db(self.store.pair, found, found.round + 1, tables, pairing.byes, at)
        for game_id in made or ():  # None: another process paired this round, and starts its games
            await self.lobby.start_seated(game_id)

    async def sweep(self) -> int:
        """The sweeper's look: every tournament in play moves on (a game may have ended in a
        process that stopped), those whose start has come begin, and those starting before
        the next look get a timer. Returns how many it moved on or began."""
        now = self.games.now()
        acted = 0
        for tournament_id, starts, status in await self.recorder.db(self.store.due, stamp(now + self.every)):
            wait = starts.replace(tzinfo=UTC).timestamp() - now
            if status is TournamentStatus.OPEN and wait > 0:
                if tournament_id not in self._timers:
                    self._timers[tournament_id] = asyncio.create_task(self._start_at(tournament_id, wait))
                continue
            try:
                await self.advance(tournament_id)
                acted += 1
            except Exception as error:  # one tournament that cannot move on holds up none of the others
                log.warning("the sweep could not move tournament %s on: %s", tournament_id, error)
        return acted

    async def _start_at(self, tournament_id: str, wait: float) -> None:
        try:
            await asyncio.sleep(wait)
            self.soon(tournament_id)
        finally:
            self._timers.pop(tournament_id, None)

    async def close(self) -> None:
        tasks = [*self._running.values(), *self._timers.values()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # ------------------------------------------------------------ reading
    async def listed(self, player: str | None = None) -> dict[str, Any]:
        """Tournaments taking entries, in play and finished (the latest first); with `player`,
        those an account of that name entered, each with its standing."""
        if player is not None:
            return {"entered": await self._entered(player)}
        found = await self.recorder.db(self.store.listed, list(TournamentStatus), 3 * LISTED)
        by = {s: [summary_json(t) for t in found if t.status is s] for s in TournamentStatus}
        return {"open": by[TournamentStatus.OPEN][::-1][:LISTED], "playing": by[TournamentStatus.PLAYING][:LISTED],
                "finished": (by[TournamentStatus.OVER] + by[TournamentStatus.CANCELLED])[:LISTED]}

    async def _entered(self, player: str) -> list[dict[str, Any]]:
        if refused_character(player):
            raise Invalid("bad_name", "player: the name holds a character no name may hold")
        found = await self.recorder.db(self.store.account_named, player)
        if found is None:
            return []
        listed = []
        for t in await self.recorder.db(self.store.entered_by, found, LISTED):
            table = await self._standings(t)
            mine = next((s for s in table if s["id"] == found), None)
            listed.append({**summary_json(t), "rank": None if mine is None else mine["rank"],
                           "points": None if mine is None else mine["points"], "of": len(table)})
        return listed

    async def detail(self, tournament_id: str, viewer: Account | None = None) -> dict[str, Any]:
        """The tournament page's JSON: its settings, its players (with their ratings as the
        leaderboard shows them), each round's tables and byes, and the standings."""
        found = await self._found(tournament_id)
        entries = await self.recorder.db(self.store.entries, tournament_id)
        places = await self.recorder.db(self.store.places, tournament_id)
        holders: list[ratings_store.Holder] = [(RatingKind.PERSON, e.account_id) for e in entries]
        rated = await self.recorder.db(ratings_store.ratings, self.games.storage, holders, found.seats)
        rating = {key: scale.mark(scale.shown(r.mu), scale.provisional(r.games, r.opponents)) for (_, key), r in rated.items()}
        names = {e.account_id: e.name for e in entries}
        mine = next((e for e in entries if viewer is not None and e.account_id == viewer.id), None)
        open_ = found.status is TournamentStatus.OPEN
        return {
            **summary_json(found),
            "entrants": [{**person_json(e.account_id, e.name), "rating": rating.get(e.account_id), "seed": e.seed,
                          "withdrawn": e.withdrawn is not None, "why": e.why} for e in entries],
            "rounds_played": rounds_json(places, names),
            "standings": standings_json(found, entries, places),
            "you": None if viewer is None else {
                "entered": mine is not None, "playing": mine is not None and mine.playing, "creator": viewer.id == found.creator_id,
                "can_enter": open_ and mine is None and found.entered < found.capacity,
                "can_leave": mine is not None and mine.playing and found.status in (TournamentStatus.OPEN, TournamentStatus.PLAYING),
                "can_start": open_ and viewer.id == found.creator_id and found.entered >= 2,
            },
        }

    async def _standings(self, found: Tournament) -> list[dict[str, Any]]:
        entries = await self.recorder.db(self.store.entries, found.id)
        places = await self.recorder.db(self.store.places, found.id)
        return standings_json(found, entries, places)


def seed_order(entries: Sequence[Entry]) -> list[int]:
    """The players by seed (those seeded first, as play began; anyone else after, by entry)."""
    return [e.account_id for e in sorted(entries, key=lambda e: (e.seed is None, e.seed or 0, e.joined))]


def person_json(account_id: int, name: str | None) -> dict[str, Any]:
    shown = name or f"deleted player #{account_id}"
    return {"id": account_id, "name": shown, "display": display_name(shown),
            "url": None if name is None else profile_url(name, RatingKind.PERSON)}


def summary_json(t: Tournament) -> dict[str, Any]:
    return {
        "id": t.id, "name": t.name, "url": f"/tournament/{t.id}", "variant": t.variant, "title": variant_title(t.variant),
        "seats": t.seats, "clock": t.clock, "clock_text": duration_text(t.clock), "rated": t.rated, "rounds": t.rounds,
        "round": t.round, "capacity": t.capacity, "entered": t.entered, "status": t.status.value,
        "starts": t.starts.replace(tzinfo=UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "ended": None if t.ended is None else t.ended.replace(tzinfo=UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "creator": person_json(t.creator_id, t.creator),
    }


def rounds_json(places: Sequence[Place], names: dict[int, str | None]) -> list[dict[str, Any]]:
    """Each round's tables (their game, its status, each player's place and points) and byes."""
    rounds: dict[int, dict[str, Any]] = {}
    for p in places:
        number = rounds.setdefault(p.round, {"round": p.round, "tables": {}, "byes": []})
        who = person_json(p.account_id, names.get(p.account_id))
        if p.game_id is None:
            number["byes"].append(who)
            continue
        table = number["tables"].setdefault(p.board, {
            "board": p.board, "game": p.game_id, "url": f"/game/{p.game_id}",
            "status": None if p.game_status is None else p.game_status.value, "players": [],
        })
        points = None if p.place is None or p.players is None else swiss.place_points(p.place, p.players)
        table["players"].append({**who, "place": p.place, "won": p.won, "forfeited": p.forfeited,
                                 "points": None if points is None else points_text(points)})
    return [{**r, "tables": [r["tables"][b] for b in sorted(r["tables"])]} for _, r in sorted(rounds.items())]


def standings_json(found: Tournament, entries: Sequence[Entry], places: Sequence[Place]) -> list[dict[str, Any]]:
    """The standings (see `swiss.standings`), each player with its points, tie-breaks, and
    whether (and why) it withdrew; nothing before the first round."""
    if found.round == 0:
        return []
    seeds = seed_order(entries)
    by_id = {e.account_id: e for e in entries}
    return [
        {**person_json(s.player, by_id[s.player].name), "rank": s.rank, "points": points_text(s.score),
         "buchholz": points_text(s.buchholz), "wins": s.wins, "played": s.played, "byes": s.byes, "forfeits": s.forfeits,
         "withdrawn": by_id[s.player].withdrawn is not None, "why": by_id[s.player].why}
        for s in swiss.standings(seeds, swiss_results(places))
    ]
