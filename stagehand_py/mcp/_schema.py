"""The ``schema`` argument of the extract tool, checked before the page or the model sees it:
bounded in depth and size (a client's schema is read in the server's event loop, where a
huge one would hold every tool past its deadline), and readable as a JSON Schema."""

from __future__ import annotations

from typing import Any

from .._errors import ConfigurationError
from ..extract._json_schema import model_from_json_schema

# Nesting of objects and lists in the JSON text: 40 holds 19 levels of objects in properties.
MAX_DEPTH = 40
# Values of every kind (objects, lists, strings, numbers...) and characters of the strings.
MAX_VALUES = 5_000
MAX_CHARS = 200_000


def checked_schema(schema: dict[str, Any] | None) -> dict[str, Any] | None:
    """``schema`` when it is one extract() can use, else a ConfigurationError saying why."""
    if schema is None:
        return None
    _bounded(schema)
    model_from_json_schema(schema)  # one that cannot be read is a ConfigurationError
    return schema


def _bounded(schema: dict[str, Any]) -> None:
    values, chars = 0, 0
    stack: list[tuple[Any, int]] = [(schema, 1)]
    while stack:
        value, depth = stack.pop()
        values += 1
        if isinstance(value, dict):
            chars += sum(len(str(key)) for key in value)
            stack.extend((item, depth + 1) for item in value.values())
        elif isinstance(value, list):
            stack.extend((item, depth + 1) for item in value)
        elif isinstance(value, str):
            chars += len(value)
        deep = isinstance(value, (dict, list)) and depth > MAX_DEPTH
        if deep or values > MAX_VALUES or chars > MAX_CHARS:
            raise ConfigurationError(
                "extract schema is too large: give a schema of the fields to read, at most "
                f"{MAX_DEPTH} levels of nesting, {MAX_VALUES:,} values and {MAX_CHARS:,} "
                "characters of names and descriptions."
            )
