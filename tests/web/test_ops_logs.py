"""Request ids (X-Request-ID on every response, on every log line of the request) and
`cantstop serve --log-format json`."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from web_helpers import NO_LIMITS, Server

from cantstop.web.app import create_app
from cantstop.web.db.storage import Storage
from cantstop.web.ops.logs import REQUEST_ID, JsonFormatter, RequestIdFilter, log_config

MINTED = re.compile(r"[0-9a-f]{16}")


def test_every_response_has_its_own_request_id(client: TestClient) -> None:
    ids = [client.get(path).headers["x-request-id"] for path in ("/healthz", "/healthz", "/api/nothing", "/")]
    assert all(MINTED.fullmatch(i) for i in ids) and len(set(ids)) == len(ids)
    too_large = client.post("/api/games", content=b"x" * 20_000, headers={"content-type": "application/json"})
    assert too_large.status_code == 413 and MINTED.fullmatch(too_large.headers["x-request-id"])


def test_a_clients_own_request_id_is_not_believed_unless_it_comes_through_a_trusted_proxy(storage: Storage) -> None:
    given = {"X-Request-ID": "from-the-proxy-42"}
    with TestClient(create_app(storage, **NO_LIMITS)) as client:  # the test client's address is "testclient"
        assert client.get("/healthz", headers=given).headers["x-request-id"] != "from-the-proxy-42"
    with TestClient(create_app(storage, trusted_proxies=("testclient",), **NO_LIMITS)) as client:
        assert client.get("/healthz", headers=given).headers["x-request-id"] == "from-the-proxy-42"
        odd = client.get("/healthz", headers={"X-Request-ID": "has spaces; and semicolons"}).headers["x-request-id"]
        assert MINTED.fullmatch(odd)


def test_a_json_line_carries_the_request_id_and_the_extra_fields() -> None:
    record = logging.LogRecord("cantstop.web", logging.WARNING, __file__, 1, "game %s: %s", ("g1", "stale"), None)
    record.status = 409
    token = REQUEST_ID.set("abc123")
    try:
        assert RequestIdFilter().filter(record)
    finally:
        REQUEST_ID.reset(token)
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "game g1: stale" and line["level"] == "warning" and line["logger"] == "cantstop.web"
    assert line["request_id"] == "abc123" and line["status"] == 409 and line["time"].endswith("Z")


def test_a_log_format_or_level_that_does_not_exist_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="log format 'yaml': the formats are text, json"):
        log_config("yaml", "info")
    with pytest.raises(ValueError, match="log level 'loud': the levels are debug, info, warning, error"):
        log_config("json", "loud")


def test_cantstop_serve_logs_each_request_as_json_with_its_id(tmp_path: Path) -> None:
    server = Server(f"sqlite:///{tmp_path / 'logs.sqlite3'}", args=("--log-format", "json", "--log-level", "info")).start()
    try:
        with httpx.Client(base_url=server.url) as http:
            ids = {http.get(path).headers["x-request-id"]: path for path in ("/api/variants", "/healthz", "/api/games/nope")}
        # A stop signal, not SIGKILL: the server exits as in production and its output is
        # flushed (a killed process loses what its pipe's buffer still held).
        assert server.process is not None
        server.process.terminate()
        server.process.wait(timeout=30)
    finally:
        server.kill()
    assert server.process is not None and server.process.stdout is not None
    lines = [json.loads(line) for line in server.process.stdout.read().decode().splitlines() if line.startswith("{")]
    by_id = {line["request_id"]: line for line in lines if line.get("logger") == "cantstop.web.requests"}
    for request_id, path in ids.items():
        line = by_id[request_id]
        assert line["path"] == path and line["method"] == "GET" and line["level"] == "info"
        assert line["status"] == (404 if path == "/api/games/nope" else 200) and line["ms"] >= 0
    assert any(line["logger"].startswith("uvicorn") for line in lines)  # the server's own lines are JSON too
