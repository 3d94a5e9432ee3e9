"""The operations room: what an operator needs to leave the server running (the connection
guard, health and readiness, metrics, request ids in logs, a graceful stop)."""

from cantstop.web.ops.room import Operations

__all__ = ["Operations"]
