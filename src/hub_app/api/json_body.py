"""Request bodies reach the hub as the JSON the client sent, described by a type but decided by the core.

:class:`CoreJson` is a Litestar DTO that hands the handler the parsed JSON value itself (``data: Any``) while
the OpenAPI document describes the body by the type it is narrowed with (``CoreJson[BatchIn]``). The core then
checks the value and words every refusal (the seed's 422s), where Litestar's own validation would answer 400
in its own words. The bytes are read by :func:`hub_app.runtime.request_text.decode_json`, strict about what the database
and Jira cannot hold.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, Generic, TypeVar

from litestar.dto import AbstractDTO, DTOConfig
from litestar.dto.data_structures import DTOFieldDefinition
from litestar.typing import FieldDefinition

from hub_app.runtime.request_text import decode_json

__all__ = ["CoreJson"]

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
        """Nothing to prepare: the bytes go to the core as they are (the handler's ``data`` is ``Any``)."""

    def decode_bytes(self, value: bytes) -> Any:
        return decode_json(value)

    def decode_builtins(self, value: Any) -> Any:
        return value

    def encode_data(self, data: Any) -> Any:
        return data

    @classmethod
    def create_openapi_schema(cls, field_definition: FieldDefinition, handler_id: str, schema_creator: Any) -> Any:
        return schema_creator.for_field_definition(FieldDefinition.from_annotation(cls.model_type))
