"""`Table`: the one driver of a game. Every front end plays through it.

A table holds the record and the state, the players of the seats that move by
themselves (bots, outside programs; a seat without one is a person's, whose moves
the front end hands in), and where the dice come from. It applies each move, appends
it to the record and to its sink (a file, a database) as it goes, and decides in one
place what follows when a seat fails (`fail`). Each move returns its happenings.

    table = Table.new("classic", ["Ann", "rule28"], SeededDice(7), players=[None, BotPlayer(...)])
    table.play(Move.parse("roll"))          # a person's move
    table.run()                             # bots and dice until a person is to move

`version` counts the moves applied: a front end that took a move on version v hands
it in with `version=v`, and a move made on a stale view is refused, never applied.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from copy import copy
from dataclasses import replace
from datetime import date
from typing import Protocol

from cantstop.core.dice import Dice, DiceSource, roll_off
from cantstop.core.errors import IllegalActionError, SetupError
from cantstop.core.notation import seat_letter
from cantstop.core.record import Record
from cantstop.core.state import (
    ROLL,
    Action,
    Phase,
    State,
    describe_action,
    describe_actions,
    new_game,
)
from cantstop.core.variant import Variant, preset
from cantstop.table.errors import GameOverError, IllegalMoveError, NotYourTurnError, StaleMoveError
from cantstop.table.failure import Fault, Policy, SeatFailed, fallback_action
from cantstop.table.happenings import FellBack, Forfeited, Happening, what_happened
from cantstop.table.move import Kind, Move
from cantstop.table.players import Player
from cantstop.table.wording import roll_off_text

# Where a roll's dice come from: given the position about to roll and how many rolls
# this turn has had, the dice. A plain `DiceSource` ignores both (`source_deal`); the
# arena's deals address each roll by turn and number so that every seat order meets
# the same dice.
Deal = Callable[[State, int], Dice]


def source_deal(source: DiceSource) -> Deal:
    def deal(state: State, index: int) -> Dice:
        return source.roll(state.variant.dice, state.variant.faces)

    return deal


def advance(state: State, move: Move) -> State:
    """The position after an engine move (a roll with its dice, a choice, roll or stop), as a
    table applies it but with no record: for positions that branch, such as OpenSpiel's states
    that its searches clone at every node, where a record per branch would be waste.
    A roll without dice is only the decision to roll (the dice are the next move).
    An illegal move raises, naming the legal ones."""
    if move.kind is Kind.ROLL and move.dice:
        return (state.play(ROLL) if state.phase is Phase.DECIDE else state).roll(move.dice)
    return state.play(move.action)


class Sink(Protocol):
    """Where each appended move goes as it is made (a record file, a database)."""

    def append(self, move: Move, before: State, after: State) -> None: ...

    def undo(self) -> None: ...


class Collected:
    """A sink that only keeps the moves appended: for a caller that stores them itself."""

    def __init__(self) -> None:
        self.moves: list[Move] = []

    def append(self, move: Move, before: State, after: State) -> None:
        self.moves.append(move)

    def undo(self) -> None:
        self.moves.pop()


def recorded_fault(why: str) -> tuple[Fault | None, str]:
    """The fault and reason of a recorded `resign`/`fallback` reason ("timeout: the clock ran out")."""
    word, colon, rest = why.partition(": ")
    if colon and word in {f.value for f in Fault}:
        return Fault(word), rest
    return None, why


class Table:
    """The driver of one game: its record and state, the seats' players and the dice.

    Raises `SetupError` when `players` does not give one entry (None for a person) per
    seat of the record. A move is refused with nothing applied: `StaleMoveError` when it
    was made on an older `version`, and an `IllegalActionError` when it is out of turn
    (`NotYourTurnError`), after the end (`GameOverError`) or against the rules
    (`IllegalMoveError`, naming the legal actions).

    >>> from cantstop import SeededDice
    >>> table = Table.new("classic", ["Ann", "Bob"], SeededDice(7), first=0)
    >>> happened = table.play(Move.parse("roll"))
    >>> table.seat, table.state.phase.name, table.version
    (0, 'CHOOSE', 1)
    >>> table.play(Move.parse("stop"))
    Traceback (most recent call last):
    ...
    cantstop.table.errors.IllegalMoveError: stop is not legal here; legal actions: ...
    >>> table.play(Move.parse("roll"), version=0)
    Traceback (most recent call last):
    ...
    cantstop.table.errors.StaleMoveError: the move was made on version 0 but the game is at version 1; ...
    """

    def __init__(
        self,
        record: Record,
        dice: DiceSource | Deal,
        players: Sequence[Player | None] = (),
        *,
        policy: Policy = Policy.FALLBACK,
        sink: Sink | None = None,
        budget_ms: int = 1000,
        narrate: bool = True,
    ) -> None:
        self.record = record
        self.state: State = record.final()
        self.moves: list[Move] = [Move.of_event(e) for e in record.events]
        self.deal: Deal = dice if callable(dice) else source_deal(dice)
        self.players: list[Player | None] = list(players) or [None] * len(record.players)
        if len(self.players) != len(record.players):
            raise SetupError(f"{len(self.players)} players for {len(record.players)} seats: one per seat")
        self.policy = policy
        self.sink = sink
        self.budget_ms = budget_ms
        self.narrate = narrate  # False: no happenings are made (arena, environments: speed)
        self.forfeit: Forfeited | None = None
        self._rolls_this_turn = 0
        self._previous: State | None = None  # the state before the last move, for undo

    @classmethod
    def new(
        cls,
        variant: Variant | str,
        names: list[str],
        dice: DiceSource,
        first: int | None = None,
        tags: dict[str, str] | None = None,
        players: Sequence[Player | None] = (),
        policy: Policy = Policy.FALLBACK,
    ) -> Table:
        """A new game; without `first`, the seats roll off for who starts (recorded as `RollOff`).

        Raises `VariantError` for an unknown variant spec and `SetupError` for a number of
        names or a `first` seat the variant does not allow."""
        v = preset(variant) if isinstance(variant, str) else variant
        all_tags = {"Date": date.today().strftime("%Y.%m.%d"), **(tags or {})}
        if first is None and len(names) == 1:
            first = 0  # alone, there is no one to roll off against
        if first is None:
            rolled = roll_off(v, len(names), dice)
            first = rolled.first
            all_tags["RollOff"] = roll_off_text(rolled)
        record = Record(v, list(names), first, [], all_tags)
        new_game(v, len(names), first)  # checks the number of players against the variant
        return cls(record, dice, players, policy=policy)

    # ---------------------------------------------------------------- reading
    @property
    def version(self) -> int:
        return len(self.moves)

    @property
    def variant(self) -> Variant:
        return self.record.variant

    @property
    def over(self) -> bool:
        return self.state.phase is Phase.OVER or self.forfeit is not None

    @property
    def winner(self) -> int | None:
        """The seat that won: by the rules, or as the one left after a forfeit."""
        if self.forfeit is not None:
            return self.forfeit.winner
        return self.state.winner

    @property
    def seat(self) -> int:
        """The seat to move (the winner once the game is over)."""
        return self.state.seat

    @property
    def player(self) -> Player | None:
        """The player of the seat to move; None for a person."""
        return self.players[self.state.seat]

    def set_player(self, seat: int, player: Player | None) -> None:
        """Give `seat` a player (a bot taking the seat), or None to make it a person's; IndexError for no such seat."""
        if not 0 <= seat < len(self.players):
            raise IndexError(f"no seat {seat}: this game has seats 0..{len(self.players) - 1}")
        self.players[seat] = player

    def trial(self) -> Table:
        """A copy to try moves on (what the failure policy would play, say): the same position,
        dice, players and policy, its own record and moves, and no sink, so nothing it does
        reaches this table or where its moves are kept. `trial.moves[table.version:]` are its own."""
        twin = copy(self)
        twin.record = replace(self.record, events=list(self.record.events), tags=dict(self.record.tags))
        twin.moves = list(self.moves)
        twin.players = list(self.players)
        twin.sink = None
        return twin

    # ---------------------------------------------------------------- moves
    def prepare(self, move: Move, version: int | None = None, seat: int | None = None) -> Move:
        """The move as it will be applied (a roll gets its dice). Lets a caller store a move
        before applying it. Raises, changing nothing, `StaleMoveError` for a move made on
        another `version`, `GameOverError` once the game is over, `NotYourTurnError` for a
        `seat` not to move, `IllegalMoveError` (naming the legal moves) for a move the
        position does not allow, `InvalidDiceError` for a roll's dice that are not the variant's."""
        if version is not None and version != self.version:
            raise StaleMoveError(version, self.version)
        if move.out_of_band:
            return move
        state = self.state
        names = self.record.players
        if self.over:
            won = "" if self.winner is None else f": {names[self.winner]} won"
            raise GameOverError(f"{move} is not legal: the game is over{won}", self.winner)
        if seat is not None and seat != state.seat:
            raise NotYourTurnError(
                f"it is {names[state.seat]}'s turn (seat {seat_letter(state.seat)}), not seat {seat_letter(seat)}'s",
                seat, state.seat,
            )
        legal: tuple[Action, ...] = (ROLL,) if state.phase is Phase.ROLL else state.legal_actions()
        if move.kind is Kind.ROLL:
            if state.phase not in (Phase.ROLL, Phase.DECIDE):
                raise IllegalMoveError(f"roll is not legal now; legal actions: {describe_actions(legal)}", legal)
            if move.dice:
                state.choices(move.dice)  # bad dice raise here, naming what dice are
                return move
            return Move.rolled(self.deal(state, self._rolls_this_turn))
        if state.phase is Phase.ROLL:
            raise IllegalMoveError(f"{move} is not legal: the turn starts with a roll; legal actions: roll", legal)
        if move.action not in legal:
            try:
                state.play(move.action)  # raises, naming the legal actions
            except IllegalActionError as error:
                raise IllegalMoveError(str(error), legal) from None
        return move

    def preview(self, move: Move) -> State:
        """The position a choice or decision would lead to (a board's preview, advice); applies
        nothing and rolls nothing. An illegal one raises, naming the legal ones."""
        return self.state.play(move.action)

    def play(self, move: Move, version: int | None = None, seat: int | None = None) -> list[Happening]:
        """Apply a move; returns what happened. Raises as `prepare` does, applying nothing."""
        ready = self.prepare(move, version, seat)
        if ready.out_of_band:
            return self._out_of_band(ready)
        return self._apply(ready)

    def restore(self, move: Move) -> list[Happening]:
        """Apply a move this table (or one like it) made before, read back from where it was
        stored: an engine move as `play` does; a `fallback` or `resign` is taken as recorded,
        its outcome not decided again (a fallback's move follows it in the store)."""
        if not move.out_of_band:
            return self.play(move)
        if move.kind is Kind.TIMEOUT:
            raise IllegalActionError(f"{move} is never stored: the table records what its policy made of it")
        if not 0 <= move.seat < len(self.players) or self.over:
            raise IllegalActionError(f"{move} cannot be restored here: no such seat, or the game is over")
        fault, reason = recorded_fault(move.reason)
        if move.kind is Kind.RESIGN:
            return self._forfeit(move.seat, fault, reason)
        if move.seat != self.state.seat:
            raise IllegalActionError(f"{move}: only the seat to move can fall back")
        action = fallback_action(self.state) if self.state.phase is not Phase.ROLL else ROLL
        self._note(move)
        return [FellBack(move.seat, fault or Fault.CRASH, reason, action)]

    def _apply(self, move: Move) -> list[Happening]:
        before = self.state
        after = advance(before, move)
        self.record.events.append(move.event)
        if move.kind is Kind.ROLL:
            self._rolls_this_turn = self._rolls_this_turn + 1 if after.turn == before.turn else 0
        elif after.turn != before.turn:
            self._rolls_this_turn = 0
        self.state = after
        self.moves.append(move)
        self._previous = before
        if self.sink is not None:
            self.sink.append(move, before, after)
        return what_happened(before, move, after) if self.narrate else []

    def _note(self, move: Move) -> None:
        """Append an out-of-band move: it changes no position."""
        self.moves.append(move)
        self._previous = None
        if self.sink is not None:
            self.sink.append(move, self.state, self.state)

    def _out_of_band(self, move: Move) -> list[Happening]:
        if not 0 <= move.seat < len(self.players):
            raise IllegalActionError(f"{move} names no seat of this game: seats are A-{seat_letter(len(self.players) - 1)}")
        if self.over:
            raise IllegalActionError(f"{move} is not legal: the game is over")
        if move.kind is Kind.RESIGN:
            return self._forfeit(move.seat, None, move.reason or "resigned")
        if move.kind is Kind.TIMEOUT:
            if move.seat != self.state.seat:
                raise IllegalActionError(f"{move}: only the seat to move can run out of time")
            return self.fail(Fault.TIMEOUT, move.reason or "the clock ran out")
        raise IllegalActionError(f"{move}: a fallback is the table's own move, played by its failure policy")

    # ---------------------------------------------------------------- failures
    def fail(self, fault: Fault, reason: str) -> list[Happening]:
        """The seat to move failed: the table's one policy decides what follows, and records it.

        Raises `SeatFailed` (naming the seat) under `Policy.RAISE`, applying nothing."""
        seat = self.state.seat
        if self.policy is Policy.RAISE:
            raise SeatFailed(fault, f"seat {seat_letter(seat)} ({self.record.players[seat]}): {reason}")
        if self.policy is Policy.FORFEIT:
            return self._forfeit(seat, fault, reason)
        action = fallback_action(self.state) if self.state.phase is not Phase.ROLL else ROLL
        self._note(Move.fallback(seat, f"{fault}: {reason}"))
        fell = FellBack(seat, fault, reason, action)
        return [fell, *self._apply(self.prepare(Move.of(action)))]

    def _forfeit(self, seat: int, fault: Fault | None, reason: str) -> list[Happening]:
        """The seat is out: among people (FALLBACK) it leaves and the others play on; in a
        match (FORFEIT) it has lost and the game ends there."""
        if self.policy is Policy.FALLBACK:
            return self._leave(seat, fault, reason)
        others = [s for s in range(len(self.players)) if s != seat]
        winner = others[0] if len(others) == 1 else None
        self.forfeit = Forfeited(seat, fault, reason, winner)
        why = reason if fault is None else f"{fault}: {reason}"
        self.record.tags["Forfeit"] = f"{seat_letter(seat)} {why}"
        self._note(Move.resign(seat, why))
        return [self.forfeit]

    def _leave(self, seat: int, fault: Fault | None, reason: str) -> list[Happening]:
        before = self.state
        after = before.leave(seat)
        move = Move.resign(seat, reason if fault is None else f"{fault}: {reason}")
        self.record.events.append(move.event)
        if after.turn != before.turn:
            self._rolls_this_turn = 0
        self.state = after
        self.moves.append(move)
        self._previous = None  # no undo across a seat leaving
        if self.sink is not None:
            self.sink.append(move, before, after)
        return [Forfeited(seat, fault, reason, after.winner)]

    # ---------------------------------------------------------------- players
    def ask(self) -> Move | SeatFailed:
        """The move of the seat to move's player, or how it failed; applies nothing.

        Safe to call off the front end's thread (a bot thinking while the screen draws).
        """
        player = self.player
        state = self.state
        assert player is not None and state.phase in (Phase.CHOOSE, Phase.DECIDE), "no player is to decide"
        try:
            action = player.act(state, self.budget_ms)
        except SeatFailed as failure:
            return failure
        legal = state.legal_actions()
        if action not in legal:
            return SeatFailed(
                Fault.ILLEGAL,
                f"{describe_action(action)} is not legal in the {state.phase.name.lower()} phase; "
                f"legal: {describe_actions(legal)}",
            )
        return Move.of(action)  # the engine's own value: "stop" gives the STOP move

    def answer(self, answer: Move | SeatFailed, version: int | None = None) -> list[Happening]:
        """Apply what `ask` gave on `version` (default: now), through the failure policy if the seat failed."""
        if version is not None and version != self.version:
            raise StaleMoveError(version, self.version)
        if isinstance(answer, SeatFailed):
            return self.fail(answer.fault, answer.reason)
        if answer.kind is Kind.ROLL:  # checked by `ask` already: only the dice are missing
            answer = Move.rolled(self.deal(self.state, self._rolls_this_turn))
        return self._apply(answer)

    def step(self) -> list[Happening]:
        """One move without a person: the dice at a chance node, else the player's move."""
        if self.state.phase is Phase.ROLL:
            return self._apply(Move.rolled(self.deal(self.state, self._rolls_this_turn)))
        return self.answer(self.ask())

    def run(self, until: Callable[[Table], bool] | None = None, *, roll_for_people: bool = False) -> list[Happening]:
        """Step until a person is to move, the game is over, or `until(table)` says stop.

        A person rolls for themselves unless `roll_for_people` (an environment, where
        the agent only decides): then the run goes on to the person's next decision.
        """
        told: list[Happening] = []
        players = self.players
        while self.state.phase is not Phase.OVER and self.forfeit is None and (until is None or not until(self)):
            if players[self.state.seat] is None and (not roll_for_people or self.state.phase is not Phase.ROLL):
                break
            told += self.step()
        return told

    def start_players(self, seed: Callable[[int], int]) -> list[Happening]:
        """Tell every player a game begins (`seed(seat)`: its random seed); a failure forfeits
        (raises `SeatFailed` under `Policy.RAISE`)."""
        for seat, player in enumerate(self.players):
            if player is None:
                continue
            try:
                player.new_game(self.variant, len(self.players), seat, seed(seat))
            except SeatFailed as failure:
                if self.policy is Policy.RAISE:
                    raise
                return self._forfeit(seat, failure.fault, failure.reason)
        return []

    # ---------------------------------------------------------------- undo
    def undo(self) -> State:
        """Take back the last choice of the current turn, keeping the dice; anything else to
        take back raises `IllegalActionError` saying what can be undone."""
        last = self.moves[-1] if self.moves else None
        if last is None or last.kind is not Kind.CHOICE or self._previous is None or self.over:
            if self.state.phase is Phase.ROLL and last is not None and not self.over:
                raise IllegalActionError("nothing to undo: the turn is over")
            raise IllegalActionError("nothing to undo: only a choice of this turn can be taken back")
        self.moves.pop()
        self.record.events.pop()
        self.state, self._previous = self._previous, None
        if self.sink is not None:
            self.sink.undo()
        return self.state
