"""Turn a JSON-schema dict into a pydantic model, so both schema kinds share one code path.

Supported: object/array/string/integer/number/boolean/null (or a list of types), properties
and required, nested objects and arrays, ``enum``/``const``, ``anyOf``/``oneOf``, local
``$ref`` into ``$defs``/``definitions``, descriptions and defaults; ``format: uri`` is kept on
the field so URL fields are recognised. Anything else validates as ``Any``. Property names
that are not Python identifiers keep their name as the field's alias.
"""

from __future__ import annotations

import keyword
import re
from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, create_model

from .._error_line import first_line
from .._errors import ConfigurationError

_SIMPLE_TYPES: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "null": type(None),
}


class _Converter:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.defs: dict[str, Any] = {**root.get("definitions", {}), **root.get("$defs", {})}
        self.built: dict[str, Any] = {}
        self.names: set[str] = set()

    def _model_name(self, wanted: str) -> str:
        base = re.sub(r"\W", "_", wanted.title().replace(" ", "")) or "Object"
        name, n = base, 1
        while name in self.names:
            n += 1
            name = f"{base}{n}"
        self.names.add(name)
        return name

    def annotation(self, schema: Any, name: str) -> Any:
        if not isinstance(schema, dict) or not schema:
            return Any
        if "$ref" in schema:
            ref = str(schema["$ref"])
            key = ref.rsplit("/", 1)[-1]
            if key not in self.defs:
                raise ConfigurationError(f"extract() schema: cannot resolve $ref {ref!r}.")
            if key not in self.built:
                self.built[key] = Any  # a recursive reference validates loosely
                self.built[key] = self.annotation(self.defs[key], key)
            return self.built[key]
        if "const" in schema:
            return Literal[schema["const"]]
        if "enum" in schema:
            return Literal[tuple(schema["enum"])]
        for combinator in ("anyOf", "oneOf"):
            if combinator in schema:
                options = [self.annotation(s, name) for s in schema[combinator]]
                return Union[tuple(options)]  # noqa: UP007 (built at run time)
        kind = schema.get("type")
        if isinstance(kind, list):
            options = [self.annotation({**schema, "type": k}, name) for k in kind]
            return Union[tuple(options)]  # noqa: UP007
        if kind == "object" or (kind is None and "properties" in schema):
            if "properties" not in schema:
                return dict[str, Any]
            return self.model(schema, name)
        if kind == "array":
            return list[self.annotation(schema.get("items", {}), name + "Item")]  # type: ignore[misc]
        return _SIMPLE_TYPES.get(str(kind), Any)

    def model(self, schema: dict[str, Any], name: str) -> type[BaseModel]:
        required = set(schema.get("required", []))
        fields: dict[str, Any] = {}
        for prop, sub in schema.get("properties", {}).items():
            sub = sub if isinstance(sub, dict) else {}
            field_name = prop if prop.isidentifier() and not keyword.iskeyword(prop) else None
            if field_name is None or field_name.startswith("_"):
                field_name = "f_" + re.sub(r"\W", "_", prop).strip("_")
            extra = {"format": sub["format"]} if "format" in sub else None
            annotation = self.annotation(sub, str(sub.get("title") or prop))
            default: Any = ... if prop in required else sub.get("default")
            if prop not in required:
                annotation = Optional[annotation]  # noqa: UP045 (built at run time)
            fields[field_name] = (
                annotation,
                Field(
                    default,
                    alias=prop if prop != field_name else None,
                    description=sub.get("description"),
                    json_schema_extra=extra,
                ),
            )
        title = str(schema.get("title") or name)
        return create_model(
            self._model_name(title),
            __config__=ConfigDict(populate_by_name=True),
            **fields,
        )


def model_from_json_schema(schema: dict[str, Any]) -> tuple[type[BaseModel], bool]:
    """A pydantic model for ``schema`` and whether the schema's top level was an array
    (then the model has one field ``items`` holding it). A schema it cannot read (an enum of
    objects, an empty ``anyOf``, ``properties`` given as a list, nesting deeper than Python
    recurses...) is a ConfigurationError saying what is accepted."""
    try:
        return _model_from(schema)
    except ConfigurationError:
        raise
    except (TypeError, AttributeError, KeyError, IndexError, ValueError, RecursionError) as error:
        raise ConfigurationError(
            f"extract() schema is not a JSON Schema extract can read ({type(error).__name__}: "
            f"{first_line(error)}). Give an object schema with 'properties', each a type such "
            "as string, number, boolean, array or object, and enum lists of plain values; or "
            "pass a pydantic model class."
        ) from None


def _model_from(schema: dict[str, Any]) -> tuple[type[BaseModel], bool]:
    if schema.get("type") == "array":
        wrapped = {**schema, "type": "object", "properties": {"items": schema}}
        wrapped["required"] = ["items"]
        wrapped["properties"] = {"items": {k: v for k, v in schema.items() if k != "$defs"}}
        return _Converter(schema).model(wrapped, str(schema.get("title") or "Extraction")), True
    if schema.get("type", "object") != "object" or "properties" not in schema:
        raise ConfigurationError(
            "extract() needs a JSON schema of type 'object' with 'properties' (or of type "
            "'array'); pass a pydantic model class instead for anything else."
        )
    return _Converter(schema).model(schema, str(schema.get("title") or "Extraction")), False
