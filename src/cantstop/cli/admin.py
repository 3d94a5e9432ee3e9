"""`cantstop admin`: look after the accounts of a server's database (sessions, names, removal),
the legacy ratings from before accounts (listed, and attached to their owners' accounts), and
moderation: the reports players make, and silencing, suspending or closing an account, each
with a reason shown to it and logged."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TypeVar

import click

if TYPE_CHECKING:
    from cantstop.web.db.storage import Storage
    from cantstop.web.games.leaving import Leaving
    from cantstop.web.identity.accounts import Accounts

T = TypeVar("T")

DB = click.option("--db", "db_url", envvar="CANTSTOP_DB", default=None,
                  help="The server's SQLAlchemy URL (as for `cantstop serve`). Also $CANTSTOP_DB.")


@contextmanager
def storage_at(db_url: str | None) -> Iterator[Storage]:
    """The server's storage (the default database if no URL), its schema brought up to date
    first; a database that cannot be opened, and the server's refusals, as plain errors."""
    from sqlalchemy.exc import ArgumentError

    from cantstop.web.db.storage import Storage
    from cantstop.web.db.url import default_url
    from cantstop.web.errors import Refused
    from cantstop.web.server import describe_url

    url = db_url or default_url()
    try:
        shown = describe_url(url)
    except ArgumentError:  # not echoed: an unreadable URL cannot have its password hidden
        raise click.BadParameter(
            "not a database URL: write e.g. postgresql+psycopg://user:pw@host/db or sqlite:///path/to/file.db", param_hint="--db",
        ) from None
    try:
        storage = Storage(url)  # an unknown dialect fails here, an unreachable server below
        storage.migrate()
    except Exception as error:  # a bad URL or an unreachable server: say which, do not trace back
        raise click.ClickException(f"cannot open the database {shown}: {error}") from None
    try:
        yield storage
    except Refused as error:
        raise click.ClickException(error.message) from None
    finally:
        storage.close()


@contextmanager
def accounts_at(db_url: str | None) -> Iterator[Accounts]:
    """The accounts of the database (`storage_at`)."""
    from cantstop.web.identity.accounts import Accounts

    with storage_at(db_url) as storage:
        yield Accounts(storage)


def listing(what: str, lines: list[str]) -> None:
    """One line per item (tab-separated fields) on stdout, and how many on stderr."""
    for line in lines:
        click.echo(line)
    click.echo(f"{len(lines)} {what}{'s' if len(lines) != 1 else ''}", err=True)


@click.group()
def admin() -> None:
    """Look after accounts: their sessions, their names, their removal, the legacy ratings
    (from before accounts, kept under the name typed) attached to them, and moderation
    (reports; silencing, suspending and closing accounts)."""


@admin.command()
@DB
@click.argument("name", required=False)
def sessions(db_url: str | None, name: str | None) -> None:
    """List live sessions (of the account NAME, if given), most recently used first."""
    from datetime import timedelta

    from cantstop.web.identity.sessions import Sessions

    with accounts_at(db_url) as accounts:
        forever = timedelta.max  # a listing expires nothing
        found = Sessions(accounts.storage, forever, forever).listed(name)
    listing("session", [f"{s.account}\tsigned in {s.created:%Y-%m-%d %H:%M} UTC\tlast used {s.seen:%Y-%m-%d %H:%M} UTC\tfrom {s.address}"
                        for s in found])


@admin.command()
@DB
@click.argument("old")
@click.argument("new")
def rename(db_url: str | None, old: str, new: str) -> None:
    """Give the account OLD the name NEW (checked as a sign-up's name is)."""
    from cantstop.web.names import checked_name

    with accounts_at(db_url) as accounts:
        account = accounts.rename(old, checked_name(new))
    click.echo(f"renamed: {old!r} is now {account.name!r}")


def on_games(accounts: Accounts, job: Callable[[Leaving], Awaitable[T]]) -> T:
    """Run `job` on the games' own path, without bots or clocks: the servers holding the games
    hear of the moves (PostgreSQL), or read them when next asked (SQLite), and play on."""
    import asyncio

    from cantstop.core.dice import SecureDice
    from cantstop.web.db.recorder import Recorder
    from cantstop.web.games.leaving import Leaving
    from cantstop.web.games.live import LiveGames

    async def running() -> T:
        recorder = Recorder(accounts.storage)
        games = LiveGames(recorder, SecureDice())
        try:
            done = await job(Leaving(games))
            await games.ratings_written()
            return done
        finally:
            await recorder.close()

    return asyncio.run(running())


@admin.command()
@DB
@click.argument("name")
@click.option("--yes", is_flag=True, help="Do not ask to confirm.")
def remove(db_url: str | None, name: str, yes: bool) -> None:
    """Remove the account NAME as its owner's deletion would: its seats in games under way
    resign, its sessions, passkeys and seat tokens end, its finished games stay under
    "deleted player #ID", and the name stays taken."""
    from cantstop.web.identity.service import remove_account

    with accounts_at(db_url) as accounts:
        found = accounts.named(name)
        if not yes:
            click.confirm(f"remove the account {found.name!r}?", abort=True)
        on_games(accounts, lambda leaving: remove_account(accounts, leaving, found.id))
    click.echo(f"removed: {found.name!r} (account #{found.id})")


@admin.command()
@DB
def rekey(db_url: str | None) -> None:
    """Keep every account's name under today's look-alike key: run once after an upgrade
    whose notes say the look-alike rules changed, so the names they now join are taken."""
    with accounts_at(db_url) as accounts:
        changed, clashing = accounts.rekey()
    for name in clashing:
        click.echo(f"looks like another account's name, left as it was (rename one of them): {name}")
    click.echo(f"{changed} account{'s' if changed != 1 else ''} rekeyed", err=True)
    if clashing:
        raise SystemExit(1)


@admin.command()
@DB
def legacy(db_url: str | None) -> None:
    """List the legacy ratings nobody has claimed: the names typed before accounts existed."""
    from cantstop.web.players import scale, standings

    with accounts_at(db_url) as accounts:
        found = standings.legacy(accounts.storage)
    listing("legacy rating", [f"{r.name}\t{r.players} players\trating {scale.shown(r.mu)}\t{r.games} games\t{r.wins} wins" for r in found])


@admin.command()
@DB
@click.argument("legacy_name")
@click.argument("account")
def attach(db_url: str | None, legacy_name: str, account: str) -> None:
    """Make the legacy rating LEGACY_NAME the rating of the account ACCOUNT, its history
    with it (once its owner has shown they are who played under that name: nothing is ever
    attached by the name alone). Refused for an account that has a rating of its own."""
    from cantstop.web.players import scale, standings

    with accounts_at(db_url) as accounts:
        ratings = standings.attach(accounts.storage, legacy_name, accounts.named(account).id)
    for rating in ratings:
        click.echo(f"attached: the legacy {rating.players}-player rating {legacy_name!r} ({scale.shown(rating.mu)}, {rating.games} games)"
                   f" is now {rating.name!r}'s")


# ------------------------------------------------------------------ moderation
REASON = click.option("--reason", required=True, help="Why: shown to the account, and kept in the log.")
DAYS = click.option("--days", type=click.FloatRange(min=0, min_open=True), default=None,
                    help="For this many days (default: until lifted).")


@admin.command()
@DB
@click.option("--all", "everything", is_flag=True, help="Those dealt with too.")
def reports(db_url: str | None, everything: bool) -> None:
    """List the reports not dealt with yet (or all), oldest first: number, when, who reported
    whom, the chat line reported (in which game) if any, the reason."""
    from cantstop.web.social.reports import Reports

    with accounts_at(db_url) as accounts:
        found = Reports(accounts.storage).listed(everything)
    lines = []
    for r in found:
        about = r.name if r.account in (None, r.name) else f"{r.name} (account {r.account})"
        said = f"\tsaid in game {r.game_id}: {r.text!r}" if r.message_id is not None else ""
        done = f"\tdealt with {r.handled:%Y-%m-%d %H:%M}: {r.note}" if r.handled is not None else ""
        lines.append(f"#{r.id}\t{r.at:%Y-%m-%d %H:%M} UTC\t{r.reporter} reports {about}{said}\tbecause: {r.reason}{done}")
    listing("report", lines)


@admin.command()
@DB
@click.argument("report", type=int)
@click.option("--note", required=True, help="What was done about it.")
def resolve(db_url: str | None, report: int, note: str) -> None:
    """Mark report number REPORT dealt with, with a note of what was done."""
    from cantstop.web.social.reports import Reports

    with accounts_at(db_url) as accounts:
        Reports(accounts.storage).resolve(report, note)
    click.echo(f"report #{report} dealt with")


def decide(db_url: str | None, name: str, kind: str, reason: str, days: float | None) -> None:
    """Put a decision of `kind` on the account `name`, and say so."""
    from datetime import timedelta

    from cantstop.web.db.rows import now
    from cantstop.web.identity.moderation import Kind
    from cantstop.web.identity.service import sanction

    with accounts_at(db_url) as accounts:
        found = accounts.named(name)
        until = None if days is None else now() + timedelta(days=days)
        decided = on_games(accounts, lambda leaving: sanction(accounts, leaving, found.id, Kind(kind), reason, until))
    click.echo(f"{found.name}: {decided.words()}")


@admin.command()
@DB
@click.argument("name")
@REASON
@DAYS
def silence(db_url: str | None, name: str, reason: str, days: float | None) -> None:
    """Silence the account NAME: it writes nothing in any game's chat, for --days or until lifted."""
    decide(db_url, name, "silence", reason, days)


@admin.command()
@DB
@click.argument("name")
@REASON
@DAYS
def suspend(db_url: str | None, name: str, reason: str, days: float | None) -> None:
    """Suspend the account NAME: it resigns its games under way and plays none (no game made,
    joined or played again), for --days or until lifted."""
    decide(db_url, name, "suspend", reason, days)


@admin.command()
@DB
@click.argument("name")
@REASON
@click.option("--yes", is_flag=True, help="Do not ask to confirm.")
def close(db_url: str | None, name: str, reason: str, yes: bool) -> None:
    """Close the account NAME for good: it resigns its games under way, its sessions end, and
    signing in tells it why instead; its name stays taken and its games stay."""
    if not yes:
        click.confirm(f"close the account {name!r} for good?", abort=True)
    decide(db_url, name, "close", reason, None)


@admin.command()
@DB
@click.argument("name")
@click.argument("what", type=click.Choice(["silence", "suspension"]))
@REASON
def lift(db_url: str | None, name: str, what: str, reason: str) -> None:
    """End the account NAME's silence or suspension now."""
    from cantstop.web.identity.moderation import Kind, Moderation

    with accounts_at(db_url) as accounts:
        found = accounts.named(name)
        kind = Kind.SILENCE if what == "silence" else Kind.SUSPEND
        lifted = Moderation(accounts.storage).lift(found.id, kind, reason)
    if not lifted:
        raise click.ClickException(f"{found.name} has no {what} in force")
    click.echo(f"{found.name}: the {what} is lifted")


@admin.command()
@DB
@click.argument("name", required=False)
def moderation(db_url: str | None, name: str | None) -> None:
    """The log of the moderators' decisions (on the account NAME, if given), newest first."""
    from cantstop.web.identity.moderation import Moderation

    with accounts_at(db_url) as accounts:
        found = Moderation(accounts.storage).log(None if name is None else accounts.named(name).id)
    listing("decision", [f"{d.at:%Y-%m-%d %H:%M} UTC\t{d.account}\t{d.action}"
                         f"{'' if d.until is None else f' until {d.until:%Y-%m-%d %H:%M} UTC'}\t{d.reason}" for d in found])
