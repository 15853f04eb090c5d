"""The JSON an answer becomes, whichever door gives it: UTC times with ``Z`` (:func:`iso`), pages of a list
(:class:`Items`), the error shape, and :func:`to_json`, the one converter the API and the MCP tools answer with (so
the two doors never disagree).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Generic, TypeVar, overload

import attrs
import cattrs
from cattrs.gen import make_dict_unstructure_fn, override

from hub_app.bodies.parsing import documented
from reconcile.vocabulary import HistoryEntry, MirrorLink, SprintRef, utc_text
from reconcile.vocabulary import converter as records_converter

__all__ = ["BatchErrorView", "ErrorView", "Items", "iso", "to_json"]

T = TypeVar("T")


@overload
def iso(value: datetime) -> str: ...
@overload
def iso(value: datetime | None) -> str | None: ...
def iso(value: datetime | None) -> str | None:
    """UTC ISO-8601 with ``Z`` (``None`` stays ``None``)."""
    if value is None:
        return None
    return utc_text(value, "auto")


@attrs.frozen(kw_only=True)
class BatchErrorView:
    """One error of a refused batch: ``command`` its 1-based position (``null`` for the batch's own fields and
    notes), ``param`` the parameter it is about (absent when none)."""

    command: int | None
    message: str
    param: str | None = None


@attrs.frozen(kw_only=True)
class ErrorView:
    """Every error: the HTTP status and the message a person reads (the seed's words, in Russian); a batch
    refused by its validation (422, one error or more) adds ``errors``, every error found, the first of which is
    ``detail``; every other error has no ``errors``."""

    status_code: int
    detail: str
    errors: list[BatchErrorView] | None = None


@attrs.frozen(kw_only=True)
class Items(Generic[T]):
    """A page of a list and how many there are in all."""

    items: list[T]
    total: int


_converter = cattrs.Converter()
for _record in (HistoryEntry, SprintRef, MirrorLink):
    _converter.register_unstructure_hook(_record, records_converter.unstructure)
#: A view's ``dict[str, Any]`` (a command's parameters, a report's result, a predicted write) holds JSON already:
#: decoded from a request or the database, or built as JSON by the core. cattrs would walk every value of it
#: looking for something to convert (a fifth of a large dry run's answer); it is passed as it is.
_JSON_ALREADY = (dict[str, Any], list[dict[str, Any]])
_converter.register_unstructure_hook_func(lambda kind: kind in _JSON_ALREADY, lambda value: value)


def _undocumented(kind: Any) -> bool:
    return attrs.has(kind) and any(not documented(f.metadata) for f in attrs.fields(kind))


def _without_undocumented(kind: Any) -> Any:
    omitted: dict[str, Any] = {f.name: override(omit=True) for f in attrs.fields(kind) if not documented(f.metadata)}
    return make_dict_unstructure_fn(kind, _converter, **omitted)


# A field marked ``doc: False`` (the core's drift keeps the params reapply re-asserts) is neither documented nor sent.
_converter.register_unstructure_hook_factory(_undocumented, _without_undocumented)


def to_json(value: Any) -> Any:
    """The JSON value of a view (or of a list or mapping of views)."""
    if isinstance(value, Mapping):
        return {key: to_json(item) for key, item in value.items()}
    return _converter.unstructure(value)
