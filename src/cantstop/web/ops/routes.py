"""/healthz (the process answers), /readyz (and reaches its database, and on PostgreSQL hears
the other processes' news) and /metrics."""

from __future__ import annotations

import secrets

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse

from cantstop.web.errors import NotFound, NotSignedIn
from cantstop.web.http import DB_DOWN
from cantstop.web.ops.room import Operations

router = APIRouter(include_in_schema=False)
PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8"
NOT_LISTENING = {"error": "not_listening", "message": "this server does not yet hear the other server processes' moves"
                 " (its LISTEN connection to PostgreSQL is not up): try again shortly"}


def ops_of(request: Request) -> Operations:
    ops: Operations = request.app.state.ops
    return ops


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """Alive: the process serves requests (it says nothing of the database)."""
    return {"status": "alive"}


@router.get("/readyz")
async def readyz(request: Request) -> JSONResponse:
    """Ready: the database answers a query and, on PostgreSQL, the server hears what other
    processes store (its LISTEN runs); 503 when not (send no players here)."""
    ops = ops_of(request)
    if not await ops.database_reachable():
        return JSONResponse(DB_DOWN, status_code=503, headers={"Retry-After": "5"})
    if not ops.hearing:
        return JSONResponse(NOT_LISTENING, status_code=503, headers={"Retry-After": "1"})
    return JSONResponse({"status": "ready"})


@router.get("/metrics")
async def metrics(request: Request) -> Response:
    """Prometheus text, for a scraper that sends the configured token as a bearer token."""
    ops = ops_of(request)
    token = ops.settings.metrics_token
    if not token:
        raise NotFound("not_found", "metrics are off: set CANTSTOP_METRICS_TOKEN to serve them to holders of that token")
    auth = request.headers.get("authorization", "")
    given = auth[7:].strip() if auth.lower().startswith("bearer ") else ""
    if not secrets.compare_digest(given.encode(), token.encode()):
        raise NotSignedIn("bad_token", "metrics need 'Authorization: Bearer <the metrics token>'")
    return Response(ops.metrics.text(), media_type=PROMETHEUS_TEXT)
