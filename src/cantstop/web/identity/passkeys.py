"""Passkeys (WebAuthn) through the `webauthn` package: the options a browser is handed, and
the checks of what its authenticator answers. A passkey is discoverable (kept on the
device with the account's user handle), so signing in with one needs no name typed."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from webauthn import (
    base64url_to_bytes,
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import bytes_to_base64url, parse_authentication_credential_json
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from cantstop.web.db.rows import now
from cantstop.web.errors import NotVerified
from cantstop.web.identity.accounts import Account
from cantstop.web.identity.passkey_store import Passkey

RP_NAME = "Can't Stop"
CHALLENGE_LASTS = timedelta(minutes=5)
TIMEOUT_MS = 120_000
MAX_ID = 1400  # characters of a credential id storage keeps (passkeys.credential_id)
CREDENTIAL_ID = re.compile(f"[A-Za-z0-9_-]{{1,{MAX_ID}}}")


def refused(message: str) -> NotVerified:
    """A passkey ceremony that does not verify: stale or unknown challenge, wrong origin, bad signature."""
    return NotVerified("passkey_refused", message)


def rp_id(origin: str) -> str:
    """The relying party a passkey is bound to: the site's host name (no port, no scheme)."""
    return urlsplit(origin).hostname or ""


def registration(origin: str, account: Account, user_handle: bytes, existing: list[Passkey]) -> tuple[dict[str, Any], str]:
    """What navigator.credentials.create() needs (as JSON), and its challenge (base64url)."""
    options = generate_registration_options(
        rp_id=rp_id(origin), rp_name=RP_NAME, user_name=account.name, user_id=user_handle, user_display_name=account.name,
        timeout=TIMEOUT_MS,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED, user_verification=UserVerificationRequirement.PREFERRED
        ),
        exclude_credentials=[PublicKeyCredentialDescriptor(id=_bytes(k.credential_id)) for k in existing],
    )
    return json.loads(options_to_json(options)), bytes_to_base64url(options.challenge)


def registered(credential: dict[str, Any], challenge: str, origin: str, account_id: int) -> Passkey:
    """The passkey an authenticator made, once its answer checks out; NotVerified if not."""
    try:
        verified = verify_registration_response(
            credential=credential, expected_challenge=_bytes(challenge), expected_rp_id=rp_id(origin), expected_origin=origin
        )
    except (WebAuthnException, ValueError, KeyError, TypeError) as error:
        raise refused(f"the passkey was not registered: {error}") from None
    return Passkey(bytes_to_base64url(verified.credential_id), account_id, verified.credential_public_key, verified.sign_count, now())


def authentication(origin: str) -> tuple[dict[str, Any], str]:
    """What navigator.credentials.get() needs (any passkey of this site), and its challenge."""
    options = generate_authentication_options(
        rp_id=rp_id(origin), timeout=TIMEOUT_MS, user_verification=UserVerificationRequirement.PREFERRED
    )
    return json.loads(options_to_json(options)), bytes_to_base64url(options.challenge)


def checked_id(text: str) -> str:
    """A passkey's id as sent; NotVerified `passkey_refused` unless it is one (base64url, of a
    length storage holds): no NUL or other stray character ever reaches the database."""
    if not CREDENTIAL_ID.fullmatch(text):
        raise refused(f"a passkey's id is 1..{MAX_ID} base64url characters (A-Z, a-z, 0-9, - and _)")
    return text


def credential_id(credential: dict[str, Any]) -> str:
    """The id of the passkey an answer says it comes from (checked only by `authenticated`)."""
    try:
        found = str(parse_authentication_credential_json(json.dumps(credential)).id)
    except (WebAuthnException, ValueError, KeyError, TypeError) as error:
        raise refused(f"not a passkey's answer: {error}") from None
    return checked_id(found)


def authenticated(credential: dict[str, Any], challenge: str, origin: str, key: Passkey) -> int:
    """The passkey's new signature count, once its answer to `challenge` checks out."""
    try:
        verified = verify_authentication_response(
            credential=credential, expected_challenge=_bytes(challenge), expected_rp_id=rp_id(origin), expected_origin=origin,
            credential_public_key=key.public_key, credential_current_sign_count=key.sign_count,
        )
    except (WebAuthnException, ValueError, KeyError, TypeError) as error:
        raise refused(f"the passkey did not sign in: {error}") from None
    return int(verified.new_sign_count)


def _bytes(text: str) -> bytes:
    try:
        return base64url_to_bytes(text)
    except ValueError:
        raise refused("an id or challenge that is not base64url") from None
