"""What the server's services refuse, as domain errors: each names what was wrong and what
is allowed. `code` is the refusal's name for programs; `details` go beside the message.

The services raise these (and the table's own errors, `cantstop.table.errors`); which
HTTP status and JSON body each becomes is decided in one place, `web.http.refusal`.
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
    """No such game or player."""


class NotSignedIn(Refused):
    """The request needs credentials it did not bring (a bearer token)."""


class NotAllowed(Refused):
    """The client may not do this: it holds no seat, its token holds none, spectators are muted."""


class Conflict(Refused):
    """Not now: the game is not in a state that allows it (not started, not over, seat taken)."""


class Invalid(Refused):
    """What was sent cannot be used: an unknown variant or bot, a bad name, seat or message."""


class TooMany(Refused):
    """Past a rate limit; `retry_after` is how many seconds until the next one is counted."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__("too_many", message, retry_after=retry_after)
        self.retry_after = retry_after
