"""One log format for hub and agent (DESIGN.md 10): JSON lines with ts/level/logger/event and the event's
fields, readable text on a terminal, uvicorn's and the MCP library's records in the same format, no secret."""

from __future__ import annotations

import io
import json
import logging
import logging.config
import time
from typing import Any

import pytest
import uvicorn.config

from adapters.logs import JsonFormatter, TextFormatter, configure_logging

pytestmark = pytest.mark.usefixtures("logging_restored")

#: 2026-10-22T09:00:00.123Z
CREATED = 1792659600.123


def record(event: str = "command", *, level: int = logging.INFO, **fields: Any) -> logging.LogRecord:
    made = logging.getLogger("agent_app.loop").makeRecord(
        "agent_app.loop", level, "loop.py", 1, event, (), None, extra=fields
    )
    made.created = CREATED
    return made


def lines(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_json_line_has_the_design_keys_in_utc(monkeypatch: pytest.MonkeyPatch) -> None:
    """ts (UTC, ms, Z — whatever the local zone), level, logger, event, then the fields given with extra=."""
    monkeypatch.setenv("TZ", "Asia/Vladivostok")
    time.tzset()
    line = JsonFormatter().format(record(command_id=40, type="ensure_fields", key="AURORA-1533", duration_ms=120031))
    monkeypatch.delenv("TZ")
    time.tzset()
    parsed = json.loads(line)
    assert list(parsed) == ["ts", "level", "logger", "event", "command_id", "type", "key", "duration_ms"]
    assert parsed == {
        "ts": "2026-10-22T09:00:00.123Z",
        "level": "info",
        "logger": "agent_app.loop",
        "event": "command",
        "command_id": 40,
        "type": "ensure_fields",
        "key": "AURORA-1533",
        "duration_ms": 120031,
    }


def test_json_keeps_russian_text_readable() -> None:
    """Non-ASCII field values are written as they are, not as \\u escapes."""
    line = JsonFormatter().format(record("command", error="нет перехода в «Готово»"))
    assert '"error": "нет перехода в «Готово»"' in line


def test_exception_text_is_a_field() -> None:
    """A record logged with an exception carries its traceback in `exception`."""
    stream = io.StringIO()
    configure_logging("INFO", fmt="json", stream=stream)
    try:
        raise ValueError("bad file")
    except ValueError:
        logging.getLogger("agent_app.loop").exception("executor_error", extra={"command_id": 7})
    (line,) = lines(stream)
    assert (line["level"], line["event"], line["command_id"]) == ("error", "executor_error", 7)
    assert line["exception"].startswith("Traceback (most recent call last):")
    assert line["exception"].endswith("ValueError: bad file")


def test_text_line_for_a_person() -> None:
    """Text: time, level, logger, event, then key=value fields (quoted when they hold spaces)."""
    line = TextFormatter().format(record(command_id=40, outcome="done", error="HTTP 400: нет поля", ack=None))
    assert line == (
        "2026-10-22T09:00:00.123Z info    agent_app.loop  command  "
        'command_id=40 outcome=done error="HTTP 400: нет поля" ack=null'
    )


def test_auto_is_text_on_a_terminal_and_json_elsewhere() -> None:
    """fmt=auto writes text to a terminal and JSON lines to a file or a pipe."""
    terminal, pipe = Terminal(), io.StringIO()
    configure_logging("INFO", stream=terminal)
    logging.getLogger("agent_app").info("start", extra={"agent_id": "a-1"})
    configure_logging("INFO", stream=pipe)
    logging.getLogger("agent_app").info("start", extra={"agent_id": "a-1"})
    assert terminal.getvalue().endswith(" info    agent_app  start  agent_id=a-1\n")
    assert [(line["event"], line["agent_id"]) for line in lines(pipe)] == [("start", "a-1")]


def test_uvicorn_and_mcp_records_come_out_in_the_same_format() -> None:
    """After uvicorn's own logging config and the MCP library's, every record is one JSON line of ours."""
    from mcp.server.mcpserver.utilities.logging import configure_logging as mcp_configure_logging

    logging.config.dictConfig(uvicorn.config.LOGGING_CONFIG)
    stream = io.StringIO()
    handler = configure_logging("INFO", fmt="json", stream=stream)
    mcp_configure_logging("DEBUG")  # what the MCP server does when it is built: must change nothing
    logging.getLogger("uvicorn.error").info("Started server process [%d]", 42, extra={"color_message": "\x1b[1m"})
    logging.getLogger("uvicorn.access").info(
        '%s - "%s %s HTTP/%s" %d', "127.0.0.1:5000", "POST", "/agent/claim", "1.1", 204
    )
    logging.getLogger("mcp.server.lowlevel.server").info("Processing request of type %s", "CallToolRequest")
    assert logging.getLogger().handlers == [handler]
    assert [{k: v for k, v in line.items() if k != "ts"} for line in lines(stream)] == [
        {"level": "info", "logger": "uvicorn.error", "event": "Started server process [42]"},
        {
            "level": "info",
            "logger": "uvicorn.access",
            "event": "http_request",
            "client": "127.0.0.1:5000",
            "method": "POST",
            "path": "/agent/claim",
            "http_version": "1.1",
            "status": 204,
        },
        {
            "level": "info",
            "logger": "mcp.server.lowlevel.server",
            "event": "Processing request of type CallToolRequest",
        },
    ]


def test_secrets_and_credentials_never_reach_the_stream() -> None:
    """Secrets given to configure_logging and any Bearer/Basic credentials are masked, in JSON and text."""
    for fmt in ("json", "text"):
        stream = io.StringIO()
        configure_logging("INFO", fmt=fmt, stream=stream, secrets=("hub-s3cret-token",))
        log = logging.getLogger("agent_app")
        log.info("retry", extra={"error": "POST /agent/claim?token=hub-s3cret-token: HTTP 401"})
        log.info("request", extra={"headers": {"Authorization": "Bearer abc.DEF-123="}})
        log.info("request", extra={"headers": {"Authorization": "Basic dXNlcjpwYXNzd29yZA=="}})
        output = stream.getvalue()
        assert [s for s in ("hub-s3cret-token", "abc.DEF-123", "dXNlcjpwYXNzd29yZA") if s in output] == [], output
        assert (output.count("***"), output.count("Bearer ***"), output.count("Basic ***")) == (3, 1, 1), output


def test_every_request_of_httpx_is_shown_only_at_debug() -> None:
    """At INFO httpx's per-request lines are dropped (the long poll would fill the log); at DEBUG they show."""
    stream = io.StringIO()
    configure_logging("INFO", fmt="json", stream=stream)
    logging.getLogger("httpx").info("HTTP Request: POST http://hub/agent/claim")
    assert stream.getvalue() == ""
    configure_logging("DEBUG", fmt="json", stream=stream)
    logging.getLogger("httpx").info("HTTP Request: POST http://hub/agent/claim")
    assert [line["logger"] for line in lines(stream)] == ["httpx"]


def test_unknown_level_is_refused() -> None:
    """A level name logging does not know is a ValueError naming it."""
    with pytest.raises(ValueError, match="unknown log level 'loud'"):
        configure_logging("loud", stream=io.StringIO())
