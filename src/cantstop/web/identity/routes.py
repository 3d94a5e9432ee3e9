"""The identity room's routes: the account API under /api/account and its three pages. Each
route reads the request (cookies, address, origin), asks the account service, and writes
the answer (cookies too); the service does the work.

Every unsafe request here must come from this site (Origin) when the browser says where it
comes from: a page elsewhere can neither sign a visitor in to an account of its choosing nor
change theirs. Changes to a signed-in account also need the session's CSRF token (deps.py).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request, Response

from cantstop.web.deps import client_address, limit
from cantstop.web.identity.accounts import Account
from cantstop.web.identity.deps import (
    CEREMONY_COOKIE,
    SESSION_COOKIE,
    AccountsDep,
    CurrentSession,
    SignedInSession,
    check_origin,
    clear_ceremony_cookie,
    clear_session_cookies,
    csrf_token,
    set_ceremony_cookie,
    set_session_cookies,
    site_origin,
)
from cantstop.web.identity.schemas import Confirm, Credentials, Hook, NewPassword, PasskeyAnswer
from cantstop.web.pages import page

router = APIRouter(dependencies=[Depends(check_origin)])
api = APIRouter(prefix="/api/account", tags=["accounts"])


def account_json(account: Account) -> dict[str, Any]:
    return {"name": account.name, "created": account.created.isoformat()}


def signed_in(request: Request, response: Response, account: Account, token: str) -> dict[str, Any]:
    """The new session's cookies, and the reply that names the account and its CSRF token."""
    set_session_cookies(request, response, token)
    return {"account": account_json(account), "csrf": csrf_token(token)}


@api.get("")
async def me(request: Request, session: CurrentSession, accounts: AccountsDep) -> dict[str, Any]:
    """Who this browser is signed in as (null for a guest), its sessions and passkeys, the
    moderators' decisions in force on it (`standing`: silenced, suspended, with reasons), and
    the CSRF token that changes need (also in the cantstop_csrf cookie)."""
    if session is None:
        return {"account": None, "csrf": None}
    keys, sessions, hook, standing = await accounts.page(session)
    return {
        "account": account_json(session.account),
        "csrf": csrf_token(request.cookies[SESSION_COOKIE]),
        "webhook": hook,
        "standing": standing.json(),
        "passkeys": [{"id": k.credential_id, "created": k.created.isoformat()} for k in keys],
        "sessions": [{"created": s.created.isoformat(), "seen": s.seen.isoformat(), "address": s.address,
                      "this": s.token_hash == session.token_hash} for s in sessions],
    }


@api.post("/sign-up", status_code=201)
async def sign_up(body: Credentials, request: Request, response: Response, accounts: AccountsDep) -> dict[str, Any]:
    """A new account under a name nobody has (nor one that looks like it), signed in at once."""
    limit(request, "create")
    account, token = await accounts.sign_up(body.name, body.password, client_address(request), request.cookies.get(SESSION_COOKIE))
    return signed_in(request, response, account, token)


@api.post("/sign-in")
async def sign_in(body: Credentials, request: Request, response: Response, accounts: AccountsDep) -> dict[str, Any]:
    """Sign in with name and password. A wrong password and an unknown name get one answer,
    after the same work; failures past a few wait longer and longer (429 with Retry-After)."""
    account, token = await accounts.sign_in(body.name, body.password, client_address(request), request.cookies.get(SESSION_COOKIE))
    return signed_in(request, response, account, token)


@api.post("/sign-out", status_code=204)
async def sign_out(session: SignedInSession, accounts: AccountsDep) -> Response:
    await accounts.sign_out(session)
    response = Response(status_code=204)
    clear_session_cookies(response)
    return response


@api.post("/sign-out-everywhere")
async def sign_out_everywhere(session: SignedInSession, response: Response, accounts: AccountsDep) -> dict[str, int]:
    """End every session of the account, this one included."""
    ended = await accounts.sign_out_everywhere(session)
    clear_session_cookies(response)
    return {"ended": ended}


@api.post("/password")
async def change_password(body: NewPassword, request: Request, session: SignedInSession, accounts: AccountsDep) -> dict[str, int]:
    """A new password; every other session of the account ends (this one stays)."""
    return {"ended": await accounts.change_password(session, body.current, body.new, client_address(request))}


@api.post("/delete", status_code=204)
async def delete_account(body: Confirm, request: Request, session: SignedInSession, accounts: AccountsDep) -> Response:
    """Delete the account (its password confirms it): its name, password, sessions and passkeys
    go; finished games stay, shown as a deleted player's; the name stays taken."""
    await accounts.delete(session, body.password, client_address(request))
    response = Response(status_code=204)
    clear_session_cookies(response)
    return response


@api.put("/webhook")
async def set_webhook(body: Hook, request: Request, session: SignedInSession, accounts: AccountsDep) -> dict[str, str]:
    """Set the address "your turn" is POSTed to; the reply holds the secret that signs each
    delivery (shown this once: a new address gets a new one). The address is checked now,
    and again at each delivery: private and loopback ones are refused unless the operator
    allows them."""
    limit(request, "create")
    url = body.url.strip()
    return {"url": url, "secret": await accounts.set_webhook(session.account, url)}


@api.delete("/webhook", status_code=204)
async def remove_webhook(session: SignedInSession, accounts: AccountsDep) -> Response:
    await accounts.remove_webhook(session.account)
    return Response(status_code=204)


@api.post("/webhook/test")
async def test_webhook(request: Request, session: SignedInSession, accounts: AccountsDep) -> dict[str, Any]:
    """Send the hook one delivery now (event "test") and say how it went."""
    limit(request, "create")
    return await accounts.test_webhook(session.account)


@api.post("/passkeys/options")
async def passkey_options(request: Request, session: SignedInSession, accounts: AccountsDep) -> dict[str, Any]:
    """Options for navigator.credentials.create(), and the handle to send back with its answer."""
    return await accounts.passkey_options(session.account, site_origin(request))


@api.post("/passkeys", status_code=201)
async def add_passkey(body: PasskeyAnswer, request: Request, session: SignedInSession, accounts: AccountsDep) -> dict[str, str]:
    return {"id": await accounts.add_passkey(session.account, body.handle, body.credential, site_origin(request))}


@api.delete("/passkeys/{credential_id}", status_code=204)
async def remove_passkey(credential_id: str, session: SignedInSession, accounts: AccountsDep) -> Response:
    await accounts.remove_passkey(session.account, credential_id)
    return Response(status_code=204)


@api.post("/passkey-sign-in/options")
async def passkey_sign_in_options(request: Request, response: Response, accounts: AccountsDep) -> dict[str, Any]:
    """Options for navigator.credentials.get(): any passkey of this site may answer. The
    challenge is bound to this browser by a cookie: only it can send the answer."""
    options, client = await accounts.passkey_sign_in_options(site_origin(request))
    set_ceremony_cookie(request, response, client)
    return options


@api.post("/passkey-sign-in")
async def passkey_sign_in(body: PasskeyAnswer, request: Request, response: Response, accounts: AccountsDep) -> dict[str, Any]:
    """Sign in with a passkey's answer to the challenge its options carried, from the browser they went to."""
    client = (request.cookies.get(CEREMONY_COOKIE) or "")[:100]
    account, token = await accounts.passkey_sign_in(
        body.handle, client, body.credential, site_origin(request), client_address(request), request.cookies.get(SESSION_COOKIE)
    )
    clear_ceremony_cookie(response)
    return signed_in(request, response, account, token)


for path, name in (("/sign-in", "sign-in"), ("/sign-up", "sign-up"), ("/account", "account")):
    router.add_api_route(path, page(name), include_in_schema=False)
router.include_router(api)
