"""The challenges' storage against a model of it, by hypothesis: whatever accounts challenge,
accept, decline, withdraw and sweep, and however time passes, two accounts never have two
open challenges between them, an account never has more open than the limit, a challenge
answered is never answered again, and each accepted one made one game, its seats taken by
the two accounts in the order asked for."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule
from sqlalchemy import func, select

from cantstop.web.challenges.rows import GameChallengeRow
from cantstop.web.challenges.store import KEPT, LASTS, ChallengeState, ChallengeStore, SeatOrder
from cantstop.web.db.rows import GameRow
from cantstop.web.db.storage import Storage
from cantstop.web.errors import Conflict
from cantstop.web.identity.accounts import Accounts

MOST = 2
PEOPLE = ("Ann", "Bob", "Cy", "Dot")


@cache
def template() -> tuple[Path, list[int]]:
    """A database with the schema and the four accounts, made once: each example starts from a copy."""
    folder = Path(tempfile.mkdtemp(prefix="challenges-"))
    atexit.register(shutil.rmtree, folder, True)
    storage = Storage(f"sqlite:///{folder / 'template.sqlite3'}")
    storage.migrate()
    ids = [Accounts(storage).create(name, None).id for name in PEOPLE]
    storage.checkpoint()
    storage.close()
    return folder / "template.sqlite3", ids


@dataclass
class Model:
    challenger: int
    challenged: int
    expires: datetime
    state: ChallengeState
    answered: datetime | None = None
    seats: tuple[int, int] | None = None  # the accounts at seats A and B, once accepted
    game: str | None = None

    def open_at(self, at: datetime) -> bool:
        return self.state is ChallengeState.OPEN and self.expires > at


class ChallengeMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.folder = tempfile.TemporaryDirectory()
        made, self.ids = template()
        shutil.copy(made, Path(self.folder.name) / "c.sqlite3")
        self.storage = Storage(f"sqlite:///{Path(self.folder.name) / 'c.sqlite3'}")
        self.names = dict(zip(self.ids, PEOPLE))
        self.store = ChallengeStore(self.storage)
        self.at = datetime(2026, 11, 28, 12, 0)
        self.model: dict[str, Model] = {}

    def teardown(self) -> None:
        self.storage.close()
        self.folder.cleanup()

    def _expire(self, challenger: int, challenged: int) -> None:
        """What making a challenge stores first: the challenger's and the pair's overdue ones expired."""
        for m in self.model.values():
            pair = {m.challenger, m.challenged} == {challenger, challenged}
            if (m.challenger == challenger or pair) and m.state is ChallengeState.OPEN and m.expires <= self.at:
                m.state, m.answered = ChallengeState.EXPIRED, m.expires

    @rule(first=st.integers(0, 3), second=st.integers(0, 3), seats=st.sampled_from(SeatOrder))
    def challenge(self, first: int, second: int, seats: SeatOrder) -> None:
        a, b = self.ids[first], self.ids[second]
        if a == b:
            return  # the service refuses it before storage is asked
        before = {key: (m.state, m.answered) for key, m in self.model.items()}
        self._expire(a, b)
        sent = sum(1 for m in self.model.values() if m.challenger == a and m.state is ChallengeState.OPEN)
        paired = any({m.challenger, m.challenged} == {a, b} and m.state is ChallengeState.OPEN for m in self.model.values())
        expected = "too_many" if sent >= MOST else "challenged_already" if paired else None
        try:
            made = self.store.create(a, b, self.names[b], "classic", 0, False, seats, self.at, MOST)
        except Conflict as refused:
            assert refused.code == expected
            for key, (state, answered) in before.items():  # a refusal stores nothing: its expiries roll back too
                self.model[key].state, self.model[key].answered = state, answered
            return
        assert expected is None
        self.model[made] = Model(a, b, self.at + LASTS, ChallengeState.OPEN)

    def _some(self, pick: int) -> str | None:
        ids = sorted(self.model)
        return ids[pick % len(ids)] if ids else None

    @rule(pick=st.integers(0, 50), seat=st.integers(0, 1), again=st.booleans())
    def accept(self, pick: int, seat: int, again: bool) -> None:
        challenge_id = self._some(pick)
        if challenge_id is None:
            return
        found = self.store.challenge(challenge_id)
        assert found is not None
        m = self.model[challenge_id]
        for attempt in range(2 if again else 1):  # a second click finds it answered
            game_id = self.store.accept(found, seat, self.at)
            if attempt == 0 and m.open_at(self.at):
                assert game_id is not None
                m.state, m.answered = ChallengeState.ACCEPTED, self.at
                m.seats = (m.challenger, m.challenged) if seat == 0 else (m.challenged, m.challenger)
                m.game = game_id
                game = self.storage.game(game_id)
                assert game is not None and tuple(s.account_id for s in game.seats) == m.seats
            else:
                assert game_id is None

    @rule(pick=st.integers(0, 50), who=st.integers(0, 3), state=st.sampled_from([ChallengeState.DECLINED, ChallengeState.WITHDRAWN]))
    def close(self, pick: int, who: int, state: ChallengeState) -> None:
        challenge_id = self._some(pick)
        if challenge_id is None:
            return
        m = self.model[challenge_id]
        account = self.ids[who]
        whose = m.challenged if state is ChallengeState.DECLINED else m.challenger
        closed = self.store.close(challenge_id, account, state, self.at)
        assert closed == (m.open_at(self.at) and account == whose)
        if closed:
            m.state, m.answered = state, self.at

    @rule(hours=st.integers(1, 30))
    def wait(self, hours: int) -> None:
        self.at += timedelta(hours=hours)

    @rule(days=st.integers(1, 40))
    def sweep(self, days: int) -> None:
        self.at += timedelta(days=days)
        expired, waiting = self.store.sweep(self.at)
        overdue = [m for m in self.model.values() if m.state is ChallengeState.OPEN and m.expires <= self.at]
        assert expired == len(overdue)
        for m in overdue:
            m.state, m.answered = ChallengeState.EXPIRED, m.expires
        self.model = {k: m for k, m in self.model.items() if m.answered is None or m.answered >= self.at - KEPT}
        # Nothing here starts a game (the service does): every accepted one kept is still waiting.
        assert sorted(waiting) == sorted(m.game for m in self.model.values() if m.game is not None)

    @invariant()
    def storage_is_the_model(self) -> None:
        with self.storage.session() as s:
            stored = {r.id: (r.challenger_id, r.challenged_id, r.state) for r in s.scalars(select(GameChallengeRow))}
            made = int(s.scalar(select(func.count()).select_from(GameRow)) or 0)
        assert stored == {k: (m.challenger, m.challenged, m.state.value) for k, m in self.model.items()}
        assert made >= sum(1 for m in self.model.values() if m.state is ChallengeState.ACCEPTED)

    @invariant()
    def one_open_a_pair_and_so_many_an_account(self) -> None:
        live = [m for m in self.model.values() if m.open_at(self.at)]
        pairs = [frozenset((m.challenger, m.challenged)) for m in live]
        assert len(pairs) == len(set(pairs))
        for account in self.ids:
            assert sum(1 for m in live if m.challenger == account) <= MOST
            mine = self.store.mine(account, self.at, self.at - timedelta(days=1))
            received = {c.id for c in mine if c.challenged_id == account and c.state_at(self.at) is ChallengeState.OPEN}
            assert received == {k for k, m in self.model.items() if m.challenged == account and m.open_at(self.at)}


ChallengeMachine.TestCase.settings = settings(max_examples=20, stateful_step_count=25, deadline=None)
test_the_challenges_storage_keeps_its_rules = ChallengeMachine.TestCase
