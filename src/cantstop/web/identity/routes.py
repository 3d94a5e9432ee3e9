"""The identity room's routes: the account API under /api/account and its three pages.

Every unsafe request here must come from this site (Origin) when the browser says where it
comes from: a page elsewhere can neither sign a visitor in to an account of its choosing nor
change theirs. Changes to a signed-in account also need the session's CSRF token (deps.py).
"""

from __future__ import annotations

import math
import secrets
from datetime import timedelta
from typing import Any

from fastapi import APIRouter, Depends, Request, Response

from cantstop.web.db.rows import now
from cantstop.web.db.tokens import hash_token
from cantstop.web.deps import client_address, get_service, get_settings, limit
from cantstop.web.errors import Conflict, Invalid, NotSignedIn, NotVerified, TooMany
from cantstop.web.identity import passkeys
from cantstop.web.identity.accounts import Account, SignedIn
from cantstop.web.identity.deps import (
    SESSION_COOKIE,
    CurrentSession,
    SignedInSession,
    accounts_of,
    check_origin,
    clear_session_cookies,
    csrf_token,
    db_of,
    session_limits,
    set_session_cookies,
    site_origin,
)
from cantstop.web.identity.passwords import check_password, hashed, matches, needs_rehash
from cantstop.web.identity.schemas import Confirm, Credentials, Hook, NewPassword, PasskeyAnswer
from cantstop.web.names import checked_name, name_key
from cantstop.web.routes.players import page
from cantstop.web.webhooks import WebhookRefused, checked_address, deliver, parse_hook_url

router = APIRouter(dependencies=[Depends(check_origin)])
api = APIRouter(prefix="/api/account", tags=["accounts"])
FREE_PER_NAME, FREE_PER_ADDRESS = 5, 20  # failed sign-ins before each further one waits
FORGET = timedelta(days=1)  # failures this old no longer count
WRONG = "the name or the password is wrong"  # for an unknown name as for a wrong password


def bad_credentials(message: str) -> NotSignedIn:
    """A wrong password, an unknown name or an unknown passkey: one code, so none is told apart."""
    return NotSignedIn("bad_credentials", message)


def account_json(account: Account) -> dict[str, Any]:
    return {"name": account.name, "created": account.created.isoformat()}


async def open_session(request: Request, response: Response, account: Account, old: str | None) -> dict[str, Any]:
    """Sign in: a new session (the old one, if any, ends: its id is never reused), and its cookies."""
    accounts, db = accounts_of(request), db_of(request)
    if old:
        await db(accounts.close_session, hash_token(old))
    token = await db(accounts.open_session, account.id, client_address(request), *session_limits(request))
    set_session_cookies(request, response, token)
    return {"account": account_json(account), "csrf": csrf_token(token)}


@api.get("")
async def me(request: Request, session: CurrentSession) -> dict[str, Any]:
    """Who this browser is signed in as (null for a guest), its sessions and passkeys, and the
    CSRF token that changes need (also in the cantstop_csrf cookie)."""
    if session is None:
        return {"account": None, "csrf": None}
    accounts, db = accounts_of(request), db_of(request)
    keys = await db(accounts.passkeys, session.account.id)
    sessions = await db(accounts.sessions, session.account.name)
    hook = await db(accounts.webhook, session.account.id)
    return {
        "account": account_json(session.account),
        "csrf": csrf_token(request.cookies[SESSION_COOKIE]),
        "webhook": None if hook is None else hook[0],
        "passkeys": [{"id": k.credential_id, "created": k.created.isoformat()} for k in keys],
        "sessions": [{"created": s.created.isoformat(), "seen": s.seen.isoformat(), "address": s.address,
                      "this": s.token_hash == session.token_hash} for s in sessions],
    }


@api.post("/sign-up", status_code=201)
async def sign_up(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
    """A new account under a name nobody has (nor one that looks like it), signed in at once."""
    limit(request, "create")
    name = checked_name(body.name)
    check_password(body.password, name)
    account = await db_of(request)(accounts_of(request).create, name, await hashed(body.password))
    return await open_session(request, response, account, request.cookies.get(SESSION_COOKIE))


def name_throttle(name: str) -> str:
    return f"name {name_key(name)}"


def throttle_keys(request: Request, name: str) -> dict[str, int]:
    """What failed sign-ins count against, each with its free tries: the name and the address."""
    return {name_throttle(name): FREE_PER_NAME, f"address {client_address(request)}": FREE_PER_ADDRESS}


async def failed(request: Request, keys: dict[str, int]) -> None:
    await db_of(request)(accounts_of(request).failed, keys, get_settings(request).sign_in_delay, FORGET)


async def attempt(request: Request, keys: dict[str, int]) -> None:
    """Count a sign-in attempt against `keys` (as failed until it succeeds); TooMany
    `sign_in_throttled` (nothing counted) while any of them must wait."""
    wait = await db_of(request)(accounts_of(request).attempt, keys, get_settings(request).sign_in_delay, FORGET)
    if wait > 0:
        seconds = math.ceil(wait)
        raise TooMany(f"too many failed sign-ins for this name or from this address: try again in {seconds} s", seconds, "sign_in_throttled")


@api.post("/sign-in")
async def sign_in(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
    """Sign in with name and password. A wrong password and an unknown name get one answer,
    after the same work; failures past a few wait longer and longer (429 with Retry-After)."""
    accounts, db = accounts_of(request), db_of(request)
    keys = throttle_keys(request, body.name)
    await attempt(request, keys)
    found = await db(accounts.find, body.name)
    stored = None if found is None else found[1]
    if not await matches(stored, body.password) or found is None or stored is None:
        await failed(request, keys)
        raise bad_credentials(WRONG)
    account = found[0]
    await db(accounts.succeeded, keys, name_throttle(body.name))
    if needs_rehash(stored):  # the parameters changed since it was hashed
        await db(accounts.set_password, account.id, await hashed(body.password))
    return await open_session(request, response, account, request.cookies.get(SESSION_COOKIE))


@api.post("/sign-out", status_code=204)
async def sign_out(request: Request, session: SignedInSession) -> Response:
    await db_of(request)(accounts_of(request).close_session, session.token_hash)
    response = Response(status_code=204)
    clear_session_cookies(response)
    return response


@api.post("/sign-out-everywhere")
async def sign_out_everywhere(request: Request, session: SignedInSession, response: Response) -> dict[str, int]:
    """End every session of the account, this one included."""
    ended: int = await db_of(request)(accounts_of(request).close_sessions, session.account.id)
    clear_session_cookies(response)
    return {"ended": ended}


async def confirm_password(request: Request, session: SignedIn, password: str) -> None:
    """NotSignedIn `bad_credentials` unless `password` is the account's. Throttled as a sign-in is, but
    counted against the account's sessions rather than its name, so that strangers
    guessing at the name cannot stop its owner from changing the password."""
    mine = f"account {session.account.id}"
    keys = {mine: FREE_PER_NAME, f"address {client_address(request)}": FREE_PER_ADDRESS}
    await attempt(request, keys)
    stored = await db_of(request)(accounts_of(request).password_hash, session.account.id)
    if not await matches(stored, password):
        await failed(request, keys)
        raise bad_credentials("the current password is wrong")
    await db_of(request)(accounts_of(request).succeeded, keys, mine)


@api.post("/password")
async def change_password(body: NewPassword, request: Request, session: SignedInSession) -> dict[str, int]:
    """A new password; every other session of the account ends (this one stays)."""
    await confirm_password(request, session, body.current)
    check_password(body.new, session.account.name)
    accounts, db = accounts_of(request), db_of(request)
    await db(accounts.set_password, session.account.id, await hashed(body.new))
    # Guesses at the old password no longer count against the name: its owner has just proved it.
    owner = name_throttle(session.account.name)
    await db(accounts.succeeded, {owner: FREE_PER_NAME}, owner)
    return {"ended": await db(accounts.close_sessions, session.account.id, session.token_hash)}


@api.post("/delete", status_code=204)
async def delete_account(body: Confirm, request: Request, session: SignedInSession) -> Response:
    """Delete the account (its password confirms it): its name, password, sessions and passkeys
    go; finished games stay, shown as a deleted player's; the name stays taken."""
    await confirm_password(request, session, body.password)
    renamed = await db_of(request)(accounts_of(request).delete, session.account.id)
    games = get_service(request).games
    for game_id in renamed:  # the games held here show the seats, and read the chat lines, as stored now
        game = games.held.get(game_id)
        if game is not None:
            async with game.lock:
                await games.refresh(game, seats=True)
    response = Response(status_code=204)
    clear_session_cookies(response)
    return response


@api.put("/webhook")
async def set_webhook(body: Hook, request: Request, session: SignedInSession) -> dict[str, str]:
    """Set the address "your turn" is POSTed to; the reply holds the secret that signs each
    delivery (shown this once: a new address gets a new one). The address is checked now,
    and again at each delivery: private and loopback ones are refused unless the operator
    allows them."""
    limit(request, "create")
    try:
        await checked_address(parse_hook_url(body.url.strip()), get_settings(request).webhook_private)
    except WebhookRefused as error:
        raise Invalid("bad_webhook", str(error)) from None
    secret = secrets.token_hex(24)
    await db_of(request)(accounts_of(request).set_webhook, session.account.id, body.url.strip(), secret)
    return {"url": body.url.strip(), "secret": secret}


@api.delete("/webhook", status_code=204)
async def remove_webhook(request: Request, session: SignedInSession) -> Response:
    await db_of(request)(accounts_of(request).set_webhook, session.account.id, None, None)
    return Response(status_code=204)


@api.post("/webhook/test")
async def test_webhook(request: Request, session: SignedInSession) -> dict[str, Any]:
    """Send the hook one delivery now (event "test") and say how it went."""
    limit(request, "create")
    hook = await db_of(request)(accounts_of(request).webhook, session.account.id)
    if hook is None:
        raise Conflict("no_webhook", "this account has no webhook: set its address first")
    payload = {"event": "test", "account": session.account.name, "sent": now().isoformat(timespec="seconds")}
    try:
        outcome = await deliver(hook[0], hook[1], payload, allow_private=get_settings(request).webhook_private)
    except WebhookRefused as error:
        raise Invalid("bad_webhook", str(error)) from None
    return {"ok": outcome.ok, "status": outcome.status, "reason": outcome.reason}


@api.post("/passkeys/options")
async def passkey_options(request: Request, session: SignedInSession) -> dict[str, Any]:
    """Options for navigator.credentials.create(), and the handle to send back with its answer."""
    accounts, db = accounts_of(request), db_of(request)
    existing = await db(accounts.passkeys, session.account.id)
    handle_of = await db(accounts.user_handle, session.account.id)
    options, challenge = passkeys.registration(site_origin(request), session.account, handle_of, existing)
    handle = await db(accounts.put_challenge, challenge, session.account.id, passkeys.CHALLENGE_LASTS)
    return {"handle": handle, "options": options}


@api.post("/passkeys", status_code=201)
async def add_passkey(body: PasskeyAnswer, request: Request, session: SignedInSession) -> dict[str, str]:
    accounts, db = accounts_of(request), db_of(request)
    challenge = await db(accounts.take_challenge, body.handle, session.account.id)
    if challenge is None:
        raise passkeys.refused("the passkey's challenge is unknown, used or expired: start again")
    key = passkeys.registered(body.credential, challenge, site_origin(request), session.account.id)
    await db(accounts.add_passkey, key)
    return {"id": key.credential_id}


@api.delete("/passkeys/{credential_id}", status_code=204)
async def remove_passkey(credential_id: str, request: Request, session: SignedInSession) -> Response:
    if not await db_of(request)(accounts_of(request).remove_passkey, session.account.id, credential_id[:1400]):
        raise passkeys.refused("this account has no such passkey")
    return Response(status_code=204)


@api.post("/passkey-sign-in/options")
async def passkey_sign_in_options(request: Request) -> dict[str, Any]:
    """Options for navigator.credentials.get(): any passkey of this site may answer."""
    options, challenge = passkeys.authentication(site_origin(request))
    handle = await db_of(request)(accounts_of(request).put_challenge, challenge, None, passkeys.CHALLENGE_LASTS)
    return {"handle": handle, "options": options}


@api.post("/passkey-sign-in")
async def passkey_sign_in(body: PasskeyAnswer, request: Request, response: Response) -> dict[str, Any]:
    """Sign in with a passkey's answer to the challenge its options carried."""
    accounts, db = accounts_of(request), db_of(request)
    keys = {f"address {client_address(request)}": FREE_PER_ADDRESS}  # a passkey's account is known only once it checks out
    await attempt(request, keys)
    challenge = await db(accounts.take_challenge, body.handle, None)
    found = await db(accounts.passkey, passkeys.credential_id(body.credential))
    if challenge is None or found is None:
        await failed(request, keys)
        raise bad_credentials("this passkey is not one of an account here, or its challenge expired: start again")
    key, account = found
    try:
        count = passkeys.authenticated(body.credential, challenge, site_origin(request), key)
    except NotVerified:
        await failed(request, keys)
        raise
    await db(accounts.succeeded, keys, None)
    await db(accounts.passkey_used, key.credential_id, count)
    return await open_session(request, response, account, request.cookies.get(SESSION_COOKIE))


for path, name in (("/sign-in", "sign-in"), ("/sign-up", "sign-up"), ("/account", "account")):
    router.add_api_route(path, page(name), include_in_schema=False)
router.include_router(api)
