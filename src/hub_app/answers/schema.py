"""The JSON Schema of an answer type, built the way the OpenAPI document builds it (one source): Litestar's schema
generation with :class:`DocumentedAttrsPlugin`, the schemas it refers to inlined under ``$defs``.

The MCP tools declare theirs as ``outputSchema`` (:mod:`hub_app.mcp.tools`), so an assistant's client can check
each answer's ``structuredContent``; the HTTP API's answers of the same types are documented by the same plugin
(:mod:`hub_app.api.openapi`). Litestar's schema creator is the object it hands every schema plugin
(:class:`~litestar.plugins.OpenAPISchemaPlugin`); it is built here the same way, outside an app.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

import attrs
from litestar._openapi.schema_generation import SchemaCreator
from litestar.openapi.spec import Schema
from litestar.plugins.attrs import AttrsSchemaPlugin
from litestar.typing import FieldDefinition

from hub_app.bodies.parsing import documented

__all__ = ["DocumentedAttrsPlugin", "answer_schema"]

_COMPONENTS = "#/components/schemas/"


class DocumentedAttrsPlugin(AttrsSchemaPlugin):
    """attrs bodies and answers as Litestar documents them, leaving out fields marked ``doc: False`` and naming a
    field by its ``json`` metadata where the Python name differs (``from_`` → ``from``)."""

    def to_openapi_schema(self, field_definition: FieldDefinition, schema_creator: Any) -> Schema:
        hints = field_definition.get_type_hints(include_extras=True, resolve_generics=True)
        shown = [f for f in attrs.fields(field_definition.type_) if documented(f.metadata)]
        names = {f.name: f.metadata.get("json", f.name) for f in shown}
        schema: Schema = schema_creator.create_component_schema(
            field_definition,
            required=sorted(names[f.name] for f in shown if f.default is attrs.NOTHING),
            property_fields={names[f.name]: FieldDefinition.from_kwarg(hints[f.name], names[f.name]) for f in shown},
        )
        return schema


def _local_refs(value: Any) -> Any:
    """``#/components/schemas/X`` → ``#/$defs/X``, everywhere in ``value``."""
    if isinstance(value, dict):
        return {
            key: ("#/$defs/" + item.removeprefix(_COMPONENTS)) if key == "$ref" else _local_refs(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_local_refs(item) for item in value]
    return value


@functools.cache
def _schema(answer: Any) -> dict[str, Any]:
    creator = SchemaCreator(plugins=[DocumentedAttrsPlugin()], prefer_alias=False)
    top = creator.for_field_definition(FieldDefinition.from_annotation(answer))
    defs = {name: schema.to_schema() for name, schema in creator.schema_registry.generate_components_schemas().items()}
    root = top.to_schema()
    name = root["$ref"].removeprefix(_COMPONENTS) if "$ref" in root else None
    if name is not None:
        root = defs.pop(name)
    schema: dict[str, Any] = _local_refs(root)
    if defs:
        schema["$defs"] = _local_refs(defs)
    return schema


def answer_schema(answer: Any) -> dict[str, Any]:
    """The JSON Schema (2020-12) of the answer type ``answer`` (an attrs class, or ``Items[...]`` of one): an
    object at its root, the types it refers to under ``$defs``."""
    return copy.deepcopy(_schema(answer))
