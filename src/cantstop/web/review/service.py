"""The review room's service: a finished game's analysis (computed once, in an analysis
process, then read from storage), the roll map of a point of a game, the tutor's values of
the decision before a player, and practice on the costly decisions of one's own games.

Fair play holds throughout: while a rated game is on, nobody gets its analysis, a roll map
of it or the tutor (players nor spectators); the tutor is for friendly games only, and for
the player whose decision it is.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from itertools import islice
from typing import Any, TypeVar

from cantstop.analysis import AnalysisError
from cantstop.core.choices import format_choice
from cantstop.core.notation import from_notation, seat_letter, to_notation
from cantstop.core.record import write_record
from cantstop.core.state import ROLL, STOP, Phase, State
from cantstop.table import Kind, Move
from cantstop.web.errors import Conflict, Invalid, NotAllowed, NotOffered, Refused, TooMany
from cantstop.web.games.describe import state_json
from cantstop.web.games.live import LiveGame, LiveGames
from cantstop.web.review import work
from cantstop.web.review.analyses import FORMAT, Analyses
from cantstop.web.review.analysts import Analysts
from cantstop.web.review.practice import RIGHT, Position, Practice
from cantstop.web.settings import AnalyseAfter

log = logging.getLogger("cantstop.web")
R = TypeVar("R")
FAIR_PLAY = ("this game is {what}: its analysis, roll maps and the tutor are off for everyone, players and spectators,"
             " until it ends (friendly games have them)")
BACKLOG = 20  # whole analyses waiting in this process at most: past it a request is refused, a game's end passes
KEPT = 512  # roll maps and tutor answers remembered, by position (many watch one game)
ASK_AGAIN = 2  # seconds a client told "under way" waits before asking again


@dataclass(frozen=True)
class Served:
    """The answer to a request for an analysis: the stored analysis (JSON text) with the game
    version after each of its events (the replay's frames), or, with no data, under way."""

    data: str | None
    versions: tuple[int, ...] = ()

    def body(self) -> str:
        """The JSON answer, written around the stored text rather than parsed and written again."""
        if self.data is None:
            return json.dumps({"status": "analysing", "retry_after": ASK_AGAIN})
        return f'{{"status":"done","format":{FORMAT},"versions":{json.dumps(list(self.versions))},"analysis":{self.data}}}'


def event_versions(moves: Iterable[Move]) -> tuple[int, ...]:
    """The game version after each event of its record (index 0: the start, version 0): every
    stored move is one event but a fallback's note, which only says why the next move was made."""
    return (0, *(version for version, move in enumerate(moves, 1) if move.kind is not Kind.FALLBACK))


def actions_of(state: State) -> list[str]:
    """The options of the decision `state` waits for, as the analysis writes them, in the
    rules' order (never best first: practice asks before it tells)."""
    if state.phase is Phase.CHOOSE:
        return [format_choice(c) for c in state.options]
    return [str(ROLL), *([str(STOP)] if state.may_stop() else [])]


class Kept(OrderedDict[str, dict[str, Any]]):
    """The last KEPT answers by position, the least recently asked dropped first."""

    def get_fresh(self, key: str) -> dict[str, Any] | None:
        found = self.get(key)
        if found is not None:
            self.move_to_end(key)
        return found

    def keep(self, key: str, value: dict[str, Any]) -> dict[str, Any]:
        self[key] = value
        if len(self) > KEPT:
            self.popitem(last=False)
        return value


class Reviews:
    def __init__(self, games: LiveGames, analysts: Analysts, after: AnalyseAfter = AnalyseAfter.RATED, wait: float = 10.0,
                 after_per_minute: int = 20) -> None:
        """`after`: which games are analysed as they end (here, by the process that ended them),
        at most `after_per_minute` of them in any minute; `wait`: seconds a request waits for
        an analysis under way before it is told to ask again."""
        self.games = games
        self.analysts = analysts
        self.after = AnalyseAfter(after)
        self.after_per_minute = after_per_minute
        self._started_after: deque[float] = deque()  # when this process began analysing a game as it ended, last minute
        self.wait = wait
        self.analyses = Analyses(games.storage)
        self.practice = Practice(games.storage)
        self._jobs: dict[str, asyncio.Task[str | None]] = {}  # game id -> its analysis under way here
        self._refused: dict[tuple[str, int], str] = {}  # (variant, players) -> why no value model fits
        self._maps = Kept()
        self._advice = Kept()
        self.analysed = 0  # analyses this process computed and stored (the metrics read it)
        self.skipped = 0  # games that ended here and were not analysed then: too many waiting, or a busy minute

    @property
    def under_way(self) -> int:
        """Analyses this process has claimed, is computing or is waiting on."""
        return len(self._jobs)

    def start(self) -> None:
        self.analysts.start()

    async def close(self) -> None:
        """Stop the analyses under way: their processes end, their claims are given up."""
        for task in list(self._jobs.values()):
            task.cancel()
        await asyncio.gather(*self._jobs.values(), return_exceptions=True)
        self.analysts.close()

    # ------------------------------------------------------------ the games
    async def _game(self, game_id: str, seats: bool = False) -> LiveGame:
        """The game as stored now, refused where fair play hides its values (a rated or a
        tournament's game on)."""
        game = await self.games.live(game_id)
        async with game.lock:
            await self.games.refresh(game, seats=seats)
        if game.meta.fair_play and not game.finished:
            raise NotAllowed("fair_play", FAIR_PLAY.format(what="rated" if game.meta.rated else "a tournament's"))
        return game

    def _model_refused(self, game: LiveGame) -> None:
        """Invalid `no_model` for a kind of game no value model fits (as found before)."""
        why = self._refused.get((game.meta.variant, len(game.meta.seats)))
        if why is not None:
            raise Invalid("no_model", why)

    async def _valued(self, game: LiveGame, job: Callable[..., R], *args: object, whole: bool = False) -> R:
        """A job's answer from the analysis processes (`whole`: a game's analysis, which waits
        its turn); a refusal of the value model is remembered for the kind of game (Invalid
        `no_model`, then and ever after)."""
        self._model_refused(game)
        try:
            return await self.analysts.run(job, *args, whole=whole)
        except AnalysisError as error:
            self._refused[(game.meta.variant, len(game.meta.seats))] = str(error)
            raise Invalid("no_model", str(error)) from None

    # ------------------------------------------------------------ analysis
    async def analysis(self, game_id: str) -> Served:
        """The analysis of finished game `game_id`: stored, computed now, or (no data) under
        way here or in another process for longer than this request waits.

        Refused: a rated game on (NotAllowed `fair_play`), a game not over (Conflict
        `not_over`; `abandoned` for one that ended without a winner, `not_started`), a kind of
        game no value model fits (Invalid `no_model`), this server not analysing (NotOffered),
        too many analyses waiting (TooMany)."""
        game = await self._game(game_id, seats=True)
        if game.ended:
            raise Conflict("abandoned", f"the game ended without a winner ({(game.meta.ended or 'abandoned').rstrip('.')}):"
                                        " only a game played to its end is analysed")
        if game.table is None:
            raise Conflict("not_started", "the game has not started: nothing to analyse")
        if not game.finished:
            raise Conflict("not_over", "an analysis is of a finished game: this one is still being played")
        versions = event_versions(game.table.moves)
        stored = await self.games.recorder.db(self.analyses.stored, game_id)
        if stored is not None:
            self.games.forget_if_idle(game)  # a finished game nobody watches needs no memory: it is read again if asked
            return Served(stored, versions)
        if self.analysts.off is not None:
            raise NotOffered("analysis_off", self.analysts.off)
        self._model_refused(game)
        job = self._jobs.get(game_id)
        if job is None:
            if len(self._jobs) >= BACKLOG:
                raise TooMany(f"the server has {BACKLOG} analyses waiting: ask again in a minute", 60)
            job = self._analyse(game)
        try:
            async with asyncio.timeout(self.wait):
                data = await asyncio.shield(job)
        except TimeoutError:
            return Served(None)
        return Served(data, versions)

    def _analyse(self, game: LiveGame) -> asyncio.Task[str | None]:
        game_id = game.meta.id
        task = asyncio.create_task(self._compute(game))
        self._jobs[game_id] = task
        task.add_done_callback(lambda done: self._done(game_id, done))
        return task

    def _done(self, game_id: str, task: asyncio.Task[str | None]) -> None:
        if self._jobs.get(game_id) is task:
            del self._jobs[game_id]
        if task.cancelled():
            return
        error = task.exception()  # retrieved: the request that waited may have gone
        if error is not None and not isinstance(error, Refused):
            log.error("game %s: its analysis failed: %r", game_id, error)

    async def _compute(self, game: LiveGame) -> str | None:
        """Claim, compute and store the game's analysis; its JSON text, or None where another
        process has it under way. A refusal or a failure stores nothing."""
        assert game.table is not None
        game_id = game.meta.id
        db = self.games.recorder.db
        claim = await db(self.analyses.claim, game_id)
        if claim is None:
            return await db(self.analyses.stored, game_id)  # stored meanwhile, or under way elsewhere
        saved = False
        try:
            # Seats by letter: a stored analysis names nobody (an account deleted later is not named in it).
            record = replace(game.table.record, players=[seat_letter(s) for s in range(len(game.meta.seats))])
            computed = await self._valued(game, work.analysed, write_record(record), whole=True)
            saved = await db(self.analyses.save, game_id, computed)
            if saved:
                self.analysed += 1
                return computed.data
            return await db(self.analyses.stored, game_id)  # another process's, stored first
        finally:
            if not saved:  # refused, failed or stopped: the claim goes, so that a later request tries again
                await db(self.analyses.release, game_id, claim)

    def ended(self, game: LiveGame) -> None:
        """A game moved: one this process just ended is analysed now if the settings ask for it
        (`after`), unless too many analyses wait already (it is analysed when asked for)."""
        table = game.table
        if table is None or not table.over or game.driven != game.version or game.meta.id in self._jobs:
            return
        if self.after is AnalyseAfter.NONE or (self.after is AnalyseAfter.RATED and not game.meta.rated):
            return
        if self.analysts.off is not None or (game.meta.variant, len(game.meta.seats)) in self._refused:
            return
        # Past the minute's share, games are analysed when first asked for: a busy server's
        # games would otherwise keep its analysis processes (and its database) busy for ever.
        now = self.games.now()
        while self._started_after and self._started_after[0] <= now - 60:
            self._started_after.popleft()
        if len(self._jobs) >= BACKLOG or len(self._started_after) >= self.after_per_minute:
            self.skipped += 1
            return
        self._started_after.append(now)
        self._analyse(game)

    # ------------------------------------------------------------ a position's values
    async def roll_map(self, game_id: str, ply: int | None) -> dict[str, Any]:
        """What the next roll can bring: in the position after event `ply` of the game's record,
        or (None) in the current one of a game in progress.

        Refused: a rated game on (NotAllowed `fair_play`), a game not started or over (with no
        `ply`), a position whose dice are rolled (Conflict), a `ply` out of the record
        (Invalid `bad_ply`), no value model (Invalid `no_model`), no analysis here (NotOffered)."""
        game = await self._game(game_id)
        table = game.table
        if table is None:
            raise Conflict("not_started", "the game has not started: no roll yet")
        if ply is None:
            if game.finished:
                raise Conflict("game_over", "the game is over: there is no next roll (ask for a point of it with ?ply=N)")
            state = table.state
        else:
            events = len(table.record.events)
            if ply > events:
                raise Invalid("bad_ply", f"ply {ply} is past the game's record: it has {events} events (0 is the start)")
            state = next(islice(table.record.states(), ply, None))
        if state.phase is Phase.CHOOSE:
            raise Conflict("no_roll_map", "the dice are rolled in this position: a roll map is for a position about to roll, or deciding whether to")
        if state.phase is Phase.OVER:
            raise Conflict("game_over", "the game is over in this position: there is no next roll")
        position = to_notation(state)
        found = self._maps.get_fresh(position) or self._maps.keep(position, await self._valued(game, work.roll_map_of, position))
        return {**found, "ply": ply, "version": game.version if ply is None else None}

    async def tutor(self, game_id: str, seat: int | None) -> dict[str, Any]:
        """The tutor's values of the decision before the player of `seat` (the seat this
        client holds): each option's value, what it gives up and the sentence saying so.

        Refused: a rated or a tournament's game (NotAllowed `fair_play`, whatever its state), a spectator
        (NotAllowed `not_seated`), a game not started or over, another seat's turn, no
        decision yet (Conflict), no value model (Invalid `no_model`), no analysis here."""
        game = await self._game(game_id)
        if game.meta.fair_play:
            raise NotAllowed("fair_play", "the tutor is for friendly games: a rated or a tournament's game is played without advice")
        table = game.table
        if table is None:
            raise Conflict("not_started", "the game has not started: nothing to decide yet")
        if game.finished:
            raise Conflict("game_over", "the game is over: nothing to decide")
        if seat is None:
            raise NotAllowed("not_seated", "the tutor advises the player whose decision it is: this client holds no seat in the game")
        state = table.state
        if state.seat != seat:
            raise Conflict("not_your_turn", f"it is seat {seat_letter(state.seat)}'s turn: the tutor speaks to the player deciding")
        if state.phase is Phase.ROLL:
            raise Conflict("nothing_to_decide", "the dice are to be rolled: the tutor speaks at a decision (a choice, or rolling on against stopping)")
        position = to_notation(state)
        found = self._advice.get_fresh(position) or self._advice.keep(position, await self._valued(game, work.options_of, position))
        return {**found, "version": game.version}

    # ------------------------------------------------------------ practice
    async def question(self, account_id: int) -> dict[str, Any]:
        """A practice position of the account's own games (None when there is none) and its progress."""
        db = self.games.recorder.db
        found = await db(self.practice.next, account_id)
        progress = await db(self.practice.progress, account_id)
        return {"position": None if found is None else question_json(found), "progress": progress}

    async def answer(self, account_id: int, game_id: str, ply: int, action: str) -> dict[str, Any]:
        """Judge the account's answer to one of its practice positions and keep it: whether it
        was right (it gave up no more than a good decision may), every option's value, what
        was played in the game, and the progress.

        Refused: a position that is not the account's (NotFound), an action that is no option
        there (Invalid `bad_answer`)."""
        db = self.games.recorder.db
        found = await db(self.practice.position, account_id, game_id, ply)
        loss, graded = found.judged(action)
        right = graded in RIGHT
        await db(self.practice.answer, account_id, found, action, right)
        return {
            "game": found.game_id, "ply": found.ply, "answer": action, "right": right, "loss": loss, "grade": graded.value,
            "played": found.chosen, "units": found.units.value,
            "options": [{"action": action, "value": value} for action, value in found.options],
            "progress": await db(self.practice.progress, account_id),
        }


def question_json(found: Position) -> dict[str, Any]:
    """A practice position as the page asks it: the board, the options in the rules' order."""
    state = from_notation(found.position)
    return {"game": found.game_id, "ply": found.ply, "seat": found.seat, "turn": state.turn + 1, "units": found.units.value,
            "state": state_json(state), "actions": actions_of(state)}

