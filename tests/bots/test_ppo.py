"""The ppo bot: shipped networks of the right shape, numpy play, and the strength it was trained to."""

from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from test_bots import play_game, wins_with_seats_swapped

from cantstop import Phase, SetupError, new_game
from cantstop.bots import get_bot
from cantstop.bots.ppo import NETWORKS, Network, load_network, ppo_action, save_policy
from cantstop.core.variant import preset
from cantstop.encoding.actions import action_index
from cantstop.encoding.observation import encode, observation_size


def test_ppo_plays_only_the_games_it_was_trained_for() -> None:
    info = get_bot("ppo")
    assert info.fits(preset("solitaire"), 1) is None
    assert info.fits(preset("classic"), 2) is None
    for variant, players in (("classic", 3), ("turtles", 2), ("classic-long", 2)):
        assert "trained for solitaire with 1 player, classic with 2 players only" in str(
            info.fits(preset(variant), players)
        )
    with pytest.raises(SetupError, match="PPO bot cannot play turtles"):
        info.check(preset("turtles"), 2)


def test_ppo_without_numpy_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "numpy", None)  # `import numpy` now raises ImportError
    assert get_bot("ppo").fits(preset("solitaire"), 1) == (
        "it needs numpy, which the 'fast' extra brings: from a checkout run pip install -e '.[fast]'"
    )


@pytest.mark.parametrize(("game", "file"), list(NETWORKS.items()))
def test_shipped_networks_fit_the_spaces_and_stay_small(game: tuple[str, int], file: str) -> None:
    name, players = game
    variant = preset(name)
    shipped = resources.files("cantstop.bots").joinpath("weights", file)
    assert len(shipped.read_bytes()) < 1_000_000  # both together under the 2 MB the package allows
    network = load_network(file)
    assert network.weights[0].shape[0] == observation_size(variant, players)
    assert network.weights[-1].shape[1] == action_index(variant).size
    for w, b in zip(network.weights, network.biases, strict=True):
        assert w.dtype == np.float32
        assert b.shape == (w.shape[1],)


def fake_layer(weight: np.ndarray, bias: np.ndarray) -> SimpleNamespace:
    """What save_policy reads of a torch Linear: weight [out, in] and bias, as tensors."""

    def tensor(array: np.ndarray) -> SimpleNamespace:
        return SimpleNamespace(detach=lambda: SimpleNamespace(cpu=lambda: SimpleNamespace(numpy=lambda: array)))

    return SimpleNamespace(weight=tensor(weight), bias=tensor(bias))


def test_save_policy_writes_layers_that_load_network_plays(tmp_path: Path) -> None:
    """A network that scores the illegal STOP highest at the start of a turn must still roll."""
    variant = preset("solitaire")
    numbering = action_index(variant)
    inputs, outputs = observation_size(variant, 1), numbering.size
    rng = np.random.default_rng(0)
    hidden = rng.normal(size=(8, inputs)).astype(np.float32)
    last = np.zeros((outputs, 8), np.float32)
    bias = np.zeros(outputs, np.float32)
    bias[outputs - 1] = 100.0  # STOP, legal only when deciding
    bias[outputs - 2] = 50.0  # ROLL
    policy = SimpleNamespace(
        mlp_extractor=SimpleNamespace(policy_net=[fake_layer(hidden, np.zeros(8, np.float32)), object()]),
        action_net=fake_layer(last, bias),
    )
    path = tmp_path / "net.npz"
    save_policy(policy, path, "solitaire", 1)
    network = load_network(path)
    assert [w.shape for w in network.weights] == [(inputs, 8), (8, outputs)]
    decide = new_game(variant, 1).roll((1, 1, 1, 1))
    decide = decide.play(decide.legal_actions()[0])
    assert decide.phase is Phase.DECIDE
    assert ppo_action(decide, network) == numbering.to_action(outputs - 1)  # STOP is legal here
    choose = new_game(variant, 1).roll((1, 2, 3, 4))
    scores = network.scores(encode(choose, 0))
    best = max(choose.legal_actions(), key=lambda action: scores[numbering.to_index(action)])
    assert ppo_action(choose, network) == best  # the best legal one, though ROLL and STOP score more


def test_network_scores_are_dense_layers_with_tanh_between() -> None:
    w0 = np.array([[1.0, -1.0]], np.float32)
    w1 = np.array([[2.0], [3.0]], np.float32)
    network = Network((w0, w1), (np.zeros(2, np.float32), np.array([0.5], np.float32)))
    x = np.array([0.7], np.float32)
    expected = 2 * np.tanh(0.7) + 3 * np.tanh(-0.7) + 0.5
    assert network.scores(x)[0] == pytest.approx(expected, rel=1e-6)


def test_ppo_needs_fewer_solitaire_turns_than_rule28() -> None:
    """On the same 300 dice streams: rule28 averages about 10.7 turns, the network about 7.9."""
    ppo = np.mean([play_game(["ppo"], "solitaire", seed).turn for seed in range(300)])
    rule28 = np.mean([play_game(["rule28"], "solitaire", seed).turn for seed in range(300)])
    # The difference is about 2.8 turns with a standard error near 0.2: 2 turns is 4 errors below.
    assert ppo < rule28 - 2.0


def test_ppo_beats_rule28_with_seats_swapped() -> None:
    wins = wins_with_seats_swapped("ppo", "rule28", 200)
    # 64.7% over 10,000 games; 220 of 400 is a fair coin's lot with probability 2.5%.
    assert wins >= 220
