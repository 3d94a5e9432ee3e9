"""Analyses in storage, as several server processes share them: one claims a game's analysis,
the others find the claim; a dead process's claim is taken over; a result is stored once;
practice positions and answers. On SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from sqlalchemy import update
from web_helpers import storages

from cantstop.web.db.storage import Storage
from cantstop.web.db.values import SeatKind, Taker
from cantstop.web.errors import Invalid, NotFound
from cantstop.web.identity.accounts import Accounts
from cantstop.web.review.analyses import CLAIM_LASTS, Analyses
from cantstop.web.review.practice import Practice
from cantstop.web.review.rows import AnalysisRow
from cantstop.web.review.work import Computed, Costly, Figures

OPTIONS = '[["roll", 61.5], ["stop", 50.25]]'
POSITION = "classic 00000000000/00000000000 01001000000 A decide 2 0"


def computed(data: str = '{"x":1}', seat: int = 0) -> Computed:
    return Computed(
        data,
        (Figures(0, "chance", 80.0, 3.5, 4.0, 12), Figures(1, "chance", None, -3.5, 0.0, 0)),
        (Costly(7, seat, "chance", POSITION, OPTIONS, "stop", 11.25),),
    )


def a_game(storage: Storage, account: int | None = None) -> str:
    people = {0: Taker("Ann", "token-a", account)} if account is not None else {}
    return storage.create_game("classic", [(SeatKind.OPEN, None), (SeatKind.BOT, "rule28")], people=people)


def test_one_process_claims_a_game_the_others_find_it_claimed_then_stored(any_url: str) -> None:
    with storages(any_url, 2) as (one, other):
        game_id = a_game(one)
        mine, theirs = Analyses(one), Analyses(other)
        claim = mine.claim(game_id)
        assert claim is not None
        assert theirs.claim(game_id) is None and theirs.stored(game_id) is None  # under way elsewhere
        assert mine.save(game_id, computed())
        assert theirs.stored(game_id) == '{"x":1}'
        assert not theirs.save(game_id, computed('{"x":2}'))  # stored once: the first stays
        assert theirs.claim(game_id) is None
        mine.release(game_id, claim)  # an analysis stored is no claim to give up
        assert mine.stored(game_id) == '{"x":1}'


def test_a_dead_processs_claim_is_taken_over_and_its_release_leaves_the_new_one(any_storage: Storage) -> None:
    analyses = Analyses(any_storage)
    game_id = a_game(any_storage)
    dead = analyses.claim(game_id)
    assert dead is not None
    assert analyses.claim(game_id) is None  # fresh: another process is on it
    with any_storage.engine.begin() as conn:
        conn.execute(update(AnalysisRow).values(claimed=dead - CLAIM_LASTS - timedelta(seconds=1)))
    taken = analyses.claim(game_id)
    assert taken is not None and taken != dead
    analyses.release(game_id, dead - CLAIM_LASTS - timedelta(seconds=1))  # the dead process, back: not its claim any more
    assert analyses.claim(game_id) is None
    analyses.release(game_id, taken)  # refused or failed: nothing stays, and a later request tries again
    assert analyses.stored(game_id) is None
    assert analyses.claim(game_id) is not None


def test_an_analysis_of_an_older_format_is_claimed_again_and_replaced(any_storage: Storage) -> None:
    analyses = Analyses(any_storage)
    game_id = a_game(any_storage)
    assert analyses.claim(game_id) is not None and analyses.save(game_id, computed())
    with any_storage.engine.begin() as conn:
        conn.execute(update(AnalysisRow).values(format=0))
    assert analyses.stored(game_id) is None
    assert analyses.claim(game_id) is not None
    assert analyses.save(game_id, computed('{"x":3}'))  # its figures and positions replaced, not added
    assert analyses.stored(game_id) == '{"x":3}'


def test_of_processes_claiming_at_the_same_moment_one_gets_it(any_url: str) -> None:
    with storages(any_url, 4) as stores:
        game_id = a_game(stores[0])
        start = threading.Barrier(len(stores))
        won: list[bool] = []

        def claim(storage: Storage) -> None:
            start.wait(timeout=30)
            won.append(Analyses(storage).claim(game_id) is not None)

        threads = [threading.Thread(target=claim, args=(s,)) for s in stores]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert sorted(won) == [False, False, False, True]


def test_practice_asks_an_accounts_own_positions_unanswered_first_then_those_answered_wrong(any_storage: Storage) -> None:
    accounts = Accounts(any_storage)
    ann = accounts.create("Ann", None).id
    bob = accounts.create("Bob", None).id
    practice, analyses = Practice(any_storage), Analyses(any_storage)
    game_id = a_game(any_storage, ann)
    assert practice.next(ann) is None and practice.progress(ann) == {"answered": 0, "right": 0, "positions": 0}
    assert analyses.claim(game_id) is not None and analyses.save(game_id, computed())
    asked = practice.next(ann)
    assert asked is not None and (asked.game_id, asked.ply, asked.chosen) == (game_id, 7, "stop")
    assert asked.options == (("roll", 61.5), ("stop", 50.25))
    assert practice.next(bob) is None  # not Bob's decision
    with pytest.raises(NotFound):
        practice.position(bob, game_id, 7)
    with pytest.raises(Invalid, match="answer one of roll, stop"):
        asked.judged("7+7")
    loss, graded = asked.judged("stop")
    assert loss == 11.25 and graded.value == "blunder"
    practice.answer(ann, asked, "stop", False)
    assert practice.progress(ann) == {"answered": 1, "right": 0, "positions": 1}
    again = practice.next(ann)  # every position answered: the wrong one comes back
    assert again is not None and again.ply == 7
    practice.answer(ann, again, "roll", True)
    assert practice.next(ann) is None
    assert practice.progress(ann) == {"answered": 1, "right": 1, "positions": 1}
