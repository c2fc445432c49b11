"""The secret guard: find a variable's value anywhere in what an entry would write.

Entries hold placeholders (``<|PASSWORD|>``), never values; a value can still sneak in through
an instruction or URL that contains it literally, or a model that typed it instead of the
placeholder. Every text field an entry writes is checked with the package's one redactor
(:mod:`stagehand_py._redaction`), so every form it finds counts: percent-encoded, entity- or
JSON-escaped, another letter case, collapsed whitespace. A value shorter than
``SHORT_VALUE_CHARS`` ("3", "Al") counts as a whole token only, as it is redacted: a cache
file may hold ``input[1]`` next to a quantity of 1 written as a word nowhere.

Not checked: the digest and timestamps (ours, derived from nothing secret: a short value like
"2" would otherwise match every timestamp), the variable names, and the package's own
vocabulary (field names, a step's method, an element's tag and role).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from .._redaction import Redactor
from ._entry import CacheEntry
from ._fingerprint import KEY_ATTRIBUTES

_GENERATED_FIELDS = frozenset({"key", "created_at", "updated_at", "format_version"})
# Field paths of the package's vocabulary and the variable names (not page text or values).
_VOCABULARY = re.compile(
    r"^(kind|variable_names\[\d+\])$|\]\.(method|fingerprint\.tag|fingerprint\.role)$"
)


def _strings(data: Any, path: str) -> Iterable[tuple[str, str]]:
    """Every (field path, text) in JSON-like ``data``, attribute names other than the ones a
    fingerprint keeps included (the entry's other keys are its schema's)."""
    if isinstance(data, str):
        yield path, data
    elif isinstance(data, dict):
        for key, value in data.items():
            if path.endswith("attributes") and key not in KEY_ATTRIBUTES:
                yield f"{path}.{key}", str(key)
            yield from _strings(value, f"{path}.{key}" if path else str(key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _strings(value, f"{path}[{index}]")


def _describe(path: str) -> str:
    # "actions[1].arguments[0]" -> "action 2 arguments[0]": readable without the value.
    if path.startswith("actions["):
        index, _, rest = path[len("actions[") :].partition("]")
        return f"action {int(index) + 1} {rest.lstrip('.') or 'step'}"
    return path


def find_secret(entry: CacheEntry, secret_values: Iterable[str]) -> str | None:
    """Where in ``entry`` a secret value occurs (a field path, never the value), else None."""
    redactor = Redactor(("VALUE", value) for value in secret_values if value)
    if not redactor:
        return None
    data = entry.model_dump(mode="json", exclude=set(_GENERATED_FIELDS))
    for path, text in _strings(data, ""):
        if not _VOCABULARY.search(path) and redactor.contains(text):
            return _describe(path)
    return None
