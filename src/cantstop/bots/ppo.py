"""The ppo bot: a policy network trained by MaskablePPO, played with numpy alone.

`examples/train_ppo.py` trains it on the compiled vector env (docs/envs.md has the
command, the time it took and the curve) and `save_policy` writes the network's layers
as arrays. This module reads the shipped weights (`weights/ppo-*.npz`, one network per
game it was trained for), turns a position into the environments' observation
(`cantstop.encoding`), and picks the legal action the network scores highest: no
torch, no randomness, the same move in the same position every time.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from cantstop.bots.base import Budget, Level, Need, needs_fast, register, rehearse
from cantstop.core.errors import BotUnfitError
from cantstop.core.state import Action, State
from cantstop.core.variant import Variant, preset

# The games a network was trained for: (variant preset, players) -> its weights file.
NETWORKS = {
    ("solitaire", 1): "ppo-solitaire.npz",
    ("classic", 2): "ppo-rule28.npz",
}


@dataclass(frozen=True)
class Network:
    """Dense layers with tanh between them; the last layer's outputs score the actions."""

    weights: tuple[Any, ...]  # numpy float32 [inputs, outputs] per layer
    biases: tuple[Any, ...]

    def scores(self, observation: Any) -> Any:
        import numpy as np

        x = observation
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            x = x @ w + b
            if i < len(self.weights) - 1:
                x = np.tanh(x)
        return x


def _trained_for(variant: Variant, num_players: int) -> str | None:
    for (name, count), file in NETWORKS.items():
        if count == num_players and variant == preset(name):
            return file
    return None


def fits_ppo(variant: Variant, num_players: int) -> str | None:
    if _trained_for(variant, num_players) is None:
        games = ", ".join(f"{name} with {count} player{'' if count == 1 else 's'}" for name, count in NETWORKS)
        return f"its networks were trained for {games} only"
    return needs_fast("numpy")


@cache
def load_network(source: str | Path) -> Network:
    """A shipped network by file name (`weights/NAME`), or one at a path; loaded once."""
    import numpy as np

    where = source if isinstance(source, Path) else resources.files("cantstop.bots").joinpath("weights", source)
    with where.open("rb") as file, np.load(file) as data:
        layers = sum(1 for key in data.files if key.startswith("w"))
        weights = tuple(data[f"w{i}"].astype(np.float32) for i in range(layers))
        biases = tuple(data[f"b{i}"].astype(np.float32) for i in range(layers))
    return Network(weights, biases)


def ppo_action(state: State, network: Network) -> Action:
    """The legal action `network` scores highest in `state` (ties: the lowest index)."""
    import numpy as np

    from cantstop.encoding.actions import action_index
    from cantstop.encoding.observation import encode

    numbering = action_index(state.variant)
    scores = network.scores(encode(state, state.seat))
    legal = numbering.mask(state).astype(bool)
    return numbering.to_action(int(np.argmax(np.where(legal, scores, -np.inf))))


def save_policy(policy: Any, path: Path, variant: str, num_players: int) -> None:
    """Write an SB3 `MaskableActorCriticPolicy`'s actor (its MLP and action layer) as arrays."""
    import numpy as np

    # The dense layers are the modules with weights (the activations between have none).
    linear = [m for m in policy.mlp_extractor.policy_net if hasattr(m, "weight")]
    linear.append(policy.action_net)
    arrays = {}
    for i, layer in enumerate(linear):
        arrays[f"w{i}"] = layer.weight.detach().cpu().numpy().T.astype(np.float32)
        arrays[f"b{i}"] = layer.bias.detach().cpu().numpy().astype(np.float32)
    np.savez_compressed(path, variant=np.array(variant), players=np.array(num_players), **arrays)


@register(
    "ppo",
    Level.HARD,
    "A neural network trained by PPO: solitaire, and two players against rule28.",
    "PPO bot",
    fits_ppo,
    prepare=rehearse,
    needs=(Need.NUMPY,),
)
def play_ppo(state: State, rng: random.Random, budget: Budget) -> Action:
    file = _trained_for(state.variant, state.num_players)
    if file is None:
        raise BotUnfitError(fits_ppo(state.variant, state.num_players))
    return ppo_action(state, load_network(file))
