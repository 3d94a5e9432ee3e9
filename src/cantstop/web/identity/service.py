"""The identity room's service: what the account routes ask for, each a whole job — signing up,
signing in (throttled, an old hash redone), sessions, passwords, passkeys, webhooks,
deleting an account — so no route touches storage, counts a failure or hashes a password.

Storage calls run off the event loop (`run`, the recorder's), argon2id on its own threads
(`passwords`). A refusal is one of `web.errors`' kinds, raised with nothing half done.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from cantstop.table import GameOverError
from cantstop.web.errors import Conflict, Invalid, NotAllowed, NotSignedIn, NotVerified, TooMany
from cantstop.web.games.leaving import Leaving
from cantstop.web.identity import passkeys
from cantstop.web.identity.accounts import Account, Accounts
from cantstop.web.identity.hooks import Hooks
from cantstop.web.identity.moderation import Kind, Moderation, Sanction, Standing
from cantstop.web.identity.passkey_store import Passkey, PasskeyStore
from cantstop.web.identity.passwords import check_password, hashed, matches, needs_rehash
from cantstop.web.identity.sessions import SessionInfo, Sessions, SignedIn
from cantstop.web.identity.throttle import (
    FREE_PER_ADDRESS,
    FREE_PER_NAME,
    Keys,
    Throttle,
    by_account,
    by_address,
    by_name,
    sign_in_keys,
)
from cantstop.web.names import checked_name
from cantstop.web.settings import Settings
from cantstop.web.webhooks import (
    Resolver,
    WebhookRefused,
    checked_address,
    deliver,
    parse_hook_url,
    system_resolver,
    time_text,
)

Run = Callable[..., Awaitable[Any]]
WRONG = "the name or the password is wrong"  # for an unknown name as for a wrong password


def bad_credentials(message: str) -> NotSignedIn:
    """A wrong password, an unknown name or an unknown passkey: one code, so none is told apart."""
    return NotSignedIn("bad_credentials", message)


def stored_time(now: Callable[[], float]) -> Callable[[], datetime]:
    """The server's clock (seconds since the epoch) as storage keeps times: UTC, no zone."""
    return lambda: datetime.fromtimestamp(now(), UTC).replace(tzinfo=None)


async def resign_seats(accounts: Accounts, leaving: Leaving, account_id: int) -> None:
    """The account's seats in games waiting or under way resign (a rated game rates it as a
    resignation; before the start the seat opens again)."""
    for game_id, seat in await leaving.games.recorder.db(accounts.seats_in_play, account_id):
        try:
            await leaving.resign(game_id, seat)
        except (GameOverError, Conflict):  # over, or left already, meanwhile: nothing to resign
            continue


async def remove_account(accounts: Accounts, leaving: Leaving, account_id: int) -> None:
    """Delete an account: first its seats in games waiting or under way resign (a rated game
    rates it as a resignation; before the start the seat opens again), then its name,
    password, sessions, passkeys and seat tokens go; finished games stay, shown as a
    deleted player's, and the name stays taken. Every game it sat in is told again under
    the new name here, and in every other process as it hears of the change."""
    games = leaving.games
    await resign_seats(accounts, leaving, account_id)
    renamed: list[str] = await games.recorder.db(accounts.delete, account_id)
    for game_id in renamed:  # the games held here show the seats, and read the chat lines, as stored now
        game = games.held.get(game_id)
        if game is not None:
            async with game.lock:
                await games.refresh(game, seats=True)


async def sanction(accounts: Accounts, leaving: Leaving, account_id: int, kind: Kind, reason: str, until: datetime | None = None) -> Sanction:
    """The moderators' decision on an account (`moderation.Moderation.decide`), and what
    follows from it: a suspended or closed account's seats in games waiting or under way
    resign (it may not play them), and a closed account's sessions end."""
    moderation = Moderation(accounts.storage)
    decided: Sanction = await leaving.games.recorder.db(moderation.decide, account_id, kind, reason, until)
    if kind in (Kind.SUSPEND, Kind.CLOSE):
        await resign_seats(accounts, leaving, account_id)
    if kind is Kind.CLOSE:
        await leaving.games.recorder.db(accounts.end_sessions, account_id)
    return decided


class AccountService:
    """One process's accounts: `run` runs a blocking storage call off the event loop; `now`
    is the server's clock (seconds since the epoch), which tests move on; `hooks` is the
    process's own (what "your turn" reads), so a change made here is seen at once."""

    def __init__(
        self, accounts: Accounts, run: Run, settings: Settings, hooks: Hooks, leaving: Leaving, now: Callable[[], float],
        resolve: Resolver = system_resolver,
    ) -> None:
        self.stamp = stamp = stored_time(now)
        storage = accounts.storage
        self.accounts, self.run, self.settings, self.hooks, self.leaving, self.resolve = accounts, run, settings, hooks, leaving, resolve
        self.sessions = Sessions(storage, timedelta(seconds=settings.session_idle), timedelta(seconds=settings.session_longest), stamp)
        self.keys = PasskeyStore(storage, stamp)
        self.throttle = Throttle(storage, settings.sign_in_delay, stamp)
        self.moderation = Moderation(storage, stamp)

    # ------------------------------------------------------------- sessions
    async def session(self, token: str) -> SignedIn | None:
        """The live session of a cookie's token, or None."""
        found: SignedIn | None = await self.run(self.sessions.signed_in, token)
        return found

    async def _open(self, account: Account, address: str, old: str | None) -> str:
        """A new session (the old one, if any, ends: its id is never reused); its token."""
        if old:
            await self.run(self.sessions.close_token, old)
        token: str = await self.run(self.sessions.open, account.id, address)
        return token

    async def sign_up(self, name: str, password: str, address: str, old: str | None) -> tuple[Account, str]:
        """A new account under a name nobody has (nor one that looks like it), signed in at
        once: the account and its session's token. Invalid `bad_name`, `weak_password`;
        Conflict `name_taken`."""
        name = checked_name(name)
        check_password(password, name)
        account: Account = await self.run(self.accounts.create, name, await hashed(password))
        return account, await self._open(account, address, old)

    async def sign_in(self, name: str, password: str, address: str, old: str | None) -> tuple[Account, str]:
        """The account and a new session's token. A wrong password and an unknown name get
        one answer (NotSignedIn `bad_credentials`) after the same work; failures past a few
        wait longer and longer (TooMany `sign_in_throttled`). A hash made with older
        parameters is redone."""
        keys = sign_in_keys(name, address)
        await self._attempt(keys)
        found = await self.run(self.accounts.find, name)
        stored = None if found is None else found[1]
        if not await matches(stored, password) or found is None or stored is None:
            await self.run(self.throttle.failed, keys)
            raise bad_credentials(WRONG)
        account: Account = found[0]
        await self.run(self.throttle.succeeded, keys, by_name(name))
        await self._not_closed(account)
        if needs_rehash(stored):  # the parameters changed since it was hashed
            await self.run(self.accounts.set_password, account.id, await hashed(password))
        return account, await self._open(account, address, old)

    async def _not_closed(self, account: Account) -> None:
        """NotAllowed `closed`, with the moderators' reason, for an account they closed: told
        only to whoever proved to be it (its password or passkey)."""
        closed = (await self.standing(account.id)).closed
        if closed is not None:
            raise NotAllowed("closed", closed.words())

    async def _attempt(self, keys: Keys) -> None:
        """Count a sign-in attempt against `keys` (as failed until it succeeds); TooMany
        `sign_in_throttled` (nothing counted) while any of them must wait."""
        wait: float = await self.run(self.throttle.attempt, keys)
        if wait > 0:
            seconds = math.ceil(wait)
            raise TooMany(f"too many failed sign-ins for this name or from this address: try again in {seconds} s", seconds, "sign_in_throttled")

    async def sign_out(self, session: SignedIn) -> None:
        await self.run(self.sessions.close, session.token_hash)

    async def sign_out_everywhere(self, session: SignedIn) -> int:
        """End every session of the account, this one included; how many ended."""
        ended: int = await self.run(self.sessions.close_all, session.account.id)
        return ended

    async def page(self, session: SignedIn) -> tuple[list[Passkey], list[SessionInfo], str | None, Standing]:
        """What the account page shows: its passkeys, its sessions, its webhook's address, and
        the moderators' decisions in force on it, with their reasons."""
        keys = await self.run(self.keys.of_account, session.account.id)
        sessions = await self.run(self.sessions.listed, session.account.name)
        hook = await self.run(self.hooks.of, session.account.id)
        return keys, sessions, None if hook is None else hook[0], await self.standing(session.account.id)

    # ----------------------------------------------------------- moderation
    async def standing(self, account_id: int) -> Standing:
        """The moderators' decisions in force on the account."""
        found: Standing = await self.run(self.moderation.standing, account_id)
        return found

    async def may_play(self, account_id: int | None) -> None:
        """NotAllowed `suspended` (with the moderators' reason) for a suspended account; a guest may."""
        if account_id is not None:
            (await self.standing(account_id)).check_play()

    async def may_chat(self, account_id: int | None) -> None:
        """NotAllowed `silenced` (with the moderators' reason) for a silenced account; a guest may."""
        if account_id is not None:
            (await self.standing(account_id)).check_chat()

    # ------------------------------------------------------------ passwords
    async def confirm_password(self, session: SignedIn, password: str, address: str) -> None:
        """NotSignedIn `bad_credentials` unless `password` is the account's. Throttled as a
        sign-in is, but counted against the account rather than its name, so that strangers
        guessing at the name cannot stop its owner from changing the password."""
        mine = by_account(session.account.id)
        keys = {mine: FREE_PER_NAME, by_address(address): FREE_PER_ADDRESS}
        await self._attempt(keys)
        stored = await self.run(self.accounts.password_hash, session.account.id)
        if not await matches(stored, password):
            await self.run(self.throttle.failed, keys)
            raise bad_credentials("the current password is wrong")
        await self.run(self.throttle.succeeded, keys, mine)

    async def change_password(self, session: SignedIn, current: str, new: str, address: str) -> int:
        """A new password once the current one is confirmed; every other session of the
        account ends (this one stays): how many ended."""
        await self.confirm_password(session, current, address)
        check_password(new, session.account.name)
        await self.run(self.accounts.set_password, session.account.id, await hashed(new))
        # Guesses at the old password no longer count against the name: its owner has just proved it.
        owner = by_name(session.account.name)
        await self.run(self.throttle.succeeded, {owner: FREE_PER_NAME}, owner)
        ended: int = await self.run(self.sessions.close_all, session.account.id, session.token_hash)
        return ended

    async def delete(self, session: SignedIn, password: str, address: str) -> None:
        """Delete the account once its password confirms it (`remove_account`)."""
        await self.confirm_password(session, password, address)
        await remove_account(self.accounts, self.leaving, session.account.id)
        self.hooks.forget(session.account.id)

    async def guest_names_free(self, names: list[str]) -> None:
        """Conflict `name_taken` if a name a guest plays under is (or looks like) an account's:
        nobody sits at a table as somebody else (an account's own seat is under its own name)."""
        for name in names:
            if await self.run(self.accounts.name_is_taken, name, None):
                raise Conflict("name_taken", f"{name!r} is the name of an account, or looks like one: sign in as it, or play under another name")

    # ------------------------------------------------------------- webhooks
    async def set_webhook(self, account: Account, url: str) -> str:
        """Where the account's "your turn" goes, checked now (and again at each delivery);
        the new secret that signs each delivery. Invalid `bad_webhook` for an address the
        server will not call."""
        try:
            await checked_address(parse_hook_url(url), self.settings.webhook_private, self.resolve)
        except WebhookRefused as error:
            raise Invalid("bad_webhook", str(error)) from None
        secret = secrets.token_hex(24)
        await self.run(self.hooks.set, account.id, url, secret)
        return secret

    async def remove_webhook(self, account: Account) -> None:
        await self.run(self.hooks.set, account.id, None, None)

    async def test_webhook(self, account: Account) -> dict[str, Any]:
        """One delivery now (event "test"), and how it went. Conflict `no_webhook`; Invalid
        `bad_webhook` when the address is refused now."""
        hook = await self.run(self.hooks.of, account.id)
        if hook is None:
            raise Conflict("no_webhook", "this account has no webhook: set its address first")
        payload = {"event": "test", "account": account.name, "sent": time_text(self.stamp())}
        try:
            outcome = await deliver(hook[0], hook[1], payload, allow_private=self.settings.webhook_private, resolve=self.resolve)
        except WebhookRefused as error:
            raise Invalid("bad_webhook", str(error)) from None
        return {"ok": outcome.ok, "status": outcome.status, "reason": outcome.reason}

    # ------------------------------------------------------------- passkeys
    async def passkey_options(self, account: Account, origin: str) -> dict[str, Any]:
        """Options for navigator.credentials.create(), and the handle to send back with its answer."""
        existing = await self.run(self.keys.of_account, account.id)
        handle_of = await self.run(self.accounts.user_handle, account.id)
        options, challenge = passkeys.registration(origin, account, handle_of, existing)
        handle = await self.run(self.keys.put_challenge, challenge, account.id, passkeys.CHALLENGE_LASTS)
        return {"handle": handle, "options": options}

    async def add_passkey(self, account: Account, handle: str, credential: dict[str, Any], origin: str) -> str:
        """The new passkey's id, once its answer to the challenge `handle` names checks out;
        NotVerified `passkey_refused` if not."""
        challenge = await self.run(self.keys.take_challenge, handle, account.id)
        if challenge is None:
            raise passkeys.refused("the passkey's challenge is unknown, used or expired: start again")
        key = passkeys.registered(credential, challenge, origin, account.id)
        await self.run(self.keys.add, key)
        return key.credential_id

    async def remove_passkey(self, account: Account, credential_id: str) -> None:
        """NotVerified `passkey_refused` when the account has no such passkey."""
        if not await self.run(self.keys.remove, account.id, passkeys.checked_id(credential_id)):
            raise passkeys.refused("this account has no such passkey")

    async def passkey_sign_in_options(self, origin: str) -> tuple[dict[str, Any], str]:
        """Options for navigator.credentials.get() (any passkey of this site may answer) with
        its handle, and the secret that binds the challenge to the client that asked (its
        cookie): only that client can answer it."""
        options, challenge = passkeys.authentication(origin)
        client = secrets.token_urlsafe(24)
        handle = await self.run(self.keys.put_challenge, challenge, None, passkeys.CHALLENGE_LASTS, client)
        return {"handle": handle, "options": options}, client

    async def passkey_sign_in(
        self, handle: str, client: str, credential: dict[str, Any], origin: str, address: str, old: str | None,
    ) -> tuple[Account, str]:
        """The account and a new session's token, once a passkey's answer to the challenge
        `handle` and `client` name (the client that asked for it) checks out; NotSignedIn
        `bad_credentials` for an unknown passkey or challenge, NotVerified `passkey_refused`
        for an answer that does not verify; both count against the address as a failed sign-in."""
        keys = {by_address(address): FREE_PER_ADDRESS}  # a passkey's account is known only once it checks out
        await self._attempt(keys)
        challenge = await self.run(self.keys.take_challenge, handle, None, client) if client else None
        found = await self.run(self.keys.find, passkeys.credential_id(credential))
        if challenge is None or found is None:
            await self.run(self.throttle.failed, keys)
            raise bad_credentials("this passkey is not one of an account here, or its challenge expired: start again")
        key, account = found
        try:
            count = passkeys.authenticated(credential, challenge, origin, key)
        except NotVerified:
            await self.run(self.throttle.failed, keys)
            raise
        await self.run(self.throttle.succeeded, keys, None)
        await self.run(self.keys.used, key.credential_id, count)
        await self._not_closed(account)
        return account, await self._open(account, address, old)
