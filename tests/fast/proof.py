"""The equality proof: positions from core games, checked against the fast path.

For each position: the batch round trip gives the same `State`; the fast legal mask is
core's legal actions over the one numbering; the same dice (ROLL) or the same action
(CHOOSE, DECIDE) gives the same next state; every compiled bot picks what its Python
twin picks. And whole games: `simulate` gives the turns and winner of the same game
played by core and the Python bots on the same counter dice. Used by the tests and by
`benchmarks/fast.py --check N`; it lives with the tests because it needs the Python bots,
which the fast layer may not import.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import permutations

import numpy as np

from cantstop.bots.base import Budget, get_bot
from cantstop.bots.expert import _spaces as expert_spaces
from cantstop.bots.expert import judge_of, roll_value
from cantstop.bots.heuristic import stop_wins
from cantstop.core.actions import action_numbering
from cantstop.core.dice import SeededDice
from cantstop.core.notation import to_notation
from cantstop.core.state import ROLL, Action, Phase, State, describe_action, new_game
from cantstop.core.variant import Variant
from cantstop.fast.act import BOT_CODES, bot_actions
from cantstop.fast.batch import from_arrays, legal_masks, roll, step, to_arrays
from cantstop.fast.counter import CounterDice, CounterRandom
from cantstop.fast.simulate import MAX_TURNS, simulate

PROVEN_BOTS = tuple(b for b in BOT_CODES if b != "expert")  # checked on every position
TIE = 1e-9  # the expert may pick another action only when the two values tie this closely
MOVES_PER_GAME = 600  # a sampled game restarts after this many moves: positions stay varied


def sample_positions(variant: Variant, players: int, count: int, seed: int) -> list[State]:
    """`count` positions met in random core games (every phase, finished games too)."""
    rng = random.Random(seed)
    dice = SeededDice(seed)
    faces = variant.faces
    states: list[State] = []
    state = new_game(variant, players)
    moves = 0
    while len(states) < count:
        states.append(state)
        moves += 1
        if state.is_over or moves > MOVES_PER_GAME:
            state = new_game(variant, players, rng.randrange(players))
            moves = 0
        elif state.phase is Phase.ROLL:
            state = state.roll(dice.roll(4, faces))
        else:
            state = state.play(rng.choice(state.legal_actions()))
    return states


@dataclass
class Comparison:
    """How many positions were compared, how many differed, and the first differences."""

    compared: int = 0
    differed: int = 0
    examples: list[str] = field(default_factory=list)

    def add(self, other: Comparison) -> None:
        self.compared += other.compared
        self.differed += other.differed
        self.examples.extend(other.examples[: 5 - len(self.examples)])

    def note(self, what: str) -> None:
        self.differed += 1
        if len(self.examples) < 5:
            self.examples.append(what)


def compare(
    states: list[State], seed: int, bots: tuple[str, ...] = PROVEN_BOTS, expert_every: int = 0
) -> Comparison:
    """Check every position of `states` (one variant and player count) against core.

    Also: each of `bots` picks in the fast path what its Python twin picks, and the expert
    (whose Python twin is slow) on every `expert_every`-th position where a bot acts.
    """
    result = Comparison(compared=len(states))
    rng = random.Random(seed)
    variant = states[0].variant
    number = {a: i for i, a in enumerate(action_numbering(variant))}
    batch = to_arrays(states)
    wrong: set[int] = set()
    for i, back in enumerate(from_arrays(batch)):
        if back != states[i]:
            wrong.add(i)
            result.note(f"round trip of {to_notation(states[i])} gave {to_notation(back)}")
    masks = legal_masks(batch)
    for i, state in enumerate(states):
        expected = sorted(number[a] for a in state.legal_actions())
        got = np.flatnonzero(masks[i]).tolist()
        if got != expected and i not in wrong:
            wrong.add(i)
            result.note(f"mask of {to_notation(state)}: fast {got}, core {expected}")
    rolling = [i for i, s in enumerate(states) if s.phase is Phase.ROLL]
    acting = [i for i, s in enumerate(states) if s.phase in (Phase.CHOOSE, Phase.DECIDE)]
    faces = variant.faces
    if rolling:
        dice = [tuple(rng.randint(1, faces) for _ in range(4)) for _ in rolling]
        after, _ = roll(to_arrays([states[i] for i in rolling]), np.array(dice))
        for i, d, got_state in zip(rolling, dice, from_arrays(after)):
            want = states[i].roll(d)
            if got_state != want and i not in wrong:
                wrong.add(i)
                result.note(f"roll {d} in {to_notation(states[i])}: fast {to_notation(got_state)}, core {to_notation(want)}")
    if acting:
        actions = [rng.choice(states[i].legal_actions()) for i in acting]
        after = step(to_arrays([states[i] for i in acting]), np.array([number[a] for a in actions]))
        for i, a, got_state in zip(acting, actions, from_arrays(after)):
            want = states[i].play(a)
            if got_state != want and i not in wrong:
                wrong.add(i)
                result.note(f"{a} in {to_notation(states[i])}: fast {to_notation(got_state)}, core {to_notation(want)}")
        numbering = action_numbering(variant)
        checks = [(bot, range(len(acting))) for bot in bots]
        if expert_every:
            checks.append(("expert", range(0, len(acting), expert_every)))
        for bot, which in checks:
            play = get_bot(bot).play
            some = [acting[k] for k in which]
            picks = bot_actions(to_arrays([states[i] for i in some]), bot, seed)
            for k, i in enumerate(some):
                want_action = play(states[i], CounterRandom(seed, k), Budget())
                got_action = numbering[picks[k]]
                if bot == "expert" and expert_tie(states[i], got_action, want_action):
                    continue
                if got_action != want_action and i not in wrong:
                    wrong.add(i)
                    result.note(
                        f"{bot} in {to_notation(states[i])}: fast {describe_action(numbering[picks[k]])}, "
                        f"core {describe_action(want_action)}"
                    )
    return result


def expert_value(state: State, action: Action) -> float:
    """The Python expert's value of `action` in `state` (what it maximises)."""
    judge = judge_of(state)
    if state.phase is Phase.DECIDE:
        return roll_value(state) if action == ROLL else judge.value(*expert_spaces(state))
    after = state.play(action)
    value = roll_value(after)
    return max(value, judge.value(*expert_spaces(after))) if after.may_stop() else value


def expert_tie(state: State, one: Action, other: Action) -> bool:
    """Do two actions tie within `TIE` for the Python expert (so either pick is right)?"""
    if one == other:
        return True
    if state.phase is Phase.CHOOSE and (stop_wins(state.play(one)) or stop_wins(state.play(other))):
        return False  # a winning stop is taken outright, never weighed
    return abs(expert_value(state, one) - expert_value(state, other)) <= TIE


def core_game(variant: Variant, bots: Sequence[str], seed: int, game: int) -> tuple[int, int]:
    """Game `game` of `simulate(variant, bots, ..., seed)` played by core and the Python bots.

    Returns (turns, winning bot's index or -1 past `MAX_TURNS`). Dice and draws come from
    the counter twins, seats from the same seat orders.
    """
    orders = list(permutations(range(len(bots))))
    order = orders[game % len(orders)]
    plays = [get_bot(bots[k]).play for k in order]
    dice = CounterDice(seed, game // len(orders))
    rng = CounterRandom(seed, game)
    budget = Budget()
    state = new_game(variant, len(bots))
    faces = variant.faces
    while not state.is_over and state.turn < MAX_TURNS:
        if state.phase is Phase.ROLL:
            state = state.roll(dice.roll(4, faces))
        else:
            state = state.play(plays[state.seat](state, rng, budget))
    return state.turn, (order[state.seat] if state.is_over else -1)


def compare_games(variant: Variant, bots: Sequence[str], games: int, seed: int) -> Comparison:
    """Whole games: `simulate` against core with the Python bots, game by game."""
    run = simulate(variant, bots, games, seed, threads=1)
    result = Comparison(compared=games)
    for g in range(games):
        want = core_game(variant, bots, seed, g)
        got = (int(run.turns[g]), int(run.winner[g]))
        if got != want:
            result.note(f"game {g} of {'/'.join(bots)} in {variant.name}: fast {got}, core {want}")
    return result
