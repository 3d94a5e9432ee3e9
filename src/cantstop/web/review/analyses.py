"""Analyses in storage: claimed by the process that computes one, stored with its players'
figures and costly decisions, read by every process afterwards; and a player's averages
over their analysed rated games, for their profile.

A game has one analysis row, keyed by its id. The process that inserts it first has the
claim; another finds the row and waits for its data. A claim whose process stopped before
storing anything is taken over once it is CLAIM_LASTS old; an analysis of an older FORMAT
is claimed again and computed anew. Every method is a blocking call (the server makes it
off the event loop).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, delete, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from cantstop.analysis import Units
from cantstop.web.db.rows import GameRow, SeatRow, now
from cantstop.web.db.storage import Storage
from cantstop.web.db.values import SeatKind
from cantstop.web.review.rows import AnalysisRow, AnalysisSeatRow, PracticeRow
from cantstop.web.review.work import Computed

FORMAT = 1  # the analysis JSON's shape: `GameAnalysis.to_json` as of this version
CLAIM_LASTS = timedelta(minutes=5)  # a classic four-player game takes seconds; a claim this old is a dead process's


class Analyses:
    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    def stored(self, game_id: str) -> str | None:
        """The game's analysis (JSON text) if one of today's format is stored, else None."""
        with self.storage.engine.connect() as conn:
            return conn.scalar(
                select(AnalysisRow.data).where(AnalysisRow.game_id == game_id, AnalysisRow.format == FORMAT, AnalysisRow.data.is_not(None))
            )

    def claim(self, game_id: str) -> datetime | None:
        """Take the game's analysis on: the claim's time if this process is to compute it; None
        if another has it under way (claimed less than CLAIM_LASTS ago) or has stored it."""
        stamp = now()
        try:
            with self.storage.engine.begin() as conn:
                conn.execute(insert(AnalysisRow).values(game_id=game_id, format=FORMAT, data=None, claimed=stamp, done=None))
            return stamp
        except IntegrityError:  # a row is there: a claim, or an analysis
            pass
        dead = and_(AnalysisRow.data.is_(None), AnalysisRow.claimed < stamp - CLAIM_LASTS)
        with self.storage.engine.begin() as conn:
            taken = conn.execute(
                update(AnalysisRow).where(AnalysisRow.game_id == game_id, or_(dead, AnalysisRow.format < FORMAT))
                .values(format=FORMAT, data=None, claimed=stamp, done=None)
            )
        return stamp if taken.rowcount else None

    def save(self, game_id: str, computed: Computed) -> bool:
        """Store the analysis this process claimed, with its figures and costly decisions, all
        at once; False (nothing changed) if another process stored one first."""
        with self.storage.engine.begin() as conn:
            mine = conn.execute(
                update(AnalysisRow).where(AnalysisRow.game_id == game_id, AnalysisRow.data.is_(None))
                .values(format=FORMAT, data=computed.data, done=now())
            )
            if not mine.rowcount:
                return False
            for table in (AnalysisSeatRow, PracticeRow):  # an older format's
                conn.execute(delete(table).where(table.game_id == game_id))
            conn.execute(insert(AnalysisSeatRow), [
                {"game_id": game_id, "seat": f.seat, "units": f.units, "accuracy": f.accuracy, "luck": f.luck, "loss": f.loss,
                 "decisions": f.decisions} for f in computed.figures
            ])
            if computed.costly:
                conn.execute(insert(PracticeRow), [
                    {"game_id": game_id, "ply": c.ply, "seat": c.seat, "units": c.units, "position": c.position, "options": c.options,
                     "chosen": c.chosen, "loss": c.loss} for c in computed.costly
                ])
        return True

    def release(self, game_id: str, claim: datetime) -> None:
        """Give up the claim made at `claim` (the analysis was refused, or failed): nothing of it
        stays. A claim taken over since (this one had gone stale) is the other process's, and stays."""
        with self.storage.engine.begin() as conn:
            conn.execute(
                delete(AnalysisRow).where(AnalysisRow.game_id == game_id, AnalysisRow.data.is_(None), AnalysisRow.claimed == claim)
            )

    def averages(self, account: int | None = None, bot: str | None = None) -> dict[str, Any] | None:
        """A player's averages over their analysed rated games (an account's, or the bot
        `bot` as 'bot:NAME'): games, accuracy (over those with a decision at stake) and luck
        in points; None before any."""
        mine = SeatRow.account_id == account if account is not None else and_(SeatRow.name == bot, SeatRow.kind == SeatKind.BOT.value)
        with self.storage.engine.connect() as conn:
            games, accuracy, luck = conn.execute(
                select(func.count(), func.avg(AnalysisSeatRow.accuracy), func.avg(AnalysisSeatRow.luck))
                .join(SeatRow, and_(SeatRow.game_id == AnalysisSeatRow.game_id, SeatRow.seat == AnalysisSeatRow.seat))
                .join(GameRow, GameRow.id == AnalysisSeatRow.game_id)
                .where(mine, GameRow.rated.is_(True), AnalysisSeatRow.units == Units.CHANCE.value)
            ).one()
        if not games:
            return None
        return {"games": int(games), "accuracy": None if accuracy is None else round(float(accuracy), 1), "luck": round(float(luck), 1)}
