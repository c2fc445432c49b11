"""Reading a compiled field: from what the page holds to the value, and back to a recipe.

:func:`read_value` applies a stored :class:`~stagehand_py.cache._extraction.FieldRead` to
what the browser read; :func:`recipes_for` lists every recipe that turns what one element
holds into the model's value, best first. Pure functions, shared by the compiler and the
replay so that both read a page the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

from ..cache._extraction import MAX_AFFIX_CHARS, FieldRead, ReadKind, Transform, attribute_allowed

Redact = Callable[[str], str]
_SPACES = re.compile(r"\s+")
# A number as pages write it: optional sign, digits with thousands separators, a fraction.
_NUMBER_DOT = re.compile(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?")
_NUMBER_COMMA = re.compile(r"-?\d{1,3}(?:[.\s\u00a0\u202f]\d{3})+(?:,\d+)?|-?\d+(?:,\d+)?")
_URL_ATTRIBUTES = frozenset({"href", "src"})


class Unreadable(Exception):
    """A stored recipe does not read a value here; the message says why, never a value."""


@dataclass(frozen=True)
class Recipe:
    """How one element's content becomes one value (the element itself is placed apart)."""

    read: ReadKind
    transform: Transform
    attribute: str = ""
    prefix: str = ""
    suffix: str = ""


@dataclass(frozen=True)
class ElementFacts:
    """What the compiler may read from one element: tag, text, value, state, attributes."""

    tag: str
    text: str
    value: str | None
    checked: bool | None
    attributes: dict[str, str]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ElementFacts:
        attrs = data.get("attrs") or {}
        return cls(
            tag=str(data.get("tag", "")),
            text=str(data.get("text") or ""),
            value=data["value"] if isinstance(data.get("value"), str) else None,
            checked=data["checked"] if isinstance(data.get("checked"), bool) else None,
            attributes={str(k): str(v) for k, v in attrs.items()},
        )


def squash(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def parse_number(text: str, transform: Transform) -> int | float | None:
    """The first number in ``text``: ``number`` reads ``1,299.50``, ``number_comma``
    ``1.299,50``; an int when it has no fraction."""
    pattern = _NUMBER_COMMA if transform == "number_comma" else _NUMBER_DOT
    match = pattern.search(text)
    if match is None:
        return None
    written = match.group(0)
    if transform == "number_comma":
        whole, _, fraction = written.partition(",")
        whole = re.sub(r"[.\s\u00a0\u202f]", "", whole)
    else:
        whole, _, fraction = written.partition(".")
        whole = whole.replace(",", "")
    return float(f"{whole}.{fraction}") if fraction else int(whole)


def apply_recipe(
    recipe: Recipe | FieldRead, raw: Any, *, base: str, redact: Redact
) -> str | int | float | bool:
    """The value ``recipe`` makes of ``raw`` (what the browser read); :class:`Unreadable`."""
    if recipe.transform == "boolean":
        if not isinstance(raw, bool):
            raise Unreadable("it is no longer a checkbox or radio button")
        return raw
    if not isinstance(raw, str):
        what = f"attribute {recipe.attribute}" if recipe.read == "attribute" else recipe.read
        raise Unreadable(f"the element has no {what}")
    if recipe.transform == "url":
        return redact(urljoin(base, raw.strip()))
    text = _cut(squash(redact(raw)), recipe.prefix, recipe.suffix)
    if recipe.transform == "text":
        return text
    match = _number_match(text, recipe.transform)
    if match is None or match.group(0) != text:
        raise Unreadable("its text is no longer one number")
    number = parse_number(text, recipe.transform)
    if number is None:
        raise Unreadable("its text is no longer one number")
    return number


def _cut(text: str, prefix: str, suffix: str) -> str:
    if len(text) < len(prefix) + len(suffix) or not text.startswith(prefix):
        raise Unreadable(f"its text no longer starts with {prefix!r}")
    if not text.endswith(suffix):
        raise Unreadable(f"its text no longer ends with {suffix!r}")
    return text[len(prefix) : len(text) - len(suffix)]


def same_value(made: Any, wanted: Any) -> bool:
    """Equal as the schema will see them (``3`` and ``3.0`` are; ``True`` and ``1`` not)."""
    if isinstance(made, bool) or isinstance(wanted, bool):
        return type(made) is type(wanted) and made == wanted
    return bool(made == wanted)


def _sources(facts: ElementFacts) -> list[tuple[ReadKind, str, str]]:
    found: list[tuple[ReadKind, str, str]] = [("text", "", facts.text)]
    if facts.value is not None:
        found.append(("value", "", facts.value))
    for name, value in sorted(facts.attributes.items()):
        if attribute_allowed(name):
            found.append(("attribute", name, value))
    return found


def recipes_for(value: Any, facts: ElementFacts, *, base: str, redact: Redact) -> list[Recipe]:
    """Every recipe that turns ``facts`` into ``value``, most direct first (exact reads,
    then numbers, then text around the value cut off)."""
    if isinstance(value, bool):
        if facts.checked is not None and facts.checked == value:
            return [Recipe("checked", "boolean")]
        return []
    if not isinstance(value, str | int | float):
        return []
    found: list[Recipe] = []
    for read, attribute, raw in _sources(facts):
        shown = squash(redact(raw))
        if isinstance(value, str):
            if attribute in _URL_ATTRIBUTES and redact(urljoin(base, raw.strip())) == value:
                found.append(Recipe(read, "url", attribute))
            if shown == value:
                found.append(Recipe(read, "text", attribute))
        else:
            found.extend(_numbers(value, shown, read, attribute))
    if isinstance(value, str) and value:
        found.extend(_affixed(value, facts, redact))
    return found


def _numbers(value: float, shown: str, read: ReadKind, attribute: str) -> list[Recipe]:
    """Number recipes: the first number in the text, with the (digit-free) text around it
    kept as a constant prefix and suffix, so that another number in its place is refused."""
    found: list[Recipe] = []
    for transform in ("number", "number_comma"):
        match = _number_match(shown, transform)
        if match is None or not same_value(parse_number(match.group(0), transform), value):
            continue
        prefix, suffix = shown[: match.start()], shown[match.end() :]
        if len(prefix) > MAX_AFFIX_CHARS or len(suffix) > MAX_AFFIX_CHARS:
            continue
        if any(c.isdigit() for c in prefix + suffix):
            continue
        found.append(Recipe(read, transform, attribute, prefix, suffix))
    return found


def _number_match(text: str, transform: Transform) -> re.Match[str] | None:
    return (_NUMBER_COMMA if transform == "number_comma" else _NUMBER_DOT).search(text)


def _affixed(value: str, facts: ElementFacts, redact: Redact) -> list[Recipe]:
    """Text recipes that cut a short constant prefix and/or suffix around ``value``."""
    found: list[Recipe] = []
    for read, attribute, raw in _sources(facts):
        shown = squash(redact(raw))
        at = shown.find(value)
        if at < 0 or shown == value:
            continue
        prefix, suffix = shown[:at], shown[at + len(value) :]
        if len(prefix) <= MAX_AFFIX_CHARS and len(suffix) <= MAX_AFFIX_CHARS:
            found.append(Recipe(read, "text", attribute, prefix, suffix))
    return found
