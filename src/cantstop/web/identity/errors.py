"""The identity room's refusals, as domain errors: `web/http.py` gives each its HTTP status."""

from __future__ import annotations


class IdentityError(Exception):
    """A refusal of the identity room: a stable `code` and a message saying what is allowed."""

    code = "identity"

    def __init__(self, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after


class BadCredentials(IdentityError):
    """Wrong password, unknown name or unknown passkey: one answer, so none is told apart."""

    code = "bad_credentials"


class SignInThrottled(IdentityError):
    """Too many failed sign-ins for this name or from this address: wait `retry_after` s."""

    code = "sign_in_throttled"


class NameTaken(IdentityError):
    """The name, or one that looks like it, belongs to an account."""

    code = "name_taken"


class WeakPassword(IdentityError):
    code = "weak_password"


class NotSignedIn(IdentityError):
    """No session, or one that expired or was revoked."""

    code = "not_signed_in"


class CsrfRefused(IdentityError):
    """A cookie-authorised change without this session's token, or from another origin."""

    code = "csrf"


class PasskeyRefused(IdentityError):
    """A passkey ceremony that does not verify: stale or unknown challenge, wrong origin, bad signature."""

    code = "passkey_refused"


class NoAccount(IdentityError):
    """An administrator named an account that does not exist (or was deleted)."""

    code = "no_account"
