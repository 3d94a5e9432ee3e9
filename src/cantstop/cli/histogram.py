"""How many turns a solitaire run took, shown as text bars and written as an image.

Shared by `cantstop solitaire` and its `--fast` path, which both report the same way.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

import click


def histogram(turns: tuple[int, ...] | Mapping[int, int], width: int = 50) -> str:
    """Text bars, one line per number of turns (from the turns, or their counts)."""
    counts = turns if isinstance(turns, Mapping) else Counter(turns)
    games = sum(counts.values())
    most = max(counts.values())
    lines = []
    for t in range(min(counts), max(counts) + 1):
        n = counts.get(t, 0)
        bar = "#" * math.ceil(n * width / most) if n else ""
        lines.append(f"{t:>4} {n:>7} {100 * n / games:5.1f}% {bar}")
    return "\n".join(lines)


def turn_limit_note(unfinished: int, max_turns: int) -> str:
    """What the turn limit did to a run, for its summary line."""
    if not unfinished:
        return f"no game reached the {max_turns:,}-turn limit"
    return (
        f"{unfinished:,} game{'s' if unfinished > 1 else ''} reached the {max_turns:,}-turn limit and "
        f"count{'' if unfinished > 1 else 's'} as {max_turns:,} turns: the mean is a lower bound"
    )


def plot(turns: tuple[int, ...] | Mapping[int, int], bot: str, path: str) -> None:
    """A histogram image (from the turns, or their counts)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    counts = turns if isinstance(turns, Mapping) else Counter(turns)
    games = sum(counts.values())
    xs = list(range(min(counts), max(counts) + 1))
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.bar(xs, [counts.get(x, 0) / games for x in xs], color="#3a7d44")
    mean = sum(t * n for t, n in counts.items()) / games
    ax.axvline(mean, color="#b33", linestyle="--", label=f"mean {mean:.2f}")
    ax.set_xlabel("turns to claim three columns")
    ax.set_ylabel("share of games")
    ax.set_title(f"Solitaire: {bot}, {games} games")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def write_plot(turns: tuple[int, ...] | Mapping[int, int], bot: str, path: str) -> None:
    """`plot`, with a disk that refuses the file reported as a command-line error."""
    try:
        plot(turns, bot, path)
    except OSError as error:
        raise click.ClickException(f"cannot write the plot {path}: {error.strerror or error}") from None
    click.echo(f"plot written to {path}")


def check_plot_path(path: str) -> None:
    """A clear error now for a plot that could not be written later."""
    from matplotlib.backend_bases import FigureCanvasBase

    formats = sorted(FigureCanvasBase.get_supported_filetypes())
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in formats:
        raise click.BadParameter(
            f"cannot tell the image format of {path!r}: end the name with .png, or one of "
            + ", ".join("." + f for f in formats),
            param_hint="--plot",
        )
    folder = Path(path).parent
    if not folder.is_dir():
        raise click.BadParameter(f"no folder {str(folder)!r} to write {path!r} in", param_hint="--plot")
