"""`cantstop solitaire` (how many turns a bot needs alone) and `cantstop bots` (the registry)."""

from __future__ import annotations

import importlib.util
import math
import random
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import click
from rich.console import Console

from cantstop.arena.match import MAX_TURNS
from cantstop.bots.base import Budget, Need, bot_names, get_bot
from cantstop.cli.engine import MAX_GAMES, MAX_JOBS
from cantstop.cli.fast_run import FAST_MAX_GAMES, check_core_games, fast_option, fast_solitaire
from cantstop.cli.histogram import check_plot_path, histogram, turn_limit_note, write_plot
from cantstop.cli.preparing import prepare_bots
from cantstop.core.dice import SeededDice
from cantstop.core.errors import SetupError, UnknownBotError, VariantError
from cantstop.core.record import Record
from cantstop.core.state import new_game
from cantstop.core.variant import preset
from cantstop.solve.value_file import data_folder, value_files
from cantstop.table import BotPlayer, Policy, Table


class BotFailedError(RuntimeError):
    """A bot's seat failed during a run: the run stops rather than print a figure it spoiled."""

    def __init__(self, bot: str, seed: int, why: str) -> None:
        super().__init__(
            f"the bot {bot} failed in the game of seed {seed} ({why}); no result is printed for a bot that cannot play"
        )
        self.bot, self.seed, self.why = bot, seed, why

    def __reduce__(self) -> tuple[type[BotFailedError], tuple[str, int, str]]:  # from a worker process
        return BotFailedError, (self.bot, self.seed, self.why)


def solitaire_game(bot: str, seed: int, variant: str = "solitaire", max_turns: int = MAX_TURNS) -> int | None:
    """Turns `bot` needs to win a solitaire game with dice and bot seeded by `seed`, or None
    if it has not won after `max_turns` turns (a bot that never stops could bust forever).

    Raises `BotFailedError` if the bot fails (crashes, or answers an illegal move): a
    fallback move played in its stead would make the figure another bot's.
    """
    player = BotPlayer(get_bot(bot), rng=random.Random(f"solitaire-bot-{seed}"), budget=Budget())
    table = Table(
        Record(preset(variant), [bot]), SeededDice(f"solitaire-dice-{seed}"), [player],
        policy=Policy.FORFEIT, narrate=False,
    )
    table.run(until=lambda t: t.state.turn >= max_turns)
    if table.forfeit is not None:
        raise BotFailedError(bot, seed, f"{table.forfeit.fault}: {table.forfeit.reason}")
    return table.state.turn if table.over else None


def _batch(job: tuple[str, list[int], str, int, bool]) -> list[int | str | None]:
    """Each seed's turns (None: unfinished), or with forfeits allowed why its game was forfeited."""
    bot, seeds, variant, max_turns, allow_forfeits = job
    played: list[int | str | None] = []
    for seed in seeds:
        try:
            played.append(solitaire_game(bot, seed, variant, max_turns))
        except BotFailedError as error:
            if not allow_forfeits:
                raise
            played.append(f"the game of seed {error.seed}: {error.why}")
    return played


@dataclass(frozen=True)
class SolitaireResult:
    turns: tuple[int, ...]  # by game played out, in seed order; an unfinished game counts `max_turns`
    max_turns: int = MAX_TURNS
    unfinished: int = 0  # games stopped at the turn limit: then the mean is a lower bound
    forfeited: int = 0  # games the bot failed in (only with forfeits allowed): not in `turns`
    first_forfeit: str | None = None

    @property
    def mean(self) -> float:
        return sum(self.turns) / len(self.turns)

    @property
    def standard_error(self) -> float:
        n = len(self.turns)
        if n < 2:
            return math.nan
        mean = self.mean
        variance = sum((t - mean) ** 2 for t in self.turns) / (n - 1)
        return math.sqrt(variance / n)


def run_solitaire(
    bot: str,
    games: int,
    seed: int = 0,
    jobs: int = 1,
    variant: str = "solitaire",
    max_turns: int = MAX_TURNS,
    allow_forfeits: bool = False,
) -> SolitaireResult:
    """Play `games` solitaire games; the same seed gives the same games whatever `jobs` is.

    Raises `BotFailedError` as soon as a game's bot fails, unless `allow_forfeits`: then
    the games it failed in are counted apart and left out of the turns.
    """
    seeds = [seed * 1_000_003 + i for i in range(games)]
    if jobs <= 1 or games < 2 * jobs:
        played = _batch((bot, seeds, variant, max_turns, allow_forfeits))
    else:
        size = math.ceil(games / (jobs * 4))
        chunks = [(bot, seeds[i : i + size], variant, max_turns, allow_forfeits) for i in range(0, games, size)]
        with ProcessPoolExecutor(jobs) as pool:
            played = [t for part in pool.map(_batch, chunks) for t in part]
    forfeits = [t for t in played if isinstance(t, str)]
    turns = tuple(max_turns if t is None else t for t in played if not isinstance(t, str))
    return SolitaireResult(turns, max_turns, played.count(None), len(forfeits), forfeits[0] if forfeits else None)


def _bot_name(ctx: click.Context, param: click.Parameter, value: str) -> str:
    try:
        return get_bot(value).name
    except UnknownBotError as error:
        raise click.BadParameter(str(error)) from None


@click.command()
@click.argument("bot", callback=_bot_name)
@click.option("--games", "-n", type=click.IntRange(1, FAST_MAX_GAMES), default=1000, show_default=True,
              help=f"Up to {MAX_GAMES:,} ({FAST_MAX_GAMES:,} with --fast).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the dice and the bot.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False),
              help="Write a histogram image; its name's ending (.png, .svg, .pdf, ...) picks the format.")
@click.option("--jobs", "-j", type=click.IntRange(1, MAX_JOBS), default=1, show_default=True)
@click.option("--variant", default="solitaire", show_default=True, help="A one-player variant.")
@click.option("--max-turns", type=click.IntRange(min=1), default=MAX_TURNS, show_default=True,
              help="A game still going after this many turns stops there and counts that many.")
@click.option("--allow-forfeits", is_flag=True,
              help="Play on when the bot fails (crashes, or answers an illegal move), leaving those games "
                   "out of the figures and saying how many; without it the first failure stops the run.")
@fast_option
def solitaire(
    bot: str, games: int, seed: int, plot_path: str | None, jobs: int, variant: str, max_turns: int,
    allow_forfeits: bool, fast: bool,
) -> None:
    """How many turns BOT (a name or a level) needs to claim three columns alone."""
    try:
        new_game(variant, 1)
    except (VariantError, SetupError) as error:
        raise click.BadParameter(str(error), param_hint="--variant") from None
    try:
        get_bot(bot).check(preset(variant), 1)
    except SetupError as error:
        raise click.BadParameter(str(error), param_hint="BOT") from None
    if plot_path:
        check_plot_path(plot_path)  # before the games, not after minutes of them
    if fast:
        return fast_solitaire(bot, games, seed, jobs, variant, plot_path, max_turns)
    check_core_games(games)
    errors = Console(stderr=True)
    prepare_bots([bot], preset(variant), 1, errors, errors.is_terminal)
    try:
        result = run_solitaire(bot, games, seed, jobs, variant, max_turns, allow_forfeits)
    except BotFailedError as error:
        raise click.ClickException(f"{error} (--allow-forfeits plays on and leaves such games out)") from None
    if not result.turns:
        raise click.ClickException(f"the bot {bot} failed in every game: {result.first_forfeit}")
    played = len(result.turns)
    if played > 1:
        summary = f"{result.mean:.3f} ± {result.standard_error:.3f} turns (mean ± SE), {played} games"
    else:  # one game has no spread to show
        summary = f"{result.turns[0]} turns, 1 game"
    forfeits = ""
    if result.forfeited:
        forfeits = (f"; {result.forfeited} game{'s' * (result.forfeited > 1)} forfeited and left out "
                    f"(first: {result.first_forfeit})")
    click.echo(f"{bot}: {summary}, seed {seed}; {turn_limit_note(result.unfinished, max_turns)}{forfeits}")
    click.echo(histogram(result.turns))
    if plot_path:
        write_plot(result.turns, bot, plot_path)


def _has(need: Need) -> str:
    """Whether this install has what `need` names, in a few words (nothing is imported)."""
    if need is Need.SOLVED:
        folder = data_folder()
        solved = len(value_files(folder)) if folder.is_dir() else 0
        if not solved:
            return "none here yet (cantstop solve SPEC solves one; docs/solving.md)"
        return f"{solved} solved here (cantstop solve --list)"
    packages = ("numpy",) if need is Need.NUMPY else ("numba", "numpy")
    missing = [name for name in packages if importlib.util.find_spec(name) is None]
    if missing:
        return f"not installed here ({', '.join(missing)} missing): from a checkout run pip install -e '.[fast]'"
    return "installed here"


@click.command()
def bots() -> None:
    """List the computer players: name, level, what people call it, what it does and what it
    needs beyond the base install (the fast extra, a solved board), and whether this one has it."""
    infos = [get_bot(name) for name in bot_names()]
    width = max(len(info.name) for info in infos)
    shown = max(len(info.display) for info in infos)
    for info in infos:
        needs = f"  [needs {' and '.join(info.needs)}]" if info.needs else ""
        click.echo(f"{info.name:<{width}}  {info.level.value:<6}  {info.display:<{shown}}  {info.description}{needs}")
    needed = dict.fromkeys(need for info in infos for need in info.needs)
    if needed:
        click.echo()
    for need in needed:
        click.echo(f"{need}: {_has(need)}")
