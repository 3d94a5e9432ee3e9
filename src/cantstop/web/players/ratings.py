"""Who is rated, and how a rated game moves ratings: openskill's Plackett-Luce model, games of
2, 3 and 4 players rated apart, each seat's change weighted down when the same people play
each other again and again within a month, so that a pair cannot farm a rating out of each
other, and by the trust its opponents' ratings deserve (`players.scale`), so that fresh
accounts losing on purpose cannot make a rating either.

A game is rated only if created so: every person seated signed in (distinct accounts), at
least one of them, and a rated variant (`rated_variant`). Guests play friendly games, which
move no rating.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Sequence
from dataclasses import fields, replace
from datetime import timedelta

from openskill.models import PlackettLuce
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from cantstop.core.state import State
from cantstop.core.variant import PRESETS, Variant
from cantstop.web.db.rows import now
from cantstop.web.db.storage import Storage
from cantstop.web.db.values import Rating, RatingKind, SeatKind, StoredGame
from cantstop.web.players import scale, standings
from cantstop.web.players.standings import Holder, RatingChange, Result

_MODEL = PlackettLuce()
# The weight of a pair's rated games within PAIR_WINDOW: the first counts in full, each next
# one half the last, and from the fifth on, not at all. A window of a day let a patient pair
# farm (benchmarks/farming.py; docs/play.md has the figures): a month keeps one pair's
# worth under two full games a month.
PAIR_WEIGHTS = (1.0, 0.5, 0.25, 0.125)
PAIR_WINDOW = timedelta(days=30)
RATED_BASES = ("classic", "turtles", "turtles-relay")
# What the published options change (Sackson's longer game, skip, no stop on an occupied space).
OPTION_FIELDS = frozenset({"name", "to_win", "skip", "no_stop_on_occupied", "min_players", "max_players"})
LONGER = (4, 5)  # columns to win in the longer game: for 2 or 3 players (to 5, 2: Variant.most_players)


def rated_variant(variant: Variant, players: int) -> str | None:
    """Why `variant` cannot be played rated by `players`, or None when it can: classic, the
    Turtles (relay race too) and their published options are rated; a custom board is not."""
    if players < 2:
        return "a rated game needs two players or more: solitaire is scored in turns, not rated"
    for name in RATED_BASES:
        base = PRESETS[name]
        if replace(variant, **{f.name: getattr(base, f.name) for f in fields(Variant) if f.name in OPTION_FIELDS}) != base:
            continue
        if variant.to_win != base.to_win and (variant.to_win not in LONGER or players > min(3, variant.most_players)):
            return (f"the longer game is for 2 or 3 players to 4 columns, 2 to 5 (3 could claim every column with nobody at 5):"
                    f" {variant.to_win} columns for {players} is a custom game")
        return None
    classic = PRESETS["classic"]
    published = OPTION_FIELDS - {"to_win"} if variant.to_win not in (classic.to_win, *LONGER) else OPTION_FIELDS
    changed = [f.name for f in fields(Variant) if f.name not in published and getattr(variant, f.name) != getattr(classic, f.name)]
    return (f"rated games are played on classic, its published options (longer, skip, no stop on an occupied space) or the"
            f" Turtles; this board is custom ({', '.join(changed) or 'its options'}): play it as a friendly game")


def placings(state: State) -> list[int]:
    """Each seat's place: 1 for the winner, then the others still playing by columns claimed,
    then by spaces climbed; every seat that left (`state.out`: resigned, or forfeited on its
    clock) shares the last place, the number of seats, however long it stayed: outlasting
    another leaver earns nothing (openskill takes tied ranks)."""

    def key(p: int) -> tuple[int, int, int]:
        return (0 if p == state.winner else 1), -len(state.columns_won(p)), -sum(state.pieces[p])

    ranks = [state.num_players] * state.num_players
    staying = sorted((p for p in range(state.num_players) if p not in state.out), key=key)
    for place, p in enumerate(staying, 1):
        ranks[p] = place
    return ranks


def holders(game: StoredGame) -> list[Holder | None]:
    """Each seat's rating holder: its account for a person, its name for a bot; None for a
    guest (a rated game has none)."""
    found: list[Holder | None] = []
    for s in game.seats:
        if s.kind is SeatKind.PERSON and s.account_id is not None:
            found.append((RatingKind.PERSON, s.account_id))
        elif s.kind is SeatKind.BOT and s.name:
            found.append((RatingKind.BOT, s.name))
        else:
            found.append(None)
    return found


def pair_weights(s: Session, game: StoredGame, seated: list[Holder]) -> list[float]:
    """The weight each seat's change counts with: by the most rated games it played with any
    one of this game's others within PAIR_WINDOW (each pair counted once)."""
    since = now() - PAIR_WINDOW
    together = {
        (i, j): standings.games_together(s, seated[i], seated[j], since, game.id)
        for i, j in itertools.combinations(range(len(seated)), 2)
    }
    most = [max(n for pair, n in together.items() if seat in pair) for seat in range(len(seated))]
    return [PAIR_WEIGHTS[n] if n < len(PAIR_WEIGHTS) else 0.0 for n in most]


def weighted(before: Rating, full_mu: float, full_sigma: float, weight: float, won: bool) -> Rating:
    """The rating after a game that counts `weight` of a full game (whose outcome is
    `full_mu`, `full_sigma`): that share of the move; a game of weight 0 changes nothing."""
    if weight <= 0:
        return before
    mu = before.mu + weight * (full_mu - before.mu)
    sigma = before.sigma + weight * (full_sigma - before.sigma)
    return replace(before, mu=mu, sigma=sigma, games=before.games + 1, wins=before.wins + won)


def rate_game(storage: Storage, game: StoredGame, state: State, stood_in: Collection[int] = ()) -> bool:
    """Rate a finished rated game, once: each seat's entry for games of this many players
    moves by openskill's update, weighted by how often its pair played within PAIR_WINDOW
    and by the trust its opponents' ratings deserve (`trust_weights`); the seats that left are rated
    as tied for last, below every seat that stayed (`placings`). True if rated now; False
    for a game rated already (by this process or another: whoever comes first writes it,
    the others find its points) and for one that rates nobody (friendly, solitaire, a seat
    without a holder, or `stood_in`: seats whose moves the table played, a bot that crashed
    or timed out — a game its players did not all play is no measure of any of them)."""
    seated = holders(game)
    if stood_in or not game.rated or state.num_players < 2 or state.winner is None or None in seated or len(set(seated)) < len(seated):
        return False
    who = [h for h in seated if h is not None]
    try:
        with storage.session() as s:
            return _rate(s, game, state, who)
    except IntegrityError:  # another game made one of these entries first, or another process rated this one: once more
        pass
    with storage.session() as s:
        return _rate(s, game, state, who)


def trusted(rating: Rating) -> bool:
    """Whether a rating is a trusted opponent (`scale.established`): a bot's, or a person's no longer provisional."""
    return scale.established(rating.kind is RatingKind.BOT, rating.games, rating.opponents)


def trust_weights(before: Sequence[Rating], pairs: Sequence[float]) -> tuple[list[float], list[list[int]]]:
    """Each seat's weight (its pair weight times its share of trust, `scale.trust`) and the
    seats of the trusted opponents it met, for the seats the game counts for (weight above 0)."""
    sure = [trusted(r) for r in before]
    others = [[j for j in range(len(before)) if j != i] for i in range(len(before))]
    weights = [pair * scale.trust(sure[i], [sure[j] for j in others[i]]) for i, pair in enumerate(pairs)]
    return weights, [[j for j in others[i] if sure[j]] if weights[i] > 0 else [] for i in range(len(before))]


def _rate(s: Session, game: StoredGame, state: State, who: list[Holder]) -> bool:
    players = len(who)
    known = standings.locked(s, who, players)
    if standings.rated_already(s, game.id):  # asked after the entries are locked: a rater finishing now is waited for
        return False
    before = [known.get(h) or Rating(h[0], str(h[1]), _MODEL.mu, _MODEL.sigma, 0, 0, players=players) for h in who]
    teams = [[_MODEL.create_rating([r.mu, r.sigma])] for r in before]
    after = _MODEL.rate(teams, ranks=[float(r) for r in placings(state)])
    weights, met = trust_weights(before, pair_weights(s, game, who))
    results = [
        Result(seat, holder, weighted(old, team[0].mu, team[0].sigma, weight, seat == state.winner), old, weight,
               game.seats[seat].name or "", tuple(who[j] for j in met[seat]))
        for seat, (holder, old, team, weight) in enumerate(zip(who, before, after, weights))
    ]
    standings.save(s, game.id, results)
    return True


def rating_changes(storage: Storage, game_id: str, names: Sequence[str]) -> list[RatingChange | None]:
    """Each seat's rating change from finished game `game_id`, one per seat of `names`, in
    seat order; None for a seat the game did not rate (a friendly game, solitaire, an
    abandoned game). The one question the end of a game asks the ratings; blocking, like
    every storage call."""
    found = standings.changes(storage, game_id)
    return [found.get(seat) for seat in range(len(names))]
