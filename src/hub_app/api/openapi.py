"""The OpenAPI document at ``/schema/openapi.json``: every body, answer and error, the bearer scheme, and the
command parameters' JSON Schema taken from the command catalogue (the same one the MCP tool ``batch_create``
shows). ``/schema`` itself is the page's (:mod:`hub_app.web.views.schema_page`, wired by
:func:`hub_app.app.create_app`): no viewer from a CDN, nothing that leaves the hub's origin.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from litestar.openapi.config import OpenAPIConfig
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.plugins import OpenAPIRenderPlugin
from litestar.openapi.spec import Components, OpenAPIType, Schema, SecurityScheme
from litestar.plugins import OpenAPISchemaPlugin
from litestar.typing import FieldDefinition

from hub_app.answers.schema import DocumentedAttrsPlugin
from hub_app.answers.wire import ErrorView
from hub_app.bodies.batches import CommandIn
from reconcile.vocabulary import batch_create_schema

__all__ = ["BEARER", "CommandSchemaPlugin", "DocumentedAttrsPlugin", "errors", "openapi_config"]

BEARER = "bearer"

_ERRORS = {
    400: "тело или параметры запроса не читаются (не JSON, слишком глубоко, не того типа)",
    401: "нет токена, или он неизвестен или отозван",
    403: "роли токена это не разрешено",
    404: "такого объекта нет",
    409: "конфликт с состоянием (команда уже выдана агенту, второй агент, …)",
    413: "тело больше допустимого",
    422: (
        "нарушено правило: сообщение спецификации, ничего не записано; пакет, не прошедший проверку, "
        "добавляет errors — каждую найденную ошибку, первая из них — detail"
    ),
    503: "база данных не отвечает",
}

_KEYS = {
    "anyOf": "any_of",
    "oneOf": "one_of",
    "allOf": "all_of",
    "not": "schema_not",
    "minLength": "min_length",
    "maxLength": "max_length",
    "minItems": "min_items",
    "maxItems": "max_items",
    "minProperties": "min_properties",
    "additionalProperties": "additional_properties",
}


def schema_of(value: Mapping[str, Any]) -> Schema:
    """A JSON Schema (as the catalogue writes it) as Litestar's OpenAPI schema object."""
    fields: dict[str, Any] = {}
    for key, item in value.items():
        converted: Any = item
        if key == "type":
            converted = OpenAPIType(item)
        elif key == "properties":
            converted = {prop: schema_of(sub) for prop, sub in item.items()}
        elif key in ("items", "not") or (key == "additionalProperties" and isinstance(item, Mapping)):
            converted = schema_of(item)
        elif key in ("anyOf", "oneOf", "allOf"):
            converted = [schema_of(sub) for sub in item]
        fields[_KEYS.get(key, key)] = converted
    return Schema(**fields)


def errors(*codes: int) -> dict[int, ResponseSpec]:
    """The error answers a route may give, each ``{status_code, detail}`` (a refused batch's 422 adds ``errors``)."""
    return {
        code: ResponseSpec(data_container=ErrorView, description=_ERRORS[code], generate_examples=False)
        for code in codes
    }


class CommandSchemaPlugin(OpenAPISchemaPlugin):
    """A batch's command is documented by the command catalogue: one schema per type, as MCP shows it."""

    @staticmethod
    def is_plugin_supported_type(value: Any) -> bool:
        return value is CommandIn

    def to_openapi_schema(self, field_definition: FieldDefinition, schema_creator: Any) -> Schema:
        return schema_of(batch_create_schema()["properties"]["commands"]["items"])


def openapi_config(*, version: str, page: OpenAPIRenderPlugin) -> OpenAPIConfig:
    """The document's settings; ``page`` renders ``/schema`` itself."""
    return OpenAPIConfig(
        title="sdlc-hub",
        version=version,
        path="/schema",
        description=(
            "Хаб планирования Jira банка: пакеты команд желаемого состояния, очередь агента, зеркало Jira. "
            "Ошибки — {status_code, detail} с сообщением спецификации."
        ),
        components=Components(
            security_schemes={
                BEARER: SecurityScheme(type="http", scheme="bearer", description="токен хаба: sdlc-hub token add")
            }
        ),
        use_handler_docstrings=True,
        render_plugins=[page],
    )
