"""Helpers for the account tests: sign up or in through the API, as a browser's page would."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

PASSWORD = "seven dice on the table"  # passes the rules: 12+ characters, not a common one


def sign_up(client: TestClient, name: str, password: str = PASSWORD) -> dict[str, Any]:
    """A new account, signed in on `client`; its reply (account and CSRF token)."""
    response = client.post("/api/account/sign-up", json={"name": name, "password": password})
    assert response.status_code == 201, response.text
    reply: dict[str, Any] = response.json()
    return reply


def sign_in(client: TestClient, name: str, password: str = PASSWORD) -> Any:
    return client.post("/api/account/sign-in", json={"name": name, "password": password})


def csrf(client: TestClient) -> dict[str, str]:
    """The header a page sends with a change: the token from the cantstop_csrf cookie."""
    return {"X-CSRF-Token": client.cookies.get("cantstop_csrf") or ""}
