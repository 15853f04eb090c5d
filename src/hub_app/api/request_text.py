"""The path and the query of a request are text too (DESIGN.md 3): valid UTF-8, no NUL, or 422 naming where.

Servers decode percent-escapes leniently (invalid UTF-8 becomes U+FFFD, ``%00`` a NUL), so the raw bytes are
checked here, before any handler sees the decoded values: a NUL in a key would reach the database, and a
replaced file name would be stored as something the client never sent. A web form's fields are percent-escaped
the same way (:func:`check_form_encoding`); their NULs are left to the body the page makes of them, which is held
to the API's rule where its refusal can be shown next to the form.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote_to_bytes

from litestar import Request

from reconcile.errors import ValidationError
from reconcile.text import check_text

__all__ = ["check_form_encoding", "check_path_and_query"]

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


async def check_path_and_query(request: Request[Any, Any, Any]) -> None:
    """Before any handler: 422 «недопустимый символ в <параметр>» (or «… в пути запроса»)."""
    scope = request.scope
    raw_path = scope.get("raw_path")
    if isinstance(raw_path, bytes):
        _decoded(raw_path, _PATH)
    else:
        check_text(str(scope.get("path", "")), _PATH)
    _query(scope.get("query_string", b""))
