"""`cantstop admin`: look after the accounts of a server's database (sessions, names, removal)
and the legacy ratings from before accounts (listed, and attached to their owners' accounts)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from cantstop.web.db.storage import Storage
    from cantstop.web.identity.accounts import Accounts

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
    """Look after accounts: their sessions, their names, their removal, and the legacy
    ratings (from before accounts, kept under the name typed) attached to them."""


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


@admin.command()
@DB
@click.argument("name")
@click.option("--yes", is_flag=True, help="Do not ask to confirm.")
def remove(db_url: str | None, name: str, yes: bool) -> None:
    """Remove the account NAME as its owner's deletion would: its seats in games under way
    resign, its sessions, passkeys and seat tokens end, its finished games stay under
    "deleted player #ID", and the name stays taken."""
    import asyncio

    from cantstop.core.dice import SecureDice
    from cantstop.web.db.recorder import Recorder
    from cantstop.web.games.leaving import Leaving
    from cantstop.web.games.live import LiveGames
    from cantstop.web.identity.service import remove_account

    with accounts_at(db_url) as accounts:
        found = accounts.named(name)
        if not yes:
            click.confirm(f"remove the account {found.name!r}?", abort=True)

        async def removing() -> None:
            # The games' own path, without bots or clocks: the servers holding the games hear of
            # the moves (PostgreSQL), or read them when next asked (SQLite), and play on.
            recorder = Recorder(accounts.storage)
            games = LiveGames(recorder, SecureDice())
            try:
                await remove_account(accounts, Leaving(games), found.id)
                await games.ratings_written()
            finally:
                await recorder.close()

        asyncio.run(removing())
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
    from cantstop.web.players import standings

    with accounts_at(db_url) as accounts:
        found = standings.legacy(accounts.storage)
    listing("legacy rating", [f"{r.name}\trating {r.ordinal:.2f}\t{r.games} games\t{r.wins} wins" for r in found])


@admin.command()
@DB
@click.argument("legacy_name")
@click.argument("account")
def attach(db_url: str | None, legacy_name: str, account: str) -> None:
    """Make the legacy rating LEGACY_NAME the rating of the account ACCOUNT, its history
    with it (once its owner has shown they are who played under that name: nothing is ever
    attached by the name alone). Refused for an account that has a rating of its own."""
    from cantstop.web.players import standings

    with accounts_at(db_url) as accounts:
        rating = standings.attach(accounts.storage, legacy_name, accounts.named(account).id)
    click.echo(f"attached: the legacy rating {legacy_name!r} ({rating.ordinal:.2f}, {rating.games} games) is now {rating.name!r}'s")
