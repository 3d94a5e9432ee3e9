"""What a tournament's finished game gave each of its players, and every result so far as
the Swiss functions take them (`swiss.Result`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from cantstop.core.dice import SeededDice
from cantstop.table import Fault, Kind, Move, Policy, Table
from cantstop.web.db.values import GameStatus, StoredGame
from cantstop.web.players.ratings import placings
from cantstop.web.tournaments.store import Place, SeatResult
from cantstop.web.tournaments.swiss import Result, place_points

FORFEIT = f"{Fault.TIMEOUT}:"  # how a seat's leaving on its clock begins its reason (`LiveGames.fail_seat`)


def game_results(game: StoredGame, moves: Sequence[Move]) -> list[SeatResult]:
    """Each seat's place in a finished game, read from its stored moves (nothing is rolled:
    a stored roll carries its dice): the winner first, the others by columns and spaces,
    every seat that left sharing the last place; a game that ended without a winner puts
    everyone last. A seat that left on its clock forfeited."""
    count = len(game.seats)
    forfeited = {m.seat for m in moves if m.kind is Kind.RESIGN and m.reason.startswith(FORFEIT)}
    places = [count] * count
    if game.status is GameStatus.OVER and game.first is not None:
        table = Table(game.record([]), SeededDice(0), policy=Policy.FALLBACK, narrate=False)
        for move in moves:
            table.restore(move)
        places = placings(table.state)
    return [
        SeatResult(s.account_id, places[s.seat], count, places[s.seat] == 1 and game.status is GameStatus.OVER, s.seat in forfeited)
        for s in game.seats if s.account_id is not None
    ]


def swiss_results(places: Sequence[Place]) -> list[Result]:
    """Every result written so far: a bye, or a game with its opponents, points, win and forfeit."""
    tables: dict[str, list[Place]] = defaultdict(list)
    for p in places:
        if p.game_id is not None:
            tables[p.game_id].append(p)
    found = []
    for p in places:
        if p.place is None or p.players is None:
            continue
        opponents = () if p.game_id is None else tuple(o.account_id for o in tables[p.game_id] if o.account_id != p.account_id)
        found.append(Result(p.round, p.account_id, opponents, place_points(p.place, p.players), p.won, p.forfeited))
    return found
