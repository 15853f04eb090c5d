"""The simulator's requests and responses as plain values, and the request bodies Jira accepts (JSON, multipart)."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import unquote

import attrs

from jira_sim.model import JiraError

__all__ = ["JSON", "Request", "Response", "expand_list", "int_param", "json_response", "parse_multipart"]

JSON = b"application/json;charset=UTF-8"


@attrs.define(kw_only=True)
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    base: str
    user: str = ""

    def param(self, name: str, default: str | None = None) -> str | None:
        values = self.query.get(name)
        return values[0] if values else default

    def json(self) -> Any:
        if not self.body.strip():
            raise JiraError(400, ["No content to map to Object due to end of input"])
        try:
            return json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise JiraError(400, [f"Unexpected character: {exc}"]) from None

    def json_object(self) -> dict[str, Any]:
        value = self.json()
        if not isinstance(value, dict):
            raise JiraError(400, ["Can not deserialize instance of object out of non-object token"])
        return value


@attrs.define(kw_only=True)
class Response:
    status: int
    body: bytes = b""
    content_type: bytes = JSON
    headers: list[tuple[bytes, bytes]] = attrs.Factory(list)


def json_response(status: int, data: Any) -> Response:
    return Response(status=status, body=json.dumps(data, ensure_ascii=False).encode("utf-8"))


def int_param(req: Request, name: str, default: int) -> int:
    raw = req.param(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise JiraError(400, [f"The value '{raw}' is not valid for the parameter '{name}'."]) from None


def expand_list(value: Any) -> list[str]:
    """A comma-separated parameter (or a list of them, as repeated query parameters arrive) as a list."""
    if value is None:
        return []
    items = [value] if isinstance(value, str) else [str(v) for v in value]
    return [part.strip() for item in items for part in item.split(",")]


_PARAM = re.compile(r';\s*([A-Za-z0-9_*.-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)')


def _header_params(value: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for raw_name, raw in _PARAM.findall(value):
        name = raw_name
        text = raw.strip()
        if text.startswith('"') and text.endswith('"'):
            text = re.sub(r"\\(.)", r"\1", text[1:-1])
        if name.endswith("*"):
            charset, _, rest = text.partition("'")
            _, _, encoded = rest.partition("'")
            text = unquote(encoded, encoding=charset or "utf-8")
            name = name[:-1]
        out[name.lower()] = text
    return out


def parse_multipart(body: bytes, content_type: str) -> list[tuple[str, str, str, bytes]]:
    """``(name, filename, content type, data)`` of each part of a ``multipart/form-data`` body."""
    boundary = _header_params(content_type).get("boundary")
    if not boundary:
        raise JiraError(400, ["Missing multipart boundary"])
    delimiter = b"--" + boundary.encode("latin-1")
    parts = body.split(delimiter)
    out: list[tuple[str, str, str, bytes]] = []
    for raw_part in parts[1:]:
        if raw_part.startswith(b"--"):
            break
        # CRLF is the rule; bare LF is accepted as well (hand-written bodies, recorded cassettes)
        newline = b"\r\n" if raw_part.startswith(b"\r\n") else b"\n"
        head, sep, data = raw_part.removeprefix(newline).partition(newline * 2)
        if not sep:
            continue
        data = data.removesuffix(newline)
        headers: dict[str, str] = {}
        for line in head.split(newline):
            name, _, value = line.partition(b":")
            try:
                text = value.decode("utf-8")
            except UnicodeDecodeError:
                text = value.decode("latin-1")
            headers[name.decode("latin-1").strip().lower()] = text.strip()
        disposition = _header_params(headers.get("content-disposition", ""))
        out.append(
            (
                disposition.get("name", ""),
                disposition.get("filename", ""),
                headers.get("content-type", "application/octet-stream"),
                data,
            )
        )
    return out
