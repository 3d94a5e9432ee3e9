"""What the server's services refuse, as domain errors: each names what was wrong and what
is allowed. `code` is the refusal's name for programs; `details` go beside the message.

One class per kind of answer, not per refusal: the refusals of a kind differ only by their
code and message, so they are data (`Conflict("name_taken", ...)`), and a caller that needs
to tell one apart reads its `code`. The services raise these (and the table's own errors,
`cantstop.table.errors`); which HTTP status and JSON body each becomes is decided in one
place, `web.http.refusal`.
"""

from __future__ import annotations

from typing import Any

from cantstop.core.errors import CantStopError


class Refused(CantStopError):
    """A request the server will not carry out; nothing was changed."""

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code, self.message, self.details = code, message, details


class NotFound(Refused):
    """No such game, player, account or legacy entry."""


class NotSignedIn(Refused):
    """Credentials missing or wrong: no session, a wrong password or name (one answer for
    both), a bearer token that is not the one asked for."""


class NotAllowed(Refused):
    """The client may not do this: it holds no seat, spectators are muted, the request
    comes from another site or without its CSRF token, fair play hides it."""


class Conflict(Refused):
    """Not now: the game is not in a state that allows it (not started, not over, seat taken),
    or the name is taken."""


class Invalid(Refused):
    """What was sent cannot be used: an unknown variant or bot, a bad name, seat, message or password."""


class NotVerified(Refused):
    """A proof that does not check out: a passkey's answer, a challenge used or expired."""


class NotOffered(Refused):
    """This server does not do this at all: a part it was set up without (game analysis with
    no analysis processes, or without the `fast` extra)."""


class Unavailable(Refused):
    """Not just now, through no fault of the request: a part of the server failed under it
    (and was restarted); `retry_after` is how many seconds to wait before trying again."""

    def __init__(self, code: str, message: str, retry_after: int) -> None:
        super().__init__(code, message, retry_after=retry_after)
        self.retry_after = retry_after


class TooMany(Refused):
    """Past a rate limit or a sign-in throttle; `retry_after` is how many seconds until the
    next one is counted."""

    def __init__(self, message: str, retry_after: int, code: str = "too_many") -> None:
        super().__init__(code, message, retry_after=retry_after)
        self.retry_after = retry_after
