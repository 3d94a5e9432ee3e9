"""The episodes' randomness: counter-based dice, numbered episodes, reproducible from the formula."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from gymnasium.utils import seeding
from hypothesis import given
from hypothesis import strategies as st

from cantstop.core.counter import CounterDice, CounterRandom, counter_below, counter_dice
from cantstop.envs import CantStopEnv
from cantstop.envs.episode import Episodes

M = 2**64


def splitmix(z: int) -> int:
    z = (z + 0x9E3779B97F4A7C15) % M
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % M
    return z ^ (z >> 31)


def by_formula(root: int, episode: int, k: int, faces: int) -> tuple[int, ...]:
    """The documented recipe, written out independently: four mixes, then the top 32 bits."""
    z = splitmix(splitmix(splitmix(splitmix(root) ^ 0xD1CE) ^ episode) ^ k)
    number = ((z >> 32) * faces**4) >> 32
    digits = []
    for _ in range(4):
        number, digit = divmod(number, faces)
        digits.append(digit + 1)
    return tuple(reversed(digits))


@given(root=st.integers(0, M - 1), episode=st.integers(0, 10**6), faces=st.integers(2, 9))
def test_every_roll_is_the_documented_formula(root: int, episode: int, faces: int) -> None:
    dice = CounterDice(root, episode)
    assert [dice.roll(4, faces) for _ in range(20)] == [by_formula(root, episode, k, faces) for k in range(20)]
    assert dice.rolls == 20


def test_the_dice_are_fair() -> None:
    # 60,000 rolls from fixed addresses: every face of every die within 3% of 1/6, all 1296 rolls met.
    counts: list[Counter[int]] = [Counter() for _ in range(4)]
    seen = set()
    for episode in range(20):
        for k in range(3000):
            roll = counter_dice(7919, episode, k, 6)
            seen.add(roll)
            for die, face in enumerate(roll):
                counts[die][face] += 1
    assert set(itertools.product(range(1, 7), repeat=4)) == seen
    for count in counts:
        assert all(abs(count[f] / 60_000 - 1 / 6) < 0.03 / 6 for f in range(1, 7))


@given(root=st.integers(0, M - 1), count=st.integers(1, 2**32 - 1))
def test_counter_below_stays_below(root: int, count: int) -> None:
    assert 0 <= counter_below(root, 1, 2, 3, count) < count


def test_a_seed_starts_episode_zero_of_a_root_and_each_reset_moves_on() -> None:
    episodes = Episodes()
    rng, _ = seeding.np_random(5)
    episodes.start(rng, seeded=True)
    root = episodes.key
    assert root == int(seeding.np_random(5)[0].integers(2**63))
    assert episodes.number == 0
    episodes.start(rng, seeded=False)
    episodes.start(rng, seeded=False)
    assert (episodes.key, episodes.number) == (root, 2)
    assert episodes.dice().roll(4, 6) == counter_dice(root, 2, 0, 6)
    bot = episodes.bot_random()
    assert isinstance(bot, CounterRandom) and bot.key == (root, 2)


def test_an_episode_before_any_start_is_refused() -> None:
    with pytest.raises(RuntimeError, match="no episode has started"):
        _ = Episodes().key


def test_the_single_env_replays_an_episode_from_its_seed_and_number() -> None:
    env = CantStopEnv()

    def play(seed: int | None) -> list[float]:
        obs, info = env.reset(seed=seed)
        seen = [float(obs.sum())]
        rng = np.random.default_rng(0)
        done = False
        while not done:
            obs, _, done, _, info = env.step(rng.choice(np.flatnonzero(info["action_mask"])))
            seen.append(float(obs.sum()))
        return seen

    first, second = play(3), play(None)
    assert play(3) == first and play(None) == second
    assert first != second
