"""The secret guard of every store (the action cache, the workflow history): find a variable's
value anywhere in what a store would write.

Entries hold placeholders (``<|PASSWORD|>``), never values; a value can still sneak in through
an instruction or URL that contains it literally, a model that typed it instead of the
placeholder, or a selector or fingerprint that quotes the page's echo of it (often changed:
``ADA@EXAMPLE.ORG`` on a confirmation banner). :class:`ValueScanner` finds every form a page,
a URL or a log would give it:

- as written, and percent-encoded in a URL (matched anywhere, for a value of at least
  ``SHORT_VALUE_CHARS`` characters);
- in any case (upper, lower, mixed), with its whitespace collapsed, dropped or encoded, and
  entity- or JSON-escaped: the forms :class:`~stagehand_py._redaction.Redactor` redacts;
- in part: the local part of an e-mail address (``ada.lovelace`` of
  ``ada.lovelace@example.org``) names the person as well as the whole address does.

A short value or part (under ``SHORT_VALUE_CHARS`` characters) is found in those derived forms
only as a whole token outside the package's own markup, as redaction does: "Al" is not found
in "Alpha". The digest and timestamps a store generates are not checked: a short value like
"2" would otherwise match every timestamp. Nor are the package's own vocabulary (a step's
method, an element's tag and role, attribute names a fingerprint keeps) and the variable names:
a quantity of 1 must not be found in ``input[1]``'s method ``fill``, nor "text" in a field name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, quote_plus

from .._redaction import SHORT_VALUE_CHARS, Redactor
from ._entry import CacheEntry
from ._fingerprint import KEY_ATTRIBUTES

_GENERATED_FIELDS = frozenset({"key", "created_at", "updated_at", "format_version"})
# Field paths of the package's vocabulary and the variable names (not page text or values).
_VOCABULARY = re.compile(
    r"^(kind|variable_names\[\d+\])$|\]\.(method|fingerprint\.tag|fingerprint\.role)$"
)
# An e-mail address: its local part is a form of the value on its own.
_EMAIL = re.compile(r"^\s*([^@\s]+)@[^@\s]+\.[^@\s]+\s*$")
_MIN_PART_CHARS = 3  # a shorter part ("qa" of qa@x.org) would be found in too much


def _forms(value: str) -> set[str]:
    """The value as written, and as it appears once percent-encoded in a URL."""
    return {value, quote(value, safe=""), quote(value), quote_plus(value)}


def partial_forms(value: str) -> list[str]:
    """The parts of ``value`` that give it away on their own: an e-mail's local part."""
    found = _EMAIL.match(value)
    if found is None or len(found.group(1)) < _MIN_PART_CHARS:
        return []
    return [found.group(1)]


def _strings(data: Any, path: str) -> Iterable[tuple[str, str]]:
    """Every (field path, text) in JSON-like ``data``, dictionary keys included but for the
    attribute names a fingerprint keeps (the package's own)."""
    if isinstance(data, str):
        yield path, data
    elif isinstance(data, dict):
        for key, value in data.items():
            inner = f"{path}.{key}" if path else str(key)
            if not (path.endswith("attributes") and key in KEY_ATTRIBUTES):
                yield inner, str(key)
            yield from _strings(value, inner)
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _strings(value, f"{path}[{index}]")


class ValueScanner:
    """Finds any of ``secret_values``, in any form (see the module docstring), in a text or
    in JSON-like data. Built once per set of values; never shows them (``repr``)."""

    def __init__(self, secret_values: Iterable[str]) -> None:
        values = [value for value in secret_values if value]
        long = [value for value in values if len(value) >= SHORT_VALUE_CHARS]
        self._literal = {form for value in long for form in _forms(value)}
        self._any = bool(values)
        derived = [(f"v{n}", value) for n, value in enumerate(values)]
        parts = [part for value in values for part in partial_forms(value)]
        derived += [(f"p{n}", part) for n, part in enumerate(parts)]
        self._derived = Redactor(derived)

    def __bool__(self) -> bool:
        return self._any

    def __repr__(self) -> str:  # never the values
        return f"ValueScanner({len(self._literal)} form(s))"

    def holds(self, text: str) -> bool:
        """True when ``text`` holds a value in any form."""
        if not text or not self:
            return False
        return any(form in text for form in self._literal) or self._derived.contains(text)

    def find(self, data: Any, skip: re.Pattern[str] | None = None) -> str | None:
        """Where in JSON-like ``data`` a value occurs (a field path, never the value); paths
        ``skip`` matches are not read."""
        if not self:
            return None
        for path, text in _strings(data, ""):
            if (skip is None or not skip.search(path)) and self.holds(text):
                return path
        return None


def find_value(data: Any, secret_values: Iterable[str]) -> str | None:
    """Where in JSON-like ``data`` one of ``secret_values`` occurs in any form, else None."""
    return ValueScanner(secret_values).find(data)


def _describe(path: str) -> str:
    # "actions[1].arguments[0]" -> "action 2 arguments[0]": readable without the value.
    if path.startswith("actions["):
        index, _, rest = path[len("actions[") :].partition("]")
        return f"action {int(index) + 1} {rest.lstrip('.') or 'step'}"
    return path


def find_secret(entry: CacheEntry, secret_values: Iterable[str]) -> str | None:
    """Where in ``entry`` a secret value occurs (a field path, never the value), else None."""
    data = entry.model_dump(mode="json", exclude=set(_GENERATED_FIELDS))
    where = ValueScanner(secret_values).find(data, skip=_VOCABULARY)
    return None if where is None else _describe(where)
