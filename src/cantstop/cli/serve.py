"""`cantstop serve`: the browser game and its JSON API on one port."""

from __future__ import annotations

import click


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (0.0.0.0 for every interface).")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port to listen on.")
@click.option("--db", "db_url", envvar="CANTSTOP_DB", default=None, help="SQLAlchemy URL, e.g. postgresql+psycopg://user:pw@host/db. Default: a SQLite file in your data directory. Also $CANTSTOP_DB.")
@click.option("--bot-delay", default=0.8, show_default=True, type=click.FloatRange(0, 10), help="Seconds a bot waits before each move, so people can follow.")
@click.option("--allow-origin", multiple=True, help="Another origin allowed to open WebSockets (repeatable), e.g. https://example.org.")
@click.option("--trusted-proxy", multiple=True, help="Address of a reverse proxy whose X-Forwarded-For/-Proto are believed (repeatable); also $CANTSTOP_TRUSTED_PROXIES.")
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64), help="Server processes (more than one needs PostgreSQL).")
@click.option("--log-format", type=click.Choice(["text", "json"]), default="text", show_default=True, help="Log lines as text or as one JSON object each (with the request id).")
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="warning", show_default=True, help="info logs every request.")
def serve(
    host: str, port: int, db_url: str | None, bot_delay: float, allow_origin: tuple[str, ...], trusted_proxy: tuple[str, ...], workers: int,
    log_format: str, log_level: str,
) -> None:
    """Serve the browser game: create games, play with friends and bots, watch, replay."""
    import os

    import uvicorn
    from pydantic import ValidationError

    from cantstop.cli.admin import storage_at
    from cantstop.web.db.url import default_url
    from cantstop.web.ops.guard import GuardedHttp, GuardedSocket
    from cantstop.web.ops.logs import log_config
    from cantstop.web.server import describe_url
    from cantstop.web.settings import Settings, refusal

    url = db_url or default_url()
    if workers > 1 and url.startswith("sqlite"):
        raise click.BadParameter("several processes need a shared database: use PostgreSQL (--db postgresql+psycopg://...)", param_hint="--workers")
    os.environ["CANTSTOP_BOT_DELAY"] = str(bot_delay)
    os.environ["CANTSTOP_ORIGINS"] = " ".join(allow_origin)
    if trusted_proxy:
        os.environ["CANTSTOP_TRUSTED_PROXIES"] = " ".join(trusted_proxy)
    try:  # each worker reads the settings again; a mistake is told once, here, before anything starts
        settings = Settings()
    except ValidationError as error:
        raise click.ClickException(refusal(error)) from None
    with storage_at(url):  # opened and migrated once, here, before the server's processes start
        pass
    click.echo(f"database: {describe_url(url)}")
    click.echo(f"Can't Stop at http://{host}:{port}/  (the API described at /openapi.json; Ctrl-C stops)", err=False)
    os.environ["CANTSTOP_DB"] = url
    uvicorn.run(
        "cantstop.web.server:build_app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        ws_max_size=16 * 1024,
        ws_per_message_deflate=False,  # messages are small; compressing them costs more CPU than it saves
        log_level=log_level,
        log_config=log_config(log_format, log_level),
        proxy_headers=False,  # the application alone decides whose X-Forwarded-* to believe
        # uvicorn's own protocols, with read timeouts and a cap per address (web/ops/guard.py)
        http=GuardedHttp,
        ws=GuardedSocket,
        # On SIGTERM: stop accepting, close WebSockets with 1012 (the page reconnects), give
        # requests in flight this long, then stop the service (its pending commits are made).
        timeout_graceful_shutdown=settings.shutdown_grace,
    )
