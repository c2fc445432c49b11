"""The secret guard: find a variable's value anywhere in what an entry would write.

Entries hold placeholders (``<|PASSWORD|>``), never values; a value can still sneak in through
an instruction or URL that contains it literally, or a model that typed it instead of the
placeholder. Every text field an entry writes is checked, including percent-encoded forms
(URLs). The digest and timestamps are ours, derived from nothing secret, and not checked: a
short value like "2" would otherwise match every timestamp.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, quote_plus

from ._entry import CacheEntry

_GENERATED_FIELDS = frozenset({"key", "created_at", "updated_at", "format_version"})


def _forms(value: str) -> set[str]:
    """The value as written, and as it appears once percent-encoded in a URL."""
    return {value, quote(value, safe=""), quote(value), quote_plus(value)}


def _strings(data: Any, path: str) -> Iterable[tuple[str, str]]:
    """Every (field path, text) in JSON-like ``data``, dictionary keys included."""
    if isinstance(data, str):
        yield path, data
    elif isinstance(data, dict):
        for key, value in data.items():
            yield f"{path}.{key}" if path else str(key), str(key)
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
    forms = {form for value in secret_values if value for form in _forms(value)}
    if not forms:
        return None
    data = entry.model_dump(mode="json", exclude=set(_GENERATED_FIELDS))
    for path, text in _strings(data, ""):
        if any(form in text for form in forms):
            return _describe(path)
    return None
