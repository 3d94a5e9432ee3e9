"""`cantstop play`: the terminal game."""

from __future__ import annotations

from pathlib import Path

import click

from cantstop.cli.engine import load_variant, variant_option
from cantstop.core.dice import SeededDice
from cantstop.core.errors import RecordError, SetupError, UnknownBotError
from cantstop.core.notation import SEATS

MAX_DELAY = 60.0


@click.command()
@click.option(
    "--players",
    default=None,
    help='Seats in order, e.g. "Ann,Bob,bot:expert": people by name, bots as bot:NAME or '
    "bot:LEVEL (easy, medium, hard, expert). Without it (and --variant), a start screen asks.",
)
@variant_option()
@click.option("--seed", type=int, default=None, help="Seed for reproducible dice.")
@click.option("--first", default=None, help="Seat that starts (A-D or 1-4); default: roll-off.")
@click.option(
    "--resume",
    "resume_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Continue the game in this record file.",
)
@click.option(
    "--records",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for game records (default: your user data folder, shown at start).",
)
@click.option("--delay", type=float, default=0.7, show_default=True, help="Seconds between a bot's moves.")
@click.pass_context
def play(
    ctx: click.Context,
    players: str | None,
    variant_name: str,
    seed: int | None,
    first: str | None,
    resume_file: Path | None,
    records: Path | None,
    delay: float,
) -> None:
    """Play Can't Stop in the terminal: people at one keyboard and computer players."""
    from cantstop.tui import terminal
    from cantstop.tui.app import CantStopApp, PlayConfig
    from cantstop.tui.seats import DEFAULT_PLAYERS, check_seats, parse_seats
    from cantstop.tui.session import Session, default_records_dir

    if not 0 <= delay <= MAX_DELAY:  # also refuses nan and inf, which would stall the bots
        raise click.BadParameter(f"must be 0 to {MAX_DELAY:g} seconds, not {delay:g}", param_hint="--delay")
    config = PlayConfig(records=records or default_records_dir(), seed=seed, bot_delay=delay)
    variant_given = ctx.get_parameter_source("variant_name") is not click.core.ParameterSource.DEFAULT
    if resume_file is not None and (players is not None or variant_given or first is not None):
        raise click.BadParameter(
            "a resumed game keeps the seats, rules and turn order of its record: "
            "drop --players, --variant and --first",
            param_hint="--resume",
        )
    if resume_file is not None:
        try:
            config.resume, config.notices = Session.resume(resume_file, SeededDice(seed))
        except RecordError as error:
            raise click.ClickException(f"cannot resume {resume_file}: {error}") from None
    else:
        config.variant = load_variant(variant_name)
        if players is not None or variant_given:
            try:
                if players is None:  # `--variant solitaire` alone means: you, alone
                    players = ",".join(DEFAULT_PLAYERS.split(",")[: config.variant.most_players])
                config.seats, config.notices = parse_seats(players)
            except (SetupError, UnknownBotError) as error:
                raise click.BadParameter(str(error), param_hint="--players") from None
            try:
                check_seats(config.seats, config.variant)
            except SetupError as error:
                raise click.BadParameter(str(error), param_hint="--players") from None
            if first is not None:
                config.first = parse_first(first, len(config.seats))
        elif first is not None:
            raise click.BadParameter("name the seats with --players to choose who starts", param_hint="--first")
        if seed is not None:
            config.dice = SeededDice(seed)
    try:  # now, not as a traceback from inside the game when the first record is written
        config.records.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise click.BadParameter(
            f"cannot create the records folder {config.records}: {error.strerror or error}", param_hint="--records"
        ) from None
    try:
        terminal.need_a_terminal("cantstop play")
    except terminal.NoTerminalError as error:
        raise click.ClickException(str(error)) from None
    path = CantStopApp(config).run()
    if path:
        click.echo(f"Game record: {path}")


def parse_first(text: str, seats: int) -> int:
    text = text.strip().upper()
    if text in SEATS[:seats]:
        return SEATS.index(text)
    if text.isdigit() and 1 <= int(text) <= seats:
        return int(text) - 1
    raise click.BadParameter(
        f"{text!r} is not a seat: use {', '.join(SEATS[:seats])} or 1-{seats}", param_hint="--first"
    )
