"""The server's knobs, in one immutable value read from the environment: `CANTSTOP_<FIELD>`
for each field (numbers, space-separated lists, 1/0 or yes/no for yes/no)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from limits import parse
from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

MAX_BODY = 8 * 1024  # bytes of an HTTP request body
MAX_MESSAGE = 5 * 1024  # bytes of one WebSocket message: a chat message of 1000 code points (4 bytes at most each) fits
MAX_DEPTH = 8  # nesting of JSON arrays and objects in a body or message (the API needs 3)

Words = Annotated[tuple[str, ...], NoDecode]  # written as space-separated words, not as JSON
PREFIX = "CANTSTOP_"
RATES = "a rate such as '20/minute' or '5 per 10 seconds', or 'off'"


class AnalyseAfter(StrEnum):
    """Which games are analysed as soon as they end (the others when first asked for)."""

    NONE = "none"
    RATED = "rated"
    ALL = "all"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=PREFIX, frozen=True, extra="ignore")

    bot_delay: float = 0.8  # seconds a bot waits before each move, so people can follow
    origins: Words = ()  # extra origins allowed to open WebSockets
    # Addresses of reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are believed;
    # from anyone else those headers are ignored (they are a client's to forge).
    trusted_proxies: Words = ()
    # Per client address, as the `limits` package writes them ("20/minute", "5 per 10 seconds"),
    # or "off". Actions count over HTTP and WebSocket alike.
    rate_create: str = "20/minute"  # new games and rematches
    rate_join: str = "60/minute"
    rate_action: str = "30/second"
    rate_chat: str = "10/minute"
    rate_analysis: str = "120/minute"  # a game's analysis, a roll map, the tutor's values
    # WebSocket messages (of any kind) one connection may send a second on average, and twice
    # that at once; past it the socket is closed (1008). 0 turns the cut-off off.
    socket_rate: float = 20.0
    # A game's move clock (30 s, 2 min; 12 h, 1 day, 3 days) lasts its seconds times this: tests make it tiny.
    clock_scale: Annotated[float, Field(gt=0)] = 1.0
    # Games that always end: the timeout that makes this many in a row for one seat forfeits
    # the game for it (0: never); a game with no clock running that nothing happened to and
    # no player had open for `abandon_after` seconds ends, abandoned; the sweeper looks for
    # both every `sweep_every` seconds.
    timeouts_to_forfeit: Annotated[int, Field(ge=0)] = 3
    abandon_after: Annotated[float, Field(gt=0)] = 7 * 86400.0
    sweep_every: Annotated[float, Field(gt=0)] = 60.0
    # Memory: past this many games held in this process, those with nothing happening to them
    # (nobody has one open here, no bot to move, no move clock due within two sweeps) are let
    # go of, the least recently used first (the others may exceed it); each sweep lets go of
    # every such game untouched since the last; a game let go of is read back from the
    # database when it is next opened or due.
    idle_games_kept: Annotated[int, Field(ge=0)] = 1000
    api_docs: bool = False  # /docs and /redoc (they load Swagger UI and ReDoc from a CDN)
    # Accounts (web/identity): a session ends after this many seconds unused, or this long
    # after sign-in whatever its use; cookies are Secure over https, and always with this on.
    session_idle: float = 7 * 86400.0
    session_longest: float = 30 * 86400.0
    secure_cookies: bool = False
    # Failed sign-ins: free tries per name and per address, then waits from this many
    # seconds, doubling with each failure (and forgotten after a day without one).
    sign_in_delay: float = 1.0
    # Where passkeys belong: the site's public origin ("https://example.org"); empty for the
    # origin each request arrives at (right unless a proxy rewrites the host).
    public_origin: str = ""
    # "Your turn" webhooks (an account's): POSTed only to public addresses unless this allows
    # private and loopback ones too (a server on a home network calling a bridge beside it).
    webhook_private: bool = False
    # Operations (web/ops): a request must finish its headers this many seconds after it
    # began (or the connection opened), and its body this many seconds after its headers.
    header_timeout: float = 10.0
    body_timeout: float = 15.0
    # Open connections (WebSockets included) one client address may hold; 0: no cap. A trusted
    # proxy's connections are not capped: they carry many clients.
    connections_per_address: int = 100
    # /metrics answers only a request bearing this token (Authorization: Bearer ...); empty: off.
    metrics_token: str = ""
    # On SIGTERM, seconds the requests in flight get to finish before they are cancelled.
    shutdown_grace: int = 5
    # Game analysis (web/review): processes of this server process that compute analyses,
    # roll maps and the tutor's values (0: none, and they are refused); started and warmed
    # up with the server (off: at the first request that needs them); games analysed as
    # they end, and at most how many a minute (the others when first asked for); seconds a
    # request waits for an analysis under way before it is answered 202 (ask again).
    analysis_workers: Annotated[int, Field(ge=0, le=64)] = 1
    analysis_warm: bool = True
    analyse_after: AnalyseAfter = AnalyseAfter.RATED
    analyse_after_per_minute: Annotated[int, Field(ge=1, le=10_000)] = 20
    analysis_wait: Annotated[float, Field(ge=0, le=60)] = 10.0
    # Challenges (web/challenges): how many open challenges one account may have sent at
    # once (each lasts a day unless answered or withdrawn).
    challenges_open: Annotated[int, Field(ge=1, le=1000)] = 10
    # Quick pairing (web/pairing): seconds between looks at the queue while a request waits;
    # seconds a waiting request lasts after its holder last looked at it (a page looks every
    # few seconds, so a closed page's request ends); seconds waited before the bot is offered.
    pairing_every: Annotated[float, Field(gt=0)] = 2.0
    pairing_expire: Annotated[float, Field(gt=0)] = 60.0
    pairing_bot_after: Annotated[float, Field(ge=0)] = 60.0

    @field_validator("origins", "trusted_proxies", mode="before")
    @classmethod
    def _words(cls, value: object) -> object:
        return tuple(value.split()) if isinstance(value, str) else value

    @field_validator("rate_create", "rate_join", "rate_action", "rate_chat", "rate_analysis", "metrics_token", mode="before")
    @classmethod
    def _trimmed(cls, value: object) -> object:
        return value.strip() if isinstance(value, str) else value

    @field_validator("rate_create", "rate_join", "rate_action", "rate_chat")
    @classmethod
    def _rate(cls, value: str) -> str:
        if value.lower() != "off":
            try:
                parse(value)
            except ValueError:
                raise ValueError(f"give {RATES}") from None
        return value


# What a value of a setting may be, by the kind of error pydantic found in it.
ALLOWED = {
    "bool_parsing": "give yes or no: 1/0, yes/no, true/false or on/off",
    "float_parsing": "give a number",
    "int_parsing": "give a whole number",
    "int_from_float": "give a whole number",
    "greater_than": "give a number above {gt:g}",
    "greater_than_equal": "give a number of at least {ge:g}",
}


def refusal(error: ValidationError) -> str:
    """One line for settings that do not read: each variable, the value given and what it may be."""
    said = []
    for problem in error.errors():
        variable = PREFIX + ".".join(map(str, problem["loc"])).upper()
        allowed = ALLOWED.get(problem["type"])
        why = allowed.format(**problem.get("ctx", {})) if allowed else problem["msg"].removeprefix("Value error, ")
        said.append(f"{variable}={problem['input']!r}: {why}")
    return "bad setting " + "; ".join(said)
