"""Webhooks: a signed POST of JSON to an address a player gave, when it is their turn.

The address is a stranger's to choose, so the server treats it as hostile: http or https
only, no user name or password in it, and a host whose every address is public, unless the
operator allows private ones (a server on a home network calling a phone bridge, say). The
check is made again at each delivery, against what the name resolves to *then*, and the
connection goes to the very address that was checked, so a name that resolves to a public
address for the check and to 127.0.0.1 for the connection (DNS rebinding) gets nowhere.
Redirects are not followed: a 3xx is a failed delivery, never a second request.

Each delivery is signed with the hook's secret: `X-Cantstop-Signature` is
`sha256=` + HMAC-SHA256 over `timestamp.body`, the timestamp in `X-Cantstop-Timestamp`,
so a receiver can check who sent it and refuse a replay (see `verify`).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import ipaddress
import json
import logging
import socket
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from cantstop.core.errors import CantStopError

log = logging.getLogger("cantstop.web.webhooks")


def time_text(at: datetime) -> str:
    """A time as every payload and page reads it: ISO 8601 in UTC, to the second, ending in Z.
    A time without a zone is a stored one, which is UTC."""
    zoned = at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)
    return zoned.isoformat(timespec="seconds").replace("+00:00", "Z")

MAX_URL = 2000  # characters of a hook's address
TIMEOUT = 5.0  # seconds for one delivery: connect, send, read the answer
RETRIES = (1.0, 5.0)  # seconds to wait before the second and third tries
QUEUE = 1000  # deliveries waiting at most; past it new ones are dropped and counted
IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Awaitable[list[str]]]


class WebhookRefused(CantStopError):
    """An address the server will not call: the message says why and what is allowed."""


@dataclass(frozen=True)
class HookAddress:
    """A checked hook address, split where delivery needs it."""

    url: str
    scheme: str
    host: str  # as written, without brackets, lower case
    port: int


def parse_hook_url(text: str) -> HookAddress:
    """The address if its form is acceptable; `WebhookRefused` names what is wrong."""
    allowed = "an http:// or https:// address with a host name, such as https://example.org/hook"
    if len(text) > MAX_URL:
        raise WebhookRefused(f"the address has {len(text)} characters; at most {MAX_URL} are allowed")
    if any(ord(c) < 33 or ord(c) == 127 for c in text):
        raise WebhookRefused(f"the address contains spaces or control characters; give {allowed}")
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as error:
        raise WebhookRefused(f"the address does not parse ({error}); give {allowed}") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise WebhookRefused(f"the scheme {parts.scheme or '(none)'!r} is not allowed; give {allowed}")
    if parts.username is not None or parts.password is not None:
        raise WebhookRefused("the address carries a user name or password; put a secret in the path instead")
    if parts.fragment:
        raise WebhookRefused("the address has a #fragment, which is never sent; leave it out")
    host = (parts.hostname or "").lower()
    if not host:
        raise WebhookRefused(f"the address has no host; give {allowed}")
    default = 443 if scheme == "https" else 80
    return HookAddress(text, scheme, host, port if port is not None else default)


# IPv6 ranges whose addresses carry an IPv4 address inside, which a router or the host may
# reach instead: [::127.0.0.1], [64:ff9b::7f00:1] or [2002:7f00:1::] can be 127.0.0.1 in
# the end. Python calls most of them global, so each is refused by name.
EMBEDDINGS = {
    "IPv4-mapped": ipaddress.IPv6Network("::ffff:0:0/96"),
    "IPv4-compatible": ipaddress.IPv6Network("::/96"),
    "IPv4-translated (SIIT)": ipaddress.IPv6Network("::ffff:0:0:0/96"),
    "NAT64": ipaddress.IPv6Network("64:ff9b::/96"),
    "local NAT64": ipaddress.IPv6Network("64:ff9b:1::/48"),
    "6to4": ipaddress.IPv6Network("2002::/16"),
    "Teredo": ipaddress.IPv6Network("2001::/32"),
}


def embedding(address: IpAddress) -> str | None:
    """The name of the IPv6 form `address` embeds an IPv4 address in, or None."""
    if isinstance(address, ipaddress.IPv4Address):
        return None
    return next((name for name, network in EMBEDDINGS.items() if address in network), None)


def refusal(address: IpAddress, allow_private: bool) -> str | None:
    """Why the server must not connect to `address`, or None when it may."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped  # ::ffff:127.0.0.1 is 127.0.0.1
    if address.is_unspecified or address.is_multicast:
        return f"{address} is not an address a server can be reached at"
    if allow_private:
        return None
    form = embedding(address)
    if form is not None and not address.is_loopback:
        return (f"{address} is an IPv6 address of the {form} form, which carries an IPv4 address that may be private; "
                "give a plain public address (the operator can allow private ones)")
    if address.is_global:
        return None
    return (
        f"{address} is a private, loopback or reserved address; only public addresses are "
        "allowed (the operator can allow private ones)"
    )


async def system_resolver(host: str, port: int) -> list[str]:
    """Every address `host` resolves to now, as text."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return sorted({str(info[4][0]) for info in infos})


async def checked_address(hook: HookAddress, allow_private: bool, resolve: Resolver = system_resolver) -> IpAddress:
    """The address to connect to: every address the host has now must be allowed."""
    try:
        found = [ipaddress.ip_address(hook.host)]
        named = False
    except ValueError:
        named = True
        try:
            found = [ipaddress.ip_address(a.split("%")[0]) for a in await resolve(hook.host, hook.port)]
        except (OSError, UnicodeError) as error:
            raise WebhookRefused(f"the host {hook.host!r} does not resolve ({error})") from None
    if not found:
        raise WebhookRefused(f"the host {hook.host!r} has no address")
    for address in found:
        why = refusal(address, allow_private)
        if why is not None:  # said of the address given, or of what the name given resolves to
            raise WebhookRefused(f"{hook.host} resolves to {address}: {why}" if named else why)
    return found[0]


def sign(secret: str, timestamp: int, body: bytes) -> str:
    mac = hmac.new(secret.encode(), str(timestamp).encode() + b"." + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def verify(secret: str, headers: Mapping[str, str], body: bytes, now: float, tolerance: float = 300.0) -> bool:
    """What a receiver does: the signature matches and the timestamp is recent."""
    try:
        timestamp = int(headers["x-cantstop-timestamp"])
    except (KeyError, ValueError):
        return False
    fresh = abs(now - timestamp) <= tolerance
    return fresh and hmac.compare_digest(sign(secret, timestamp, body), headers.get("x-cantstop-signature", ""))


@dataclass(frozen=True)
class Delivery:
    """How one delivery went: `ok`, the HTTP status when there was one, and a reason."""

    ok: bool
    status: int | None
    reason: str


async def deliver(
    url: str,
    secret: str,
    payload: Mapping[str, Any],
    *,
    allow_private: bool,
    resolve: Resolver = system_resolver,
    timeout: float = TIMEOUT,
) -> Delivery:
    """POST `payload` once; `WebhookRefused` when the address is not allowed (nothing sent)."""
    hook = parse_hook_url(url)
    address = await checked_address(hook, allow_private, resolve)
    body = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()
    timestamp = int(time.time())
    pinned = f"[{address}]" if address.version == 6 else str(address)
    parts = urlsplit(hook.url)
    target = urlunsplit((hook.scheme, f"{pinned}:{hook.port}", parts.path or "/", parts.query, ""))
    default = 443 if hook.scheme == "https" else 80
    headers = {
        "Host": hook.host if hook.port == default else f"{hook.host}:{hook.port}",
        "Content-Type": "application/json",
        "User-Agent": "cantstop-webhook/1",
        "X-Cantstop-Timestamp": str(timestamp),
        "X-Cantstop-Signature": sign(secret, timestamp, body),
    }
    # TLS is checked against the name the player gave, though the connection goes to the address.
    extensions = {"sni_hostname": hook.host} if hook.scheme == "https" else {}
    try:
        async with httpx.AsyncClient(timeout=timeout, follow_redirects=False, trust_env=False) as client:
            answer = await client.post(target, content=body, headers=headers, extensions=extensions)
    except httpx.HTTPError as error:
        return Delivery(False, None, f"{type(error).__name__}: {error}" if str(error) else type(error).__name__)
    if 200 <= answer.status_code < 300:
        return Delivery(True, answer.status_code, "delivered")
    return Delivery(False, answer.status_code, f"the receiver answered {answer.status_code}")


@dataclass(frozen=True)
class Job:
    url: str
    secret: str
    payload: Mapping[str, Any]


class WebhookSender:
    """Deliveries off the game's path: a bounded queue and one worker that retries twice.

    A game never waits for a stranger's server; when the queue is full a delivery is
    dropped and counted rather than held in memory without bound.
    """

    def __init__(self, *, allow_private: bool, resolve: Resolver = system_resolver, retries: tuple[float, ...] = RETRIES) -> None:
        self.allow_private, self.resolve, self.retries = allow_private, resolve, retries
        self.queue: asyncio.Queue[Job] = asyncio.Queue(QUEUE)
        self.delivered = self.failed = self.dropped = self.refused = 0
        self._worker: asyncio.Task[None] | None = None

    def submit(self, url: str, secret: str, payload: Mapping[str, Any]) -> bool:
        """Queue one delivery; False when the queue was full and it was dropped."""
        if self._worker is None:
            self._worker = asyncio.get_running_loop().create_task(self._run())
        try:
            self.queue.put_nowait(Job(url, secret, payload))
        except asyncio.QueueFull:
            self.dropped += 1
            return False
        return True

    async def drain(self) -> None:
        """Wait until every queued delivery has been tried (for shutdown and tests)."""
        await self.queue.join()

    async def close(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            await asyncio.gather(self._worker, return_exceptions=True)
            self._worker = None

    async def _run(self) -> None:
        while True:
            job = await self.queue.get()
            try:
                await self._attempt(job)
            finally:
                self.queue.task_done()

    async def _attempt(self, job: Job) -> None:
        for pause in (0.0, *self.retries):
            await asyncio.sleep(pause)
            try:
                outcome = await deliver(job.url, job.secret, job.payload, allow_private=self.allow_private, resolve=self.resolve)
            except WebhookRefused as error:
                self.refused += 1
                log.warning("webhook refused: %s", error)
                return
            if outcome.ok:
                self.delivered += 1
                return
            log.info("webhook delivery failed: %s", outcome.reason)
            if outcome.status is not None and outcome.status < 500:
                break  # the receiver refused it: asking again would not change its mind
        self.failed += 1
