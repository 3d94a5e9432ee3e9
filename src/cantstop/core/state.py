"""The game position as an immutable value, and the moves between positions.

Phases of a turn: ROLL (waiting for dice; a turn always starts here) → CHOOSE
(pick one of the roll's choices) → DECIDE (roll again or stop) → back to ROLL, or
the next player's ROLL, or OVER. A roll with no choice is a bust: the runners
vanish and the next player is to roll.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import IntEnum, StrEnum
from operator import getitem
from typing import NamedTuple

from cantstop.core.choices import Choice, format_choice, roll_choices
from cantstop.core.dice import Dice
from cantstop.core.errors import IllegalActionError, InvalidDiceError, SetupError
from cantstop.core.variant import Variant, preset


class Phase(IntEnum):
    ROLL = 0  # the dice must be rolled (a chance node)
    CHOOSE = 1  # the dice are on the table; pick a choice
    DECIDE = 2  # roll again or stop
    OVER = 3


class Decision(StrEnum):
    ROLL = "roll"
    STOP = "stop"

    def __str__(self) -> str:
        return self.value


Action = Decision | Choice
ROLL = Decision.ROLL
STOP = Decision.STOP
_ROLL, _CHOOSE, _DECIDE = Phase.ROLL, Phase.CHOOSE, Phase.DECIDE
_MISSING: tuple[Choice, ...] = ((),)
# Building states through tuple.__new__ skips NamedTuple's argument handling: the hot path.
_new: Callable[[type[State], tuple[object, ...]], State] = tuple.__new__


class State(NamedTuple):
    """A whole position. Lists are indexed by column *number*: `pieces[p][7]` is p's piece in 7.

    `pieces[p][c]` and `runners[c]` are space numbers, 0 meaning off the board and
    the column's height its top; `claimed[c]` is the owner or -1. `steps` counts the
    steps taken this turn; `turn` counts the turns taken and finished (a turn is taken from
    its first roll on: `turn_begun`). In CHOOSE, `dice` is the
    roll and `options` its choices. `status` is derived (see `column_status`): it is
    kept because every roll of every search looks its choices up by it.
    `runner_columns` (the columns holding a runner, ascending) is derived too: bots and
    the end of a turn need it, and keeping it costs a little only when a runner is placed.
    `seat` is the seat to move (the winner once the game is over); `num_players` counts seats.

    A move returns a new state and leaves this one as it was. An action the position does
    not allow raises `IllegalActionError` naming the legal ones; dice that are no roll of
    the variant raise `InvalidDiceError`.

    >>> state = new_game("classic", 2).roll((2, 4, 5, 5))
    >>> state.phase.name, state.options
    ('CHOOSE', ((6, 10), (7, 9)))
    >>> after = state.play((6, 10))
    >>> after.runners[6], after.runners[10], after.legal_actions()
    (1, 1, (<Decision.ROLL: 'roll'>, <Decision.STOP: 'stop'>))
    >>> state.play(STOP)
    Traceback (most recent call last):
    ...
    cantstop.core.errors.IllegalActionError: stop is not legal here; legal actions: 6+10, 7+9
    """

    variant: Variant
    pieces: tuple[tuple[int, ...], ...]
    runners: tuple[int, ...]
    claimed: tuple[int, ...]
    seat: int
    phase: Phase
    dice: Dice | None
    steps: int
    turn: int
    status: tuple[int, ...]
    options: tuple[Choice, ...] = ()
    runner_columns: tuple[int, ...] = ()
    out: tuple[int, ...] = ()  # the seats that have left the game, ascending

    # ----------------------------------------------------------------- queries
    @property
    def num_players(self) -> int:
        return len(self.pieces)

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def winner(self) -> int | None:
        """The seat that won, or None while the game goes on."""
        return self.seat if self.phase is Phase.OVER else None

    @property
    def runners_left(self) -> int:
        return self.variant.runners - len(self.runner_columns)

    @property
    def turn_begun(self) -> bool:
        """Whether the turn in progress has rolled its first dice. A turn begins with a roll,
        so only from then on is it taken, and counted in `turn` once it ends."""
        return self.phase is _CHOOSE or self.phase is _DECIDE or bool(self.runner_columns)

    def columns_won(self, seat: int) -> tuple[int, ...]:
        return tuple(c for c in self.variant.columns if self.claimed[c] == seat)

    def room(self, column: int) -> int:
        """Steps `column` can still take this turn for the player to move."""
        return _room(self.variant, self.pieces, self.runners, self.claimed, self.seat, column)

    def legal_actions(self) -> tuple[Action, ...]:
        """What the player to move may do; empty at a chance node (ROLL) and at the end."""
        phase = self.phase
        if phase is Phase.CHOOSE:
            return self.options
        if phase is Phase.DECIDE:
            return (ROLL, STOP) if self.may_stop() else (ROLL,)
        return ()

    def may_place(self) -> bool:
        """Could a new runner still be placed: one is left, and a column without one has room?"""
        # The status holds exactly this: a column's code is its room, plus 4 with a runner.
        return self.runners_left > 0 and any(code and not code & 4 for code in self.status[2:])

    def may_stop(self) -> bool:
        """False only under the no-stop-on-occupied option, with a runner on a rival's piece."""
        if not self.variant.no_stop_on_occupied:
            return True
        me = self.seat
        return not any(
            r and any(p != me and pieces[c] == r for p, pieces in enumerate(self.pieces))
            for c, r in enumerate(self.runners)
        )

    def choices(self, dice: Dice) -> tuple[Choice, ...]:
        """The legal choices the roll `dice` offers here (empty: the roll busts); dice that are
        not four faces of the variant raise `InvalidDiceError`."""
        try:
            outcome = self.variant.catalog.index[dice]
        except (KeyError, TypeError):
            raise InvalidDiceError(
                f"bad dice {dice!r}: a roll is four dice, each 1..{self.variant.faces}"
            ) from None
        return self.outcome_choices(outcome)

    def outcome_choices(self, outcome: int) -> tuple[Choice, ...]:
        """The choices of roll number `outcome` of the variant's tables (see `RollCatalog`)."""
        catalog = self.variant.catalog
        cache = catalog.choice_cache[outcome]
        key = catalog.relevant_status[outcome](self.status)
        found = cache.get(key)
        if found is None:
            status = self.status
            found = roll_choices(
                catalog.groups[outcome],
                [0, 0, *(code & 3 for code in status[2:])],
                [code & 4 != 0 for code in status],
                status[0],
                status[1],
            )
            cache[key] = found
        return found

    def is_bust(self, dice: Dice) -> bool:
        return not self.choices(dice)

    # ------------------------------------------------------------------ moves
    # The moves unpack all thirteen fields by position: the next state needs every one, and
    # one unpack costs less than twelve attribute reads (benchmarks/unpack.py: 237 ns
    # against 391 ns per state on this project's 2-core machine, under load, 2026-11-24).
    def roll(self, dice: Dice) -> State:
        """Put a roll on the table; a roll with no choice busts the turn.

        Raises `IllegalActionError` unless the dice are due (the ROLL phase), and
        `InvalidDiceError` for dice that are not four faces of the variant.

        >>> new_game("classic").roll((1, 2, 3))
        Traceback (most recent call last):
        ...
        cantstop.core.errors.InvalidDiceError: bad dice (1, 2, 3): a roll is four dice, each 1..6
        """
        variant, pieces, runners, claimed, seat, phase, _, steps, turn, status, _, runner_columns, out = self
        if phase is not _ROLL:
            raise IllegalActionError(
                f"cannot roll now: the game is in the {phase.name} phase; "
                f"legal actions: {describe_actions(self.legal_actions())}"
            )
        entry = variant.catalog.by_dice.get(dice) if type(dice) is tuple else None
        if entry is None:  # not a plain tuple of valid faces: normalise, or name the fault
            options = self.choices(dice)
            dice = tuple(dice)
        else:
            cache, pick = entry
            options = cache.get(pick(status), _MISSING)
            if options is _MISSING:
                options = self.choices(dice)
        if options:
            return _new(
                State,
                (variant, pieces, runners, claimed, seat, _CHOOSE, dice, steps, turn, status, options, runner_columns, out),
            )
        return self._end_turn(pieces, claimed)

    def play(self, action: Action) -> State:
        """Apply a player's action (a choice, ROLL or STOP); an action the position does not
        allow raises `IllegalActionError` naming the legal ones.

        >>> new_game("classic").play(ROLL)
        Traceback (most recent call last):
        ...
        cantstop.core.errors.IllegalActionError: roll is not legal: the dice must be rolled first
        """
        phase = self.phase
        if phase is _CHOOSE:
            if action in self.options:
                return self._advance(action)
        elif phase is _DECIDE:
            if action is ROLL:
                variant, pieces, runners, claimed, seat, _, _, steps, turn, status, _, runner_columns, out = self
                return _new(
                    State,
                    (variant, pieces, runners, claimed, seat, _ROLL, None, steps, turn, status, (), runner_columns, out),
                )
            if action is STOP:
                if not self.variant.no_stop_on_occupied or self.may_stop():
                    return self._stop()
            elif action in ("roll", "stop"):  # the plain strings work too
                return self.play(Decision(action))
        raise IllegalActionError(self._why_illegal(action))

    def _why_illegal(self, action: object) -> str:
        legal = describe_actions(self.legal_actions())
        if self.phase is Phase.ROLL:
            return f"{describe_action(action)} is not legal: the dice must be rolled first"
        if self.phase is Phase.OVER:
            return f"{describe_action(action)} is not legal: the game is over"
        if self.phase is Phase.DECIDE and (action is STOP or action == "stop"):
            return "stop is not legal: a runner stands on another player's piece; legal: roll"
        return f"{describe_action(action)} is not legal here; legal actions: {legal}"

    def _advance(self, choice: Choice) -> State:
        variant, pieces, runners_now, claimed, seat, _, _, steps, turn, status_now, _, runner_columns, out = self
        runners = list(runners_now)
        status = list(status_now)
        own = pieces[seat]
        catalog = variant.catalog
        cap = catalog.most_steps
        before = runner_columns
        # The rule options are Variant fields (data); the hot path reads them as branches on
        # purpose. One path for both, skip's with an empty set of taken spaces, cost 14% of
        # random 2-player games and 10% of Rule-of-28 solitaire games (benchmarks/engine.py,
        # engine/naive ratio 0.80 against 0.93 and 0.92 against 1.02, 2026-11-24).
        if variant.skip:
            # A runner on its column's top can take no step and needs no runner: code 0, as if claimed.
            code = catalog.runner_code
            for c in choice:
                taken = {p[c] for i, p in enumerate(pieces) if i != seat}
                space = runners[c]
                if not space:
                    runner_columns = (*runner_columns, c)
                    space = own[c]
                space += 1
                while space in taken:
                    space += 1
                runners[c] = space
            for c in set(choice):
                free = _room(variant, pieces, runners, claimed, seat, c)
                status[c] = code[min(free, cap)]
        else:
            runner_status = catalog.runner_status
            for c in choice:
                space = runners[c]
                if not space:
                    runner_columns = (*runner_columns, c)
                    space = own[c]
                space += 1
                runners[c] = space
                status[c] = runner_status[c][space]
        if runner_columns is not before:  # only a new runner changes the runners left
            runner_columns = tuple(sorted(runner_columns))
            left = variant.runners - len(runner_columns)
            if left < cap:
                status[0] = left
                if not left:  # columns without a runner are closed for the rest of the turn
                    status[2:] = map(catalog.closed.__getitem__, status[2:])
        steps += len(choice)
        if variant.step_limit is not None:
            status[1] = min(cap, variant.step_limit - steps)
        return _new(
            State,
            (
                variant,
                pieces,
                tuple(runners),
                claimed,
                seat,
                _DECIDE,
                None,
                steps,
                turn,
                tuple(status),
                (),
                runner_columns,
                out,
            ),
        )

    def _stop(self) -> State:
        variant, pieces, runners, claimed, me, _, _, _, turn, _, _, runner_columns, out = self
        catalog = variant.catalog
        tops = catalog.tops
        rows = list(pieces)
        mine = list(pieces[me])
        owners = None  # a copy of the claims, made only when a column is won
        for c in runner_columns:
            r = mine[c] = runners[c]
            if r == tops[c]:
                if owners is None:
                    owners = list(claimed)
                owners[c] = me
                for p, row in enumerate(rows):  # a claim wipes the others' pieces in the column
                    if p != me and row[c]:
                        wiped = list(row)
                        wiped[c] = 0
                        rows[p] = tuple(wiped)
        rows[me] = tuple(mine)
        board = tuple(rows)
        if owners is not None:
            claimed = tuple(owners)
            if claimed.count(me) >= variant.to_win:
                no_runners = catalog.no_runners
                return _new(
                    State,
                    (
                        variant,
                        board,
                        no_runners,
                        claimed,
                        me,
                        Phase.OVER,
                        None,
                        0,
                        turn + 1,
                        column_status(variant, board, no_runners, claimed, me),
                        (),
                        (),
                        out,
                    ),
                )
        return self._end_turn(board, claimed)

    def _end_turn(
        self, pieces: tuple[tuple[int, ...], ...], claimed: tuple[int, ...], out: tuple[int, ...] | None = None,
        taken: bool = True,
    ) -> State:
        """Play passes to the next seat still in the game; the turn ending counts in `turn`
        if it was `taken` (a seat leaving before its first roll took none)."""
        variant = self.variant
        if out is None:
            out = self.out
        seat = self.seat + 1
        if seat == len(pieces):
            seat = 0
        while out and seat in out:  # the seats that left are passed over
            seat = seat + 1 if seat + 1 < len(pieces) else 0
        catalog = variant.catalog
        runners = catalog.no_runners
        if variant.skip:
            status = column_status(variant, pieces, runners, claimed, seat)
        else:
            status = tuple(map(getitem, catalog.turn_start_for(claimed), pieces[seat]))
        return _new(
            State,
            (variant, pieces, runners, claimed, seat, _ROLL, None, 0, self.turn + taken, status, (), (), out),
        )

    # ---------------------------------------------------------------- leaving
    def leave(self, seat: int) -> State:
        """`seat` leaves the game (resigns): its pieces come off, so the columns it had
        claimed open again, and play goes on without it. When it was that seat's turn, the
        turn ends there (its runners vanish). With one seat left, that seat has won, and the
        game ends with the turn in progress. Either way the turn that ends counts in `turn`
        only if it had begun (`turn_begun`): a turn nobody rolled in was not taken.

        Raises `IllegalActionError` when the game is over, `seat` is not in it, or it is the
        only seat in it (solitaire): a game cannot go on with nobody, nor be won by nobody.

        >>> from cantstop import new_game
        >>> state = new_game("classic", num_players=3).leave(0)
        >>> state.out, state.seat, state.turn
        ((0,), 1, 0)
        >>> over = state.leave(2)
        >>> over.winner, over.turn
        (1, 0)
        """
        if self.phase is Phase.OVER:
            raise IllegalActionError("no seat can leave: the game is over")
        playing = [p for p in range(len(self.pieces)) if p not in self.out]
        if seat not in playing:
            seats = ", ".join("ABCD"[p] for p in playing)
            raise IllegalActionError(f"seat number {seat} cannot leave: it is not in the game; seats playing: {seats}")
        if len(playing) == 1:
            raise IllegalActionError(
                f"seat {'ABCD'[seat]} cannot leave: it is the only seat in the game, which would have nobody to play or win it"
            )
        variant = self.variant
        begun = self.turn_begun
        out = tuple(sorted((*self.out, seat)))
        blank = (0,) * len(self.runners)
        pieces = tuple(blank if p == seat else row for p, row in enumerate(self.pieces))
        claimed = tuple(-1 if owner == seat else owner for owner in self.claimed)
        playing.remove(seat)
        if len(playing) == 1:
            winner, runners = playing[0], variant.catalog.no_runners
            status = column_status(variant, pieces, runners, claimed, winner)
            return _new(
                State,
                (variant, pieces, runners, claimed, winner, Phase.OVER, None, 0, self.turn + begun, status, (), (), out),
            )
        if seat == self.seat:
            return self._end_turn(pieces, claimed, out, taken=begun)
        # Another seat's turn goes on: what its runners may do is worked out anew.
        status = column_status(variant, pieces, self.runners, claimed, self.seat, self.steps)
        state = self._replace(pieces=pieces, claimed=claimed, status=status, out=out)
        if self.phase is _CHOOSE:
            assert self.dice is not None
            state = state._replace(options=state.choices(self.dice))
        return state


def turn_ended(before: State, after: State) -> bool:
    """Whether the move from `before` to `after` ended the turn in progress: a stop, a bust,
    the mover leaving (taken or not: see `State.leave`), or the end of the game."""
    return after.turn != before.turn or after.seat != before.seat or (after.phase is Phase.OVER and before.phase is not Phase.OVER)


def _room(
    variant: Variant,
    pieces: tuple[tuple[int, ...], ...],
    runners: Sequence[int],
    claimed: tuple[int, ...],
    seat: int,
    column: int,
) -> int:
    if claimed[column] >= 0:
        return 0
    height = variant.heights[column - 2]
    base = runners[column] or pieces[seat][column]
    if variant.skip:
        taken = {p[column] for i, p in enumerate(pieces) if i != seat}
        return sum(1 for space in range(base + 1, height + 1) if space not in taken)
    return height - base


def column_status(
    variant: Variant,
    pieces: tuple[tuple[int, ...], ...],
    runners: tuple[int, ...],
    claimed: tuple[int, ...],
    seat: int,
    steps: int = 0,
) -> tuple[int, ...]:
    """What a roll's choices depend on, packed small so that the choice cache stays small.

    Slot 0: runners left; slot 1: steps left; slot c of each column: 4 if a runner is
    there, plus the steps the column can still take. Numbers are capped at the most
    one roll can use (`RollCatalog.most_steps`), and a column no step can reach is 0.
    """
    catalog = variant.catalog
    cap = catalog.most_steps
    left = min(cap, variant.runners - len(runners) + runners.count(0))
    limit = cap if variant.step_limit is None else min(cap, variant.step_limit - steps)
    own = pieces[seat]
    if not any(runners) and not variant.skip and not steps:  # a turn's start: the common case
        return tuple(map(getitem, catalog.turn_start_for(claimed), own))
    status = [left, limit]
    for c, h in enumerate(variant.heights, 2):
        r = runners[c]
        if claimed[c] >= 0 or not (r or left):
            status.append(0)
            continue
        free = _room(variant, pieces, runners, claimed, seat, c) if variant.skip else h - (r or own[c])
        free = free if free < cap else cap
        status.append(catalog.runner_code[free] if r else free)
    return tuple(status)


def make_state(
    variant: Variant,
    pieces: tuple[tuple[int, ...], ...],
    runners: tuple[int, ...],
    seat: int,
    phase: Phase,
    dice: Dice | None = None,
    steps: int = 0,
    turn: int = 0,
    out: tuple[int, ...] = (),
) -> State:
    """A state from its essentials, deriving the rest; used by notation and tests.

    Claims follow from pieces (a piece on a top space has claimed that column).
    """
    claimed = tuple(
        next((p for p, row in enumerate(pieces) if c >= 2 and row[c] == variant.heights[c - 2]), -1)
        for c in range(len(runners))
    )
    state = State(
        variant,
        pieces,
        runners,
        claimed,
        seat,
        phase,
        dice,
        steps,
        turn,
        column_status(variant, pieces, runners, claimed, seat, steps),
        runner_columns=tuple(c for c in range(2, len(runners)) if runners[c]),
        out=out,
    )
    if phase is Phase.CHOOSE:
        assert dice is not None
        state = state._replace(options=state.choices(dice))
    return state


def new_game(variant: Variant | str = "classic", num_players: int = 2, first: int = 0) -> State:
    """The opening position: nobody on the board, seat `first` to roll.

    Raises `VariantError` for an unknown spec and `SetupError` for a player count or first
    seat the variant does not allow, naming the allowed range.

    >>> new_game("solitaire", 1).seat
    0
    >>> new_game("classic", 5)
    Traceback (most recent call last):
    ...
    cantstop.core.errors.SetupError: classic is for 1..4 players, not 5
    """
    v = preset(variant) if isinstance(variant, str) else variant
    if why := v.players_text(num_players):
        raise SetupError(why)
    return opening(v, num_players, first)


def opening(variant: Variant, num_players: int, first: int = 0) -> State:
    """The opening position of a game already played (a record's history): any player count
    the book allows. A game that could never end (more than `Variant.most_players`) is refused
    only when it starts (`new_game`); one played before that rule still replays."""
    if not variant.min_players <= num_players <= variant.max_players:
        raise SetupError(f"{variant.name} is for {variant.min_players}..{variant.max_players} players, not {num_players}")
    if not 0 <= first < num_players:
        raise SetupError(f"first seat must be 0..{num_players - 1}, not {first}")
    size = 2 + len(variant.heights)
    return make_state(variant, tuple((0,) * size for _ in range(num_players)), (0,) * size, first, Phase.ROLL)


def describe_action(action: object) -> str:
    if isinstance(action, tuple):
        return format_choice(action)
    return str(action)


def describe_actions(actions: tuple[Action, ...]) -> str:
    return ", ".join(describe_action(a) for a in actions) or "none"
