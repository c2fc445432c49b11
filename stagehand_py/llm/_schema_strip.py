"""JSON schemas as sent to local servers: without the keywords their grammars cannot handle.

llama.cpp turns a schema into a grammar to constrain the model; a ``pattern`` it cannot
translate crashes the server, and other servers choke on ``format`` values they do not know.
The schema sent is a loosened copy; the answer is still validated here against the full
pydantic model, and a value that breaks a dropped rule is re-asked like any other error.
"""

from __future__ import annotations

from typing import Any

# Keywords removed wherever a schema can stand.
DROPPED_KEYWORDS = frozenset(
    {
        "pattern",
        "patternProperties",
        "format",
        "contentEncoding",
        "contentMediaType",
        "multipleOf",
        "propertyNames",
        "dependentRequired",
        "dependentSchemas",
        "unevaluatedProperties",
        "unevaluatedItems",
        "if",
        "then",
        "else",
        "not",
    }
)
# Keywords whose value is a schema, a list of schemas, or a name -> schema mapping.
_ONE = ("additionalProperties", "items", "contains", "additionalItems")
_MANY = ("anyOf", "oneOf", "allOf", "prefixItems")
_NAMED = ("properties", "$defs", "definitions")


def strip_schema(schema: Any) -> Any:
    """A copy of ``schema`` without :data:`DROPPED_KEYWORDS`, at every level that is a schema
    (a property *named* ``pattern`` or ``format`` is kept: only keywords are dropped)."""
    if not isinstance(schema, dict):
        return schema
    stripped: dict[str, Any] = {}
    for key, value in schema.items():
        if key in DROPPED_KEYWORDS:
            continue
        if key in _ONE:
            stripped[key] = strip_schema(value) if isinstance(value, dict) else value
            if isinstance(value, list):  # the old tuple form of "items"
                stripped[key] = [strip_schema(item) for item in value]
        elif key in _MANY and isinstance(value, list):
            stripped[key] = [strip_schema(item) for item in value]
        elif key in _NAMED and isinstance(value, dict):
            stripped[key] = {name: strip_schema(item) for name, item in value.items()}
        else:
            stripped[key] = value
    return stripped
