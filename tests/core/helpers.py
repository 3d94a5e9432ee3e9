"""Helpers shared by the engine tests: positions, random play and a brute-force rules oracle.

The oracle (`brute_choices`) is written from RULES.md alone, in the most literal way:
expand every wild die, form every pairing (or captain), try every subset of each group's
sums by actually moving runners on a copy of the board, keep the subsets no larger subset
of the same group beats. It shares no code with the engine's choice generator.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

from cantstop import Phase, State, new_game
from cantstop.core.state import make_state

PRESET_NAMES = (
    "classic",
    "solitaire",
    "classic-long",
    "classic-skip",
    "classic-no-stop-on-occupied",
    "turtles",
    "turtles-relay",
    "turtles-long",
)
# Custom combinations the presets do not cover: step limits, fewer runners, other dice.
CUSTOM_SPECS = (
    "classic+step_limit=5",
    "classic-skip+step_limit=7+runners=2",
    "turtles+wild_dice=2",
    "turtles-relay+skip",
    "classic+faces=5+heights=3.5.7.9.11.9.7.5.3",
    "classic+runners=4+to_win=2",
)
ALL_SPECS = PRESET_NAMES + CUSTOM_SPECS


def position(
    variant: str = "classic",
    runners: dict[int, int] | None = None,
    pieces: list[dict[int, int]] | None = None,
    seat: int = 0,
    phase: Phase = Phase.ROLL,
    steps: int | None = None,
    num_players: int = 2,
) -> State:
    """A position given as {column: space} maps, e.g. runners={3: 1, 6: 1}."""
    start = new_game(variant, num_players)
    size = len(start.runners)
    runner_row = tuple((runners or {}).get(c, 0) for c in range(size))
    piece_rows = list(pieces or [])
    piece_rows += [{}] * (num_players - len(piece_rows))
    rows = tuple(tuple(row.get(c, 0) for c in range(size)) for row in piece_rows)
    taken = steps if steps is not None else sum(1 for r in runner_row if r)
    return make_state(start.variant, rows, runner_row, seat, phase, None, taken)


def random_policy(rng: random.Random, stop_chance: float = 0.5):  # type: ignore[no-untyped-def]
    def act(state: State) -> object:
        actions = state.legal_actions()
        if state.phase is Phase.DECIDE and len(actions) == 2:
            return actions[1] if rng.random() < stop_chance else actions[0]
        return rng.choice(actions)

    return act


def play_random(
    variant: str, players: int, seed: int, stop_chance: float = 0.4, max_events: int = 100_000
) -> Iterator[State]:
    """Every state of one random game, from the start to the end."""
    rng = random.Random(seed)
    state = new_game(variant, players, rng.randrange(players))
    act = random_policy(rng, stop_chance)
    faces = state.variant.faces
    yield state
    for _ in range(max_events):
        if state.is_over:
            return
        if state.phase is Phase.ROLL:
            state = state.roll(tuple(rng.randint(1, faces) for _ in range(4)))
        else:
            state = state.play(act(state))  # type: ignore[arg-type]
        yield state
    raise AssertionError(f"game did not end in {max_events} events")


def players_for(variant: str) -> int:
    v = new_game(variant, 1 if variant == "solitaire" else 2).variant
    return min(max(2, v.min_players), v.max_players)


def sample_positions(variant: str, count: int, seed: int) -> list[State]:
    """About `count` positions about to roll (ROLL or DECIDE), met in random games."""
    found: list[State] = []
    game = 0
    while len(found) < count:
        states = [s for s in play_random(variant, players_for(variant), seed * 1000 + game)
                  if s.phase in (Phase.ROLL, Phase.DECIDE)]
        found.extend(random.Random(game).sample(states, min(len(states), 6)))
        game += 1
    return found[:count]


# ----------------------------------------------------------------- the oracle
def _sum_groups(values: tuple[int, ...], captain: bool) -> list[list[int]]:
    a, b, c, d = values
    if captain:
        return [[values[k] + values[o] for o in range(4) if o != k] for k in range(4)]
    return [[a + b, c + d], [a + c, b + d], [a + d, b + c]]


def _try(state: State, sums: list[int]) -> bool:
    """Move runners for each sum in turn on a copy; False as soon as one cannot move."""
    v = state.variant
    me = state.seat
    runners = dict((c, r) for c, r in enumerate(state.runners) if r)
    steps = state.steps
    for c in sums:
        if state.claimed[c] != -1:
            return False
        if c in runners:
            space = runners[c]
        elif len(runners) < v.runners:
            space = state.pieces[me][c]
        else:
            return False
        space += 1
        if v.skip:
            while any(space == row[c] for p, row in enumerate(state.pieces) if p != me):
                space += 1
        if space > v.heights[c - 2]:
            return False
        steps += 1
        if v.step_limit is not None and steps > v.step_limit:
            return False
        runners[c] = space
    return True


def brute_choices(state: State, dice: tuple[int, ...]) -> set[tuple[int, ...]]:
    v = state.variant
    per_die = [
        list(range(1, v.faces + 1)) if i < v.wild_dice and d == v.wild_face else [d]
        for i, d in enumerate(dice)
    ]
    found: set[tuple[int, ...]] = set()
    for values in itertools.product(*per_die):
        for group in _sum_groups(values, v.pairing.value == "captain"):
            idx = range(len(group))
            subsets = [s for n in range(1, len(group) + 1) for s in itertools.combinations(idx, n)]
            ok = {s for s in subsets if _try(state, [group[i] for i in s])}
            for s in ok:
                if not any(set(s) < set(t) for t in ok):
                    found.add(tuple(sorted(group[i] for i in s)))
    return found
