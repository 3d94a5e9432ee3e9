"""The one shape of every refusal under /api: `{"error": code, "message": text}` (plus details)."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """A refusal the client is told about as JSON: HTTP status, a code and a clear message."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.extra = status, code, message, extra
        self.headers = headers or {}

    def json(self) -> dict[str, Any]:
        return {"error": self.code, "message": self.message, **self.extra}
