"""Games that could never end are closed: a game waiting or under way with more players than
its board can end (three players to 5 columns could claim 4 + 4 + 3 of the 11 and then every
roll busts, for ever) ends abandoned and unrated, saying why; so does a quick-pairing request
or a tournament that would make such games (cancelled). Finished games are left as they are:
their records still replay.

Revision ID: 0017
Revises: 0016
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

from cantstop.core.errors import VariantError
from cantstop.core.variant import preset

revision, down_revision = "0017", "0016"

GAMES = sa.table(
    "games", sa.column("id", sa.String), sa.column("variant", sa.String), sa.column("status", sa.String),
    sa.column("version", sa.Integer), sa.column("tags", sa.JSON), sa.column("updated", sa.DateTime),
)
EVENTS = sa.table(
    "events", sa.column("game_id", sa.String), sa.column("seq", sa.Integer), sa.column("kind", sa.String),
    sa.column("data", sa.Text), sa.column("created", sa.DateTime),
)
SEATS = sa.table("seats", sa.column("game_id", sa.String))
REQUESTS = sa.table(
    "pairing_requests", sa.column("id", sa.String), sa.column("variant", sa.String), sa.column("players", sa.Integer),
    sa.column("state", sa.String), sa.column("ended", sa.DateTime),
)
TOURNAMENTS = sa.table(
    "tournaments", sa.column("id", sa.String), sa.column("variant", sa.String), sa.column("seats", sa.Integer),
    sa.column("status", sa.String), sa.column("ended", sa.DateTime),
)


def most_players(spec: str) -> int | None:
    """The rule when this was written (`Variant.most_players`): no more players than cannot
    claim every column with each one short of `to_win`. None for a spec that does not parse."""
    try:
        variant = preset(spec)
    except VariantError:
        return None
    if variant.to_win <= 1:
        return variant.max_players
    return min(variant.max_players, (len(variant.heights) - 1) // (variant.to_win - 1))


def could_never_end(spec: str, players: int) -> bool:
    most = most_players(spec)
    return most is not None and players > most


def reason(spec: str, players: int) -> str:
    return (f"Abandoned: {players} players could claim every column with nobody at {preset(spec).to_win},"
            " and then the game could never end, so such games are no longer played.")


def upgrade() -> None:
    bind = op.get_bind()
    stamp = datetime.now(UTC).replace(tzinfo=None)
    seats = sa.select(sa.func.count()).select_from(SEATS).where(SEATS.c.game_id == GAMES.c.id).scalar_subquery()
    open_games = bind.execute(
        sa.select(GAMES.c.id, GAMES.c.variant, GAMES.c.version, GAMES.c.tags, seats).where(GAMES.c.status.in_(("waiting", "playing")))
    ).all()
    for game_id, spec, version, tags, players in open_games:
        if not could_never_end(spec, players):
            continue
        why = reason(spec, players)
        bind.execute(EVENTS.insert().values(game_id=game_id, seq=version + 1, kind="end", data=why[:64], created=stamp))  # the width of `data`
        bind.execute(GAMES.update().where(GAMES.c.id == game_id).values(
            status="abandoned", tags={**(tags or {}), "Ended": why}, updated=stamp))
    for request_id, spec, players in bind.execute(
        sa.select(REQUESTS.c.id, REQUESTS.c.variant, REQUESTS.c.players).where(REQUESTS.c.state == "waiting")
    ).all():
        if could_never_end(spec, players):
            bind.execute(REQUESTS.update().where(REQUESTS.c.id == request_id).values(state="cancelled", ended=stamp))
    for tournament_id, spec, players in bind.execute(
        sa.select(TOURNAMENTS.c.id, TOURNAMENTS.c.variant, TOURNAMENTS.c.seats).where(TOURNAMENTS.c.status.in_(("open", "playing")))
    ).all():
        if could_never_end(spec, players):
            bind.execute(TOURNAMENTS.update().where(TOURNAMENTS.c.id == tournament_id).values(status="cancelled", ended=stamp))


def downgrade() -> None:
    """Nothing to undo: the games closed stay closed (the code before this would play them on)."""
