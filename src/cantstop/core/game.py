"""A game in progress: its record, its current state and where its dice come from."""

from __future__ import annotations

from datetime import date

from cantstop.core.dice import Dice, DiceSource, SeededDice, roll_off
from cantstop.core.errors import IllegalActionError
from cantstop.core.notation import format_dice, seat_letter
from cantstop.core.record import Record, Roll, apply_event
from cantstop.core.state import ROLL, Action, Phase, State
from cantstop.core.variant import Variant, preset


class Game:
    """Everything a front end needs: roll, play, undo, and the record kept as it goes."""

    def __init__(self, record: Record, dice: DiceSource | None = None) -> None:
        self.record = record
        self.state: State = record.final()
        self.dice: DiceSource = dice if dice is not None else SeededDice()

    @classmethod
    def new(
        cls,
        variant: Variant | str,
        players: list[str],
        dice: DiceSource | None = None,
        first: int | None = None,
        tags: dict[str, str] | None = None,
    ) -> Game:
        """A new game; without `first`, the players roll off for who starts."""
        v = preset(variant) if isinstance(variant, str) else variant
        source = dice if dice is not None else SeededDice()
        all_tags = {"Date": date.today().strftime("%Y.%m.%d"), **(tags or {})}
        if first is None and len(players) == 1:
            first = 0  # alone, there is no one to roll off against
        if first is None:
            rolloff = roll_off(v, len(players), source)
            first = rolloff.first
            all_tags["RollOff"] = " / ".join(
                " ".join(f"{seat_letter(seat)}:{total}" for seat, total in rnd)
                for rnd in rolloff.rounds
            )
        record = Record(v, list(players), first, [], all_tags)
        record.start()  # checks the number of players against the variant
        return cls(record, source)

    def roll(self) -> Dice:
        """Roll the dice (rolling again first if the player is deciding); return them."""
        dice = self.dice.roll(self.record.variant.dice, self.record.variant.faces)
        self.put_dice(dice)
        return dice

    def put_dice(self, dice: Dice) -> State:
        """Apply dice rolled elsewhere (a server, a test); a bust passes the turn."""
        self.state = apply_event(self.state, Roll(dice))
        self.record.events.append(Roll(dice))
        return self.state

    def play(self, action: Action) -> State:
        """Apply an action; ROLL rolls the dice at once (records keep dice, not the decision)."""
        if action is ROLL or action == "roll":
            self.state.play(ROLL)  # raises if rolling again is not legal now
            self.roll()
            return self.state
        self.state = self.state.play(action)
        self.record.events.append(action)
        return self.state

    def undo(self) -> State:
        """Take back the last choice or decision of the current turn, keeping the dice."""
        events = self.record.events
        if not events or isinstance(events[-1], Roll) or self.state.phase is Phase.OVER:
            raise IllegalActionError("nothing to undo: only a choice or decision of this turn can be taken back")
        if self.state.phase is Phase.ROLL:
            raise IllegalActionError("nothing to undo: the turn is over")
        events.pop()
        self.state = self.record.final()
        return self.state

    @property
    def last_dice(self) -> str | None:
        rolls = [e for e in self.record.events if isinstance(e, Roll)]
        return format_dice(rolls[-1]) if rolls else None
