"""What the hub reads from a request is text held to one rule (DESIGN.md 3), whichever door it came through.

The path and the query are text too: valid UTF-8, no NUL, or 422 naming where.

Servers decode percent-escapes leniently (invalid UTF-8 becomes U+FFFD, ``%00`` a NUL), so the raw bytes are
checked here, before any handler sees the decoded values: a NUL in a key would reach the database, and a
replaced file name would be stored as something the client never sent. A web form's fields are percent-escaped
the same way (:func:`check_form_encoding`); their NULs are left to the body the page makes of them, which is held
to the API's rule where its refusal can be shown next to the form. A JSON body (the API's, or one typed into a
form) is read by :func:`decode_json`: invalid text or a NUL (422 naming where), a non-finite number (422), nesting
beyond reason (400).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote_to_bytes

from litestar.exceptions import ClientException

from hub_app.runtime.connection import HubRequest
from reconcile.vocabulary import MAX_JSON_DEPTH, TooDeep, ValidationError, check_request_json, check_text

__all__ = ["check_form_encoding", "check_path_and_query", "decode_json"]

_PATH = "пути запроса"


def _utf8(raw: bytes, where: str) -> str:
    try:
        return unquote_to_bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        raise ValidationError(f"недопустимый символ в {where}") from None


def _decoded(raw: bytes, where: str) -> str:
    text = _utf8(raw, where)
    check_text(text, where)
    return text


def _query(raw: bytes) -> None:
    for pair in raw.split(b"&"):
        name_raw, _, value_raw = pair.partition(b"=")
        name = _decoded(name_raw.replace(b"+", b" "), "имени параметра запроса")
        _decoded(value_raw.replace(b"+", b" "), name)


def check_form_encoding(raw: bytes) -> None:
    """An urlencoded form's fields are UTF-8: else 422 «недопустимый символ в <поле>» (never a U+FFFD stored)."""
    for pair in raw.split(b"&"):
        name_raw, _, value_raw = pair.partition(b"=")
        name = _utf8(name_raw.replace(b"+", b" "), "имени поля формы")
        _utf8(value_raw.replace(b"+", b" "), name)


async def check_path_and_query(request: HubRequest) -> None:
    """Before any handler: 422 «недопустимый символ в <параметр>» (or «… в пути запроса»)."""
    scope = request.scope
    raw_path = scope.get("raw_path")
    if isinstance(raw_path, bytes):
        _decoded(raw_path, _PATH)
    else:
        check_text(str(scope.get("path", "")), _PATH)
    _query(scope.get("query_string", b""))


def decode_json(raw: bytes) -> Any:
    """The body as JSON (``None`` when empty); 400 when it is not JSON; 422 when its text or numbers are bad."""
    if not raw.strip():
        return None
    try:
        value = json.loads(raw)
    except RecursionError:
        raise ClientException(f"тело запроса — не JSON: вложенность JSON глубже {MAX_JSON_DEPTH}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise ClientException(f"тело запроса — не JSON: {exc}") from None
    try:
        check_request_json(value)
    except TooDeep as exc:
        raise ClientException(f"тело запроса — не JSON: {exc}") from None
    return value
