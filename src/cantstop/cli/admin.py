"""`cantstop admin`: look after the accounts of a server's database (sessions, names, removal)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from cantstop.web.identity.accounts import Accounts

DB = click.option("--db", "db_url", envvar="CANTSTOP_DB", default=None,
                  help="The server's SQLAlchemy URL (as for `cantstop serve`). Also $CANTSTOP_DB.")


@contextmanager
def accounts_at(db_url: str | None) -> Iterator[Accounts]:
    """The accounts of the database, its schema brought up to date first; refusals as plain errors."""
    from cantstop.web.db.storage import Storage
    from cantstop.web.db.url import default_url
    from cantstop.web.errors import Refused
    from cantstop.web.identity.accounts import Accounts

    storage = Storage(db_url or default_url())
    try:
        storage.migrate()
        yield Accounts(storage)
    except Refused as error:
        raise click.ClickException(error.message) from None
    finally:
        storage.close()


@click.group()
def admin() -> None:
    """Look after accounts: their sessions, their names, their removal.

    Attaching a legacy (name-keyed) rating to an account comes with ratings per account."""


@admin.command()
@DB
@click.argument("name", required=False)
def sessions(db_url: str | None, name: str | None) -> None:
    """List live sessions (of the account NAME, if given), most recently used first."""
    with accounts_at(db_url) as accounts:
        found = accounts.sessions(name)
    for s in found:
        click.echo(f"{s.account}\tsigned in {s.created:%Y-%m-%d %H:%M} UTC\tlast used {s.seen:%Y-%m-%d %H:%M} UTC\tfrom {s.address}")
    click.echo(f"{len(found)} session{'s' if len(found) != 1 else ''}", err=True)


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
    """Remove the account NAME as its owner's deletion would: sessions and passkeys end, its
    finished games stay under "deleted player #ID", and the name stays taken."""
    from cantstop.web.errors import NotFound

    with accounts_at(db_url) as accounts:
        found = accounts.find(name)
        if found is None:
            raise NotFound("no_account", f"no account is called {name!r}")
        if not yes:
            click.confirm(f"remove the account {found[0].name!r}?", abort=True)
        accounts.delete(found[0].id)
    click.echo(f"removed: {found[0].name!r} (account #{found[0].id})")
