"""Logs: one line per event, as text or as JSON, each carrying the id of the request it
belongs to. `cantstop serve --log-format json` hands `log_config` to uvicorn."""

from __future__ import annotations

import json
import logging
import time
from contextvars import ContextVar
from typing import Any

REQUEST_ID: ContextVar[str | None] = ContextVar("request_id", default=None)
FORMATS = ("text", "json")
LEVELS = ("debug", "info", "warning", "error")
# What every LogRecord has; anything else on a record was passed as `extra` and is logged too.
_STANDARD = set(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {"message", "asctime", "request_id", "color_message"}


class RequestIdFilter(logging.Filter):
    """Stamps each record with the id of the request being served (None outside one)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is None:
            record.request_id = REQUEST_ID.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (UTC), level, logger, message, request id, extra fields."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = getattr(record, "request_id", None)
        if request_id is not None:
            line["request_id"] = request_id
        line.update({k: v for k, v in record.__dict__.items() if k not in _STANDARD and not k.startswith("_")})
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


def log_config(form: str, level: str) -> dict[str, Any]:
    """A `logging.config.dictConfig` for the server's and uvicorn's loggers, to stderr."""
    if form not in FORMATS:
        raise ValueError(f"log format {form!r}: the formats are {', '.join(FORMATS)}")
    if level not in LEVELS:
        raise ValueError(f"log level {level!r}: the levels are {', '.join(LEVELS)}")
    text = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"
    to_stderr = {"handlers": ["stderr"], "level": level.upper(), "propagate": False}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": f"{__name__}.RequestIdFilter"}},
        "formatters": {"json": {"()": f"{__name__}.JsonFormatter"}, "text": {"format": text}},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "stream": "ext://sys.stderr", "formatter": form, "filters": ["request_id"]}},
        "loggers": {
            "cantstop": to_stderr,
            "uvicorn": to_stderr,
            "uvicorn.error": {"level": level.upper()},
            # Requests are logged once, by the application (with their id): not again by uvicorn.
            "uvicorn.access": {"handlers": [], "level": "CRITICAL", "propagate": False},
        },
    }
