"""Request bodies reach the hub as the JSON the client sent, read into the handler's body type with the hub's words.

A handler names its body once, as the type of its ``data`` (``data: ClaimIn``): :class:`TypedBodies`, a plugin of the
app, gives each such route the DTO :class:`ParsedBody` narrowed with that type, which reads the bytes by
:func:`hub_app.runtime.request_text.decode_json` (strict about what the database and Jira cannot hold) and the JSON
value by :func:`hub_app.bodies.parsing.parse` — the 422s in Russian naming the field, where Litestar's own validation
would answer 400 in its own words — and documents 400 and 413 for it. An empty body is no JSON (``null``), which
the body type then judges as it judges ``{}``: Litestar would hand such a request no ``data`` at all.

A route whose body the core reads whole (a batch, the settings: every error in the seed's words) takes ``data:
Any`` and says the type it documents with ``route(body=…)``: :class:`CoreJson` hands it the parsed JSON value
itself while the OpenAPI document describes the body by that type.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Generator
from typing import Any, Generic, TypeVar

from litestar.config.app import AppConfig
from litestar.connection import Request
from litestar.dto import AbstractDTO, DTOConfig
from litestar.dto.data_structures import DTOFieldDefinition
from litestar.handlers import HTTPRouteHandler
from litestar.plugins import InitPlugin
from litestar.typing import FieldDefinition

from hub_app.api.openapi import errors
from hub_app.bodies.parsing import is_body, parse
from hub_app.runtime.request_text import decode_json

__all__ = ["CoreJson", "ParsedBody", "TypedBodies"]

T = TypeVar("T")


class CoreJson(AbstractDTO[T], Generic[T]):
    """The body as parsed JSON for the handler; its type for the OpenAPI document."""

    config = DTOConfig()

    @classmethod
    def generate_field_definitions(cls, model_type: type[Any]) -> Generator[DTOFieldDefinition, None, None]:
        yield from ()

    @classmethod
    def detect_nested_field(cls, field_definition: FieldDefinition) -> bool:
        return False

    @classmethod
    def create_for_field_definition(
        cls, field_definition: FieldDefinition, handler_id: str, backend_cls: Any = None
    ) -> None:
        """Nothing to prepare: the bytes are read when a request comes."""

    def decode_bytes(self, value: bytes) -> Any:
        return decode_json(value)

    def decode_builtins(self, value: Any) -> Any:
        return value

    def encode_data(self, data: Any) -> Any:
        return data

    @classmethod
    def create_openapi_schema(cls, field_definition: FieldDefinition, handler_id: str, schema_creator: Any) -> Any:
        return schema_creator.for_field_definition(FieldDefinition.from_annotation(cls.model_type))


class ParsedBody(CoreJson[T], Generic[T]):
    """The body read into its type (:func:`hub_app.bodies.parsing.parse`: 422 naming the field)."""

    def decode_bytes(self, value: bytes) -> Any:
        return parse(self.model_type, decode_json(value))


class _BodyRequest(Request[Any, Any, Any]):
    """A request whose empty body reads as the JSON ``null`` (a body type judges it as ``{}``)."""

    async def body(self) -> bytes:
        return await super().body() or b"null"


class TypedBodies(InitPlugin):
    """Each route whose ``data`` is a body type reads its body with :class:`ParsedBody` of that type."""

    def on_app_init(self, app_config: AppConfig) -> AppConfig:
        for handler in app_config.route_handlers:
            if isinstance(handler, HTTPRouteHandler) and (body := _body_type(handler)) is not None:
                handler.dto = ParsedBody[body]  # type: ignore[valid-type]
                handler.return_dto = None
                handler.request_class = _BodyRequest
                handler.responses = {**errors(400, 413), **(handler.responses or {})}
        return app_config


def _body_type(handler: HTTPRouteHandler) -> type[Any] | None:
    """The body type a handler's ``data`` names, if it names one."""
    if "data" not in inspect.signature(handler.fn).parameters:
        return None
    hint = typing.get_type_hints(handler.fn)["data"]
    return hint if is_body(hint) else None
