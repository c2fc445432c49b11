"""What an extract() was asked to produce: a pydantic model, a JSON schema, or plain text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_origin

from pydantic import BaseModel, Field

from .._errors import ConfigurationError
from ._json_schema import model_from_json_schema
from ._schema import SchemaPlan, strip_optional, subclass_of

TargetKind = Literal["model", "json", "text"]


class TextAnswer(BaseModel):
    """The answer of an extract() called without a schema."""

    text: str = Field(
        description="The text of the page that answers the instruction, as written there."
    )


@dataclass
class ExtractTarget:
    """The user's schema in the one shape the extraction loop works with."""

    kind: TargetKind
    model: type[BaseModel]
    plan: SchemaPlan
    array_wrapped: bool = False  # a JSON schema of type array, held in the field ``items``

    @classmethod
    def from_schema(cls, schema: type[BaseModel] | dict[str, Any] | None) -> ExtractTarget:
        if schema is None:
            return cls("text", TextAnswer, SchemaPlan(TextAnswer))
        if isinstance(schema, dict):
            model, wrapped = model_from_json_schema(schema)
            return cls("json", model, SchemaPlan(model), wrapped)
        if subclass_of(schema, BaseModel):
            return cls("model", schema, SchemaPlan(schema))
        raise ConfigurationError(
            f"extract() schema must be a pydantic model class, a JSON-schema dict or None, "
            f"not {type(schema).__name__}."
        )

    def finish(self, data: dict[str, Any]) -> Any:
        """Validate the merged data; raises pydantic's ValidationError when it does not fit."""
        instance = self.model.model_validate(fill_gaps(self.model, data))
        if self.kind == "model":
            return instance
        value = instance.model_dump(mode="json", by_alias=True, exclude_unset=True)
        return value["items"] if self.array_wrapped else value


def fill_gaps(model: type[BaseModel], data: dict[str, Any]) -> dict[str, Any]:
    """What no chunk found, made to mean what the user's schema says it should.

    A field never found takes its default (the key is left out); a required list never found
    is empty (nothing of the kind was on the page); nested objects are filled the same way.
    Anything else stays missing, and validation says so.
    """
    out: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        key = info.alias or name
        if key not in data:
            continue
        value = data[key]
        core, _ = strip_optional(info.annotation)
        if value is None and not info.is_required():
            continue
        if value is None and (get_origin(core) is list or core is list):
            value = []
        elif isinstance(value, dict) and subclass_of(core, BaseModel):
            value = fill_gaps(core, value)
        out[key] = value
    return out
