"""Practice in storage: the costly decisions of an account's own analysed games, asked again
one at a time, and the account's answers.

A position not yet answered comes first (in no set order); once every one has been, those
last answered wrong come back. An answer is right when it gives up no more than a good
decision may (`analysis.grades`: under a point of chance, alone under 0.05 turns). Every
method is a blocking call (the server makes it off the event loop).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import aliased

from cantstop.analysis import Grade, Units
from cantstop.analysis.grades import grade
from cantstop.web.db.rows import SeatRow, now
from cantstop.web.db.storage import Storage
from cantstop.web.errors import Invalid, NotFound
from cantstop.web.review.rows import PracticeAnswerRow, PracticeRow

RIGHT = (Grade.BEST, Grade.GOOD)


@dataclass(frozen=True)
class Position:
    """A practice position: where it comes from, whose decision it was, and its options."""

    game_id: str
    ply: int
    seat: int
    units: Units
    position: str  # notation
    options: tuple[tuple[str, float], ...]  # best first
    chosen: str  # what was played in the game
    loss: float

    def judged(self, action: str) -> tuple[float, Grade]:
        """What `action` gives up against the best option, and its grade; Invalid for an
        action that is no option here."""
        values = dict(self.options)
        if action not in values:
            allowed = ", ".join(sorted(values))
            raise Invalid("bad_answer", f"{action!r} is not an option in this position: answer one of {allowed}")
        loss = abs(self.options[0][1] - values[action])
        return loss, grade(loss, self.units)


def _position(row: PracticeRow) -> Position:
    options = tuple((str(action), float(value)) for action, value in json.loads(row.options))
    return Position(row.game_id, row.ply, row.seat, Units(row.units), row.position, options, row.chosen, row.loss)


class Practice:
    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    def _mine(self, account_id: int) -> Any:
        """The practice positions of the account's own seats."""
        return select(PracticeRow).join(
            SeatRow, and_(SeatRow.game_id == PracticeRow.game_id, SeatRow.seat == PracticeRow.seat, SeatRow.account_id == account_id)
        )

    def next(self, account_id: int) -> Position | None:
        """A position the account has not answered, else one it last answered wrong; None
        when there is none (no costly decision in its analysed games, or every one answered right)."""
        answer = aliased(PracticeAnswerRow)
        joined = self._mine(account_id).outerjoin(
            answer, and_(answer.account_id == account_id, answer.game_id == PracticeRow.game_id, answer.ply == PracticeRow.ply)
        )
        with self.storage.session() as s:
            for again in (answer.game_id.is_(None), answer.correct.is_(False)):
                row = s.scalars(joined.where(again).order_by(func.random()).limit(1)).first()
                if row is not None:
                    return _position(row)
        return None

    def position(self, account_id: int, game_id: str, ply: int) -> Position:
        """One of the account's practice positions; NotFound for any other."""
        with self.storage.session() as s:
            row = s.scalars(self._mine(account_id).where(PracticeRow.game_id == game_id, PracticeRow.ply == ply)).first()
            if row is None:
                raise NotFound("no_position", f"no practice position {ply} of game {game_id[:40]!r} is yours: ask /api/practice for one")
            return _position(row)

    def answer(self, account_id: int, found: Position, action: str, right: bool) -> None:
        """Keep the account's answer to `found` (its last answer, and how many it gave)."""
        for attempt in range(2):  # two first answers at once: the second finds the first's row
            try:
                with self.storage.session() as s:
                    row = s.get(PracticeAnswerRow, (account_id, found.game_id, found.ply), with_for_update=True)
                    if row is None:
                        s.add(PracticeAnswerRow(account_id=account_id, game_id=found.game_id, ply=found.ply, answer=action,
                                                correct=right, tries=1, at=now()))
                    else:
                        row.answer, row.correct, row.tries, row.at = action, right, row.tries + 1, now()
                return
            except IntegrityError:
                if attempt:
                    raise

    def progress(self, account_id: int) -> dict[str, int]:
        """The account's practice so far: positions answered, answered right (the last time),
        and positions in all."""
        with self.storage.session() as s:
            answered, right = s.execute(
                select(func.count(), func.count().filter(PracticeAnswerRow.correct.is_(True)))
                .where(PracticeAnswerRow.account_id == account_id)
            ).one()
            total = s.scalar(select(func.count()).select_from(self._mine(account_id).subquery()))
        return {"answered": int(answered), "right": int(right), "positions": int(total or 0)}
