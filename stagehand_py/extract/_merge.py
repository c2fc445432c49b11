"""Merge the partial answers of several chunks into one.

Plain JSON-like data in, plain data out: lists are concatenated without duplicates (chunks
overlap, so the same row is often reported twice), nested objects are merged field by
field, and a scalar is kept once found (a later chunk cannot overwrite it). ``None`` and
``""`` count as "not found".
"""

from __future__ import annotations

import json
import re
from typing import Any

_SPACES = re.compile(r"\s+")


def _normalised(value: Any) -> Any:
    if isinstance(value, str):
        return _SPACES.sub(" ", value).strip()
    if isinstance(value, dict):
        return {k: _normalised(v) for k, v in value.items() if not _missing(v)}
    if isinstance(value, list | tuple):
        return [_normalised(v) for v in value]
    return value


def identity(value: Any) -> str:
    """A key equal for items that differ only in whitespace or in fields left empty."""
    return json.dumps(_normalised(value), sort_keys=True, default=str)


def _missing(value: Any) -> bool:
    return value is None or value == ""


def merge(found: Any, new: Any) -> Any:
    """``found`` (what earlier chunks gave) combined with ``new`` (the next chunk's answer)."""
    if _missing(found):
        return new
    if _missing(new):
        return found
    if isinstance(found, dict) and isinstance(new, dict):
        return {key: merge(found.get(key), new.get(key)) for key in {**found, **new}}
    if isinstance(found, list) and isinstance(new, list):
        seen = {identity(item) for item in found}
        return [*found, *(item for item in new if identity(item) not in seen)]
    return found


def filled_fields(data: Any) -> list[str]:
    """Top-level keys with a value, for telling the model what earlier chunks already found."""
    if not isinstance(data, dict):
        return []
    return [key for key, value in data.items() if not _missing(value) and value != []]
