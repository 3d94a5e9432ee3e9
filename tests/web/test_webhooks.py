"""Webhooks as a hostile player would set them: every address that could reach the server's
own network is refused before anything is sent, and real deliveries go to a local receiver."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import re
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cantstop.web.webhooks import (
    EMBEDDINGS,
    WebhookRefused,
    WebhookSender,
    checked_address,
    deliver,
    parse_hook_url,
    refusal,
    sign,
    verify,
)

SECRET = "s3cret-for-tests"


class Receiver:
    """A local HTTP server that keeps what it is sent and answers with `status`."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, dict[str, str], bytes]] = []
        self.status = 204
        self.location = ""
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                receiver.seen.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(receiver.status)
                if receiver.location:
                    self.send_header("Location", receiver.location)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path: str = "/hook", host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.server.shutdown()
    r.server.server_close()


def resolver(*addresses: str) -> Any:
    async def resolve(host: str, port: int) -> list[str]:
        return list(addresses)

    return resolve


# --------------------------------------------------------------------------- the form
@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("ftp://example.org/x", "scheme 'ftp'"),
        ("file:///etc/passwd", "scheme 'file'"),
        ("gopher://example.org", "scheme 'gopher'"),
        ("example.org/hook", "scheme"),
        ("https://user:pw@example.org/", "user name or password"),
        ("https://example.org/#frag", "fragment"),
        ("https:///nohost", "no host"),
        ("https://exa mple.org/", "spaces or control"),
        ("https://example.org:99999/", "does not parse"),
        ("https://example.org/" + "a" * 2000, "at most 2000"),
    ],
)
def test_a_malformed_address_is_refused_with_what_is_allowed(url: str, words: str) -> None:
    with pytest.raises(WebhookRefused, match=words):
        parse_hook_url(url)


def test_the_default_port_follows_the_scheme() -> None:
    assert parse_hook_url("https://Example.ORG/a?b=1").port == 443
    assert parse_hook_url("http://example.org/").port == 80
    assert parse_hook_url("https://example.org:8443/").host == "example.org"


# --------------------------------------------------------------------------- the address
@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1", "127.8.9.10", "10.0.0.5", "172.16.3.4", "192.168.1.1", "169.254.169.254",
        "100.64.0.1", "0.0.0.0", "::1", "::", "fe80::1", "fc00::1", "::ffff:127.0.0.1",
        "::ffff:10.0.0.1", "224.0.0.1", "ff02::1", "198.18.0.1", "240.0.0.1",
    ],
)
def test_no_private_loopback_or_reserved_address_is_called(address: str) -> None:
    assert refusal(ipaddress.ip_address(address), allow_private=False) is not None


@pytest.mark.parametrize("address", ["93.184.215.14", "1.1.1.1", "2606:4700:4700::1111"])
def test_public_addresses_are_allowed(address: str) -> None:
    assert refusal(ipaddress.ip_address(address), allow_private=False) is None


def test_the_operator_may_allow_private_addresses_but_never_unspecified_or_multicast() -> None:
    assert refusal(ipaddress.ip_address("10.1.2.3"), allow_private=True) is None
    assert refusal(ipaddress.ip_address("127.0.0.1"), allow_private=True) is None
    assert refusal(ipaddress.ip_address("0.0.0.0"), allow_private=True) is not None
    assert refusal(ipaddress.ip_address("224.0.0.1"), allow_private=True) is not None


EMBEDDED = {  # each an IPv6 form that carries 127.0.0.1, 10.0.0.1 or 169.254.169.254 inside
    "[::127.0.0.1]": "IPv4-compatible", "[::a00:1]": "IPv4-compatible",
    "[64:ff9b::7f00:1]": "NAT64", "[64:ff9b::a9fe:a9fe]": "NAT64", "[64:ff9b:1::a00:1]": "local NAT64",
    "[2002:7f00:1::]": "6to4", "[2002:a9fe:a9fe::1]": "6to4",
    "[2001:0:4136:e378:8000:63bf:80ff:fffe]": "Teredo",  # its client is ~0x80fffffe: 127.0.0.1
    "[::ffff:0:7f00:1]": "IPv4-translated (SIIT)",
}


@given(st.ip_addresses())
def test_an_address_is_allowed_only_when_global_unicast_and_no_embedding_of_ipv4(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> None:
    plain = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped else address
    allowed = refusal(address, allow_private=False) is None
    embeds = isinstance(plain, ipaddress.IPv6Address) and any(plain in network for network in EMBEDDINGS.values())
    assert allowed == (plain.is_global and not plain.is_multicast and not plain.is_unspecified and not embeds)


@pytest.mark.parametrize(("host", "form"), EMBEDDED.items())
def test_every_ipv6_form_that_embeds_an_ipv4_address_is_refused(host: str, form: str) -> None:
    hook = parse_hook_url(f"https://{host}/hook")
    with pytest.raises(WebhookRefused, match=re.escape(f"of the {form} form")):
        asyncio.run(checked_address(hook, False, resolver()))
    with pytest.raises(WebhookRefused, match=re.escape(f"of the {form} form")):  # and a name that resolves to it
        asyncio.run(checked_address(parse_hook_url("https://hooks.example/"), False, resolver(host.strip("[]"))))


def test_a_name_that_resolves_to_an_embedding_by_the_delivery_is_not_called(receiver: Receiver) -> None:
    answers = iter([["93.184.215.14"], ["64:ff9b::7f00:1"]])

    async def rebinding(host: str, port: int) -> list[str]:
        return next(answers)

    hook = parse_hook_url(receiver.url(host="rebind.example"))
    asyncio.run(checked_address(hook, False, rebinding))  # public when set
    with pytest.raises(WebhookRefused, match="NAT64"):
        asyncio.run(deliver(hook.url, SECRET, {}, allow_private=False, resolve=rebinding))
    assert receiver.seen == []


def test_a_name_with_any_private_address_is_refused() -> None:
    hook = parse_hook_url("https://hooks.example/x")
    with pytest.raises(WebhookRefused, match=r"127\.0\.0\.1 is a private"):
        asyncio.run(checked_address(hook, False, resolver("93.184.215.14", "127.0.0.1")))
    assert str(asyncio.run(checked_address(hook, False, resolver("93.184.215.14")))) == "93.184.215.14"


def test_localhost_by_name_is_refused() -> None:
    with pytest.raises(WebhookRefused, match="localhost resolves to"):
        asyncio.run(checked_address(parse_hook_url("http://localhost:9/x"), False))


@pytest.mark.parametrize(("url", "said"), [
    ("http://127.0.0.1:9/x", "127.0.0.1 is a private, loopback or reserved address; only public"),
    ("http://[::1]/x", "::1 is a private, loopback or reserved address; only public"),
    ("http://2130706433/x", "2130706433 resolves to 127.0.0.1: 127.0.0.1 is a private, loopback or reserved address; only public"),
    ("http://[::ffff:169.254.169.254]/x", "169.254.169.254 is a private"),
    ("http://0.0.0.0/x", "0.0.0.0 is not an address a server can be reached at"),
])
def test_a_refusal_reads_as_one_sentence_about_the_address_given(url: str, said: str) -> None:
    """It read "127.0.0.1 resolves to 127.0.0.1 is a private ... address" before."""
    with pytest.raises(WebhookRefused) as refused:
        asyncio.run(checked_address(parse_hook_url(url), False))
    assert str(refused.value).startswith(said)


def test_an_unresolvable_name_is_refused() -> None:
    async def fail(host: str, port: int) -> list[str]:
        raise OSError("Name or service not known")

    with pytest.raises(WebhookRefused, match="does not resolve"):
        asyncio.run(checked_address(parse_hook_url("https://nowhere.invalid/"), False, fail))


def test_nothing_is_sent_to_a_refused_address(receiver: Receiver) -> None:
    with pytest.raises(WebhookRefused):
        asyncio.run(deliver(receiver.url(), SECRET, {"game": "g"}, allow_private=False))
    assert receiver.seen == []


# --------------------------------------------------------------------------- delivery
def test_a_delivery_is_signed_json_the_receiver_can_verify(receiver: Receiver) -> None:
    payload = {"event": "your_turn", "game": "abc123", "seat": "B"}
    outcome = asyncio.run(deliver(receiver.url("/hook?k=1"), SECRET, payload, allow_private=True))
    assert outcome.ok and outcome.status == 204
    [(path, headers, body)] = receiver.seen
    assert path == "/hook?k=1"
    assert json.loads(body) == payload
    assert headers["content-type"] == "application/json"
    assert verify(SECRET, headers, body, time.time())
    assert not verify("another secret", headers, body, time.time())
    assert not verify(SECRET, headers, body + b" ", time.time())
    assert not verify(SECRET, headers, body, time.time() + 3600)  # a replay an hour later


def test_the_connection_goes_to_the_checked_address_with_the_given_name(receiver: Receiver) -> None:
    # The name resolves (once, when checked) to the receiver; the request keeps the name as Host.
    url = receiver.url(host="hooks.example")
    outcome = asyncio.run(deliver(url, SECRET, {"n": 1}, allow_private=True, resolve=resolver("127.0.0.1")))
    assert outcome.ok
    assert receiver.seen[0][1]["host"] == f"hooks.example:{receiver.port}"


def test_a_rebinding_name_is_checked_at_each_delivery(receiver: Receiver) -> None:
    answers = iter([["93.184.215.14"], ["127.0.0.1"]])

    async def rebinding(host: str, port: int) -> list[str]:
        return next(answers)

    hook = parse_hook_url(receiver.url(host="rebind.example"))
    asyncio.run(checked_address(hook, False, rebinding))  # the first look is public
    with pytest.raises(WebhookRefused, match=r"127\.0\.0\.1"):
        asyncio.run(deliver(hook.url, SECRET, {}, allow_private=False, resolve=rebinding))
    assert receiver.seen == []


def test_a_redirect_is_not_followed(receiver: Receiver) -> None:
    receiver.status, receiver.location = 302, receiver.url("/elsewhere")
    outcome = asyncio.run(deliver(receiver.url(), SECRET, {}, allow_private=True))
    assert not outcome.ok and outcome.status == 302
    assert [path for path, _, _ in receiver.seen] == ["/hook"]


def test_a_closed_port_is_a_failed_delivery_not_an_error() -> None:
    outcome = asyncio.run(deliver("http://127.0.0.1:9/x", SECRET, {}, allow_private=True, timeout=2))
    assert not outcome.ok and outcome.status is None and outcome.reason


def test_the_signature_covers_timestamp_and_body() -> None:
    assert sign(SECRET, 1, b"{}") != sign(SECRET, 2, b"{}")
    assert sign(SECRET, 1, b"{}") != sign(SECRET, 1, b"{ }")
    assert sign(SECRET, 1, b"{}").startswith("sha256=")


# --------------------------------------------------------------------------- the sender
def test_the_sender_retries_a_failing_receiver_then_counts_it(receiver: Receiver) -> None:
    receiver.status = 503

    async def run() -> WebhookSender:
        sender = WebhookSender(allow_private=True, retries=(0.0, 0.0))
        assert sender.submit(receiver.url(), SECRET, {"n": 1})
        await sender.drain()
        await sender.close()
        return sender

    sender = asyncio.run(run())
    assert len(receiver.seen) == 3 and sender.failed == 1 and sender.delivered == 0


def test_the_sender_does_not_retry_a_refusal_by_the_receiver(receiver: Receiver) -> None:
    receiver.status = 410

    async def run() -> WebhookSender:
        sender = WebhookSender(allow_private=True, retries=(0.0, 0.0))
        sender.submit(receiver.url(), SECRET, {"n": 1})
        await sender.drain()
        await sender.close()
        return sender

    sender = asyncio.run(run())
    assert len(receiver.seen) == 1 and sender.failed == 1


def test_the_sender_counts_refused_and_delivered_hooks(receiver: Receiver) -> None:
    async def run() -> WebhookSender:
        sender = WebhookSender(allow_private=False, resolve=resolver("127.0.0.1"))
        sender.submit(receiver.url(host="sneaky.example"), SECRET, {})
        await sender.drain()
        sender.allow_private = True
        sender.submit(receiver.url(), SECRET, {})
        await sender.drain()
        await sender.close()
        return sender

    sender = asyncio.run(run())
    assert (sender.refused, sender.delivered, len(receiver.seen)) == (1, 1, 1)
