"""One log format for the hub and the agent (DESIGN.md 10): events with fields.

Code logs an event name and its fields, never a sentence with values pasted in::

    log.info("command", extra={"command_id": 40, "type": "ensure_fields", "duration_ms": 120031})

:func:`configure_logging` writes every record of the process — ours, uvicorn's, the ``mcp`` library's — in one
format: a JSON object per line (``ts`` in UTC, ``level``, ``logger``, ``event``, then the fields), or readable
text when the stream is a terminal. Uvicorn must be started with ``log_config=None`` so it does not install
its own handlers over these. Secrets handed to :func:`configure_logging`, ``Bearer``/``Basic`` credentials and
the userinfo of every URL (``http://user:pass@…``, a token written as the user) are masked in every line,
whatever logged them (:func:`redacted`).
"""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, Literal, TextIO

from reconcile.vocabulary import utc_text

__all__ = ["JsonFormatter", "TextFormatter", "configure_logging", "fields_of", "redacted"]

Format = Literal["auto", "json", "text"]

#: Attributes every ``LogRecord`` has; anything else on a record came in through ``extra=`` (uvicorn adds a
#: ``color_message`` copy of its text with terminal colours: not a field).
_RECORD_ATTRIBUTES = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "asctime",
    "color_message",
}

#: Loggers of libraries that bring their own handlers, and of those that log every request (or every plugin
#: loaded) at INFO, shown only at DEBUG: the agent's long poll would fill the log.
_TAKEN_OVER = ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi", "mcp")
_CHATTY = ("httpx", "httpcore", "alembic.runtime.plugins")
#: The database drivers' loggers, kept at WARNING even with ``--log-level DEBUG``: at INFO SQLAlchemy logs every
#: statement with its parameters (token digests, notes, Jira's data), aiosqlite every call with its arguments.
_NEVER_VERBOSE = ("sqlalchemy", "aiosqlite", "asyncpg")

#: An ``Authorization`` value wherever it shows up (a header dump, an exception's text).
_CREDENTIALS = re.compile(r"\b(Bearer)\s+[A-Za-z0-9._~+/-]+=*|\b(Basic)\s+[A-Za-z0-9+/]{8,}=*")
_MASK = "***"
#: A URL's userinfo: from ``scheme://`` to the last ``@`` before the URL ends (a space, a quote). Greedy on
#: purpose: a password with an unescaped ``/`` or ``@`` is hidden whole, at worst with some of what follows.
_USERINFO = re.compile(r"(\b[A-Za-z][A-Za-z0-9+.-]*://)[^\s\"'<>]*@")


def redacted(text: str) -> str:
    """``text`` with the whole userinfo of every URL in it replaced by ``***`` (``http://***@jira.bank``)."""
    return _USERINFO.sub(rf"\1{_MASK}@", text)


def fields_of(record: logging.LogRecord) -> dict[str, Any]:
    """The fields passed with ``extra=`` (uvicorn's access lines become ``client``, ``method``, ``path``…)."""
    fields = {name: value for name, value in vars(record).items() if name not in _RECORD_ATTRIBUTES}
    if record.name == "uvicorn.access" and isinstance(record.args, tuple) and len(record.args) == 5:
        client, method, path, http_version, status = record.args
        fields.update(client=client, method=method, path=path, http_version=http_version, status=status)
    return fields


def _event(record: logging.LogRecord) -> str:
    if record.name == "uvicorn.access" and isinstance(record.args, tuple) and len(record.args) == 5:
        return "http_request"
    return record.getMessage()


def _timestamp(record: logging.LogRecord) -> str:
    """UTC, ISO-8601, milliseconds, ``Z``: ``2026-10-22T09:00:00.123Z``."""
    return utc_text(datetime.fromtimestamp(record.created, tz=UTC), "milli")


class _Masking(logging.Formatter):
    """Masks the given secrets and any ``Bearer``/``Basic`` credentials in the finished line."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        # Longest first, so a secret that contains another is masked whole.
        self._secrets = sorted({s for s in secrets if s}, key=len, reverse=True)

    def _mask(self, line: str) -> str:
        for secret in self._secrets:
            line = line.replace(secret, _MASK)
        return redacted(_CREDENTIALS.sub(lambda m: f"{m.group(1) or m.group(2)} {_MASK}", line))

    def _exception(self, record: logging.LogRecord) -> str | None:
        if record.exc_info:
            return self.formatException(record.exc_info)
        if record.exc_text:
            return record.exc_text
        return None


class JsonFormatter(_Masking):
    """One JSON object per line: ``ts``, ``level``, ``logger``, ``event``, the fields, ``exception`` if any."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": _timestamp(record),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": _event(record),
        }
        line.update((k, v) for k, v in fields_of(record).items() if k not in line)
        exception = self._exception(record)
        if exception is not None:
            line["exception"] = exception
        return self._mask(json.dumps(line, ensure_ascii=False, default=str))


class TextFormatter(_Masking):
    """``2026-10-22T09:00:00.123Z info  agent_app.loop  command  command_id=40 type=ensure_fields …``"""

    def format(self, record: logging.LogRecord) -> str:
        fields = " ".join(f"{k}={_text_value(v)}" for k, v in fields_of(record).items())
        line = f"{_timestamp(record)} {record.levelname.lower():<7} {record.name}  {_event(record)}"
        if fields:
            line += f"  {fields}"
        exception = self._exception(record)
        if exception is not None:
            line += "\n" + exception
        return self._mask(line)


def _text_value(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return json.dumps(text, ensure_ascii=False) if not text or any(c.isspace() or c in '"=' for c in text) else text


def configure_logging(
    level: str | int = "INFO",
    *,
    fmt: Format = "auto",
    stream: TextIO | None = None,
    secrets: Iterable[str] = (),
) -> logging.Handler:
    """Send every logger of the process to ``stream`` (stderr) in one format; returns the handler installed.

    ``fmt="auto"`` writes text on a terminal and JSON lines otherwise. Calling it again replaces the handler.
    """
    out = stream if stream is not None else sys.stderr
    use_text = fmt == "text" or (fmt == "auto" and _is_terminal(out))
    handler = logging.StreamHandler(out)
    handler.setFormatter(TextFormatter(secrets) if use_text else JsonFormatter(secrets))
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    numeric = logging.getLevelName(level.upper()) if isinstance(level, str) else level
    if not isinstance(numeric, int):
        raise ValueError(f"unknown log level {level!r}")
    root.setLevel(numeric)
    for name in _TAKEN_OVER:
        taken = logging.getLogger(name)
        for old in taken.handlers[:]:
            taken.removeHandler(old)
        taken.setLevel(logging.NOTSET)
        taken.propagate = True
    for name in _CHATTY:
        logging.getLogger(name).setLevel(logging.NOTSET if numeric < logging.INFO else logging.WARNING)
    for name in _NEVER_VERBOSE:
        logging.getLogger(name).setLevel(max(numeric, logging.WARNING))
    return handler


def _is_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())
