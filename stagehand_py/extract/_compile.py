"""Compile an extract() answer into reads, and read a page with them again (pure).

The model answers with the data and, for each leaf, the number(s) of the element(s) it read
it from (``sources``: JSON pointer -> numbers). :func:`compile_answer` finds, per leaf, a
recipe (:mod:`._recipes`) that makes exactly the model's value from that element; the items
of a list share one repeated container (the items' common ancestors, their positions made
free), below which each field sits at the same relative path. A leaf that cannot be compiled
is reported with the reason, and then nothing is compiled. :func:`build_data` is the replay:
what the browser read, through the same recipes, back into data for the schema.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..cache._extraction import (
    CONTAINER_XPATH,
    MAX_CLASSES,
    CompiledExtraction,
    FieldRead,
    ListRead,
)
from ._recipes import ElementFacts, Recipe, Redact, Unreadable, apply_recipe, recipes_for

_STEP = re.compile(r"/([A-Za-z][A-Za-z0-9-]*)(?:\[(\d+)\])?")
_CLASS_NAME = re.compile(r"^-?[A-Za-z_][A-Za-z0-9_-]{0,60}$")
_MIN_VALUE_CHARS = 3  # shorter values ("1", "EU") are too common to tell apart in page text


class FieldUnreadable(Exception):
    """A compiled field that does not read on this page: ``path`` and a reason, no value."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"field {path or '/'}: {reason}")
        self.path = path
        self.reason = reason


@dataclass
class Compiled:
    """What :func:`compile_answer` made: the reads, or per field why not."""

    fields: list[FieldRead] = field(default_factory=list)
    lists: list[ListRead] = field(default_factory=list)
    not_compiled: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class PageFacts:
    """The page as the compiler sees it: each named element's path and what it holds."""

    xpaths: Mapping[int, str | None]  # element number -> positional XPath (None: has none)
    facts: Mapping[str, ElementFacts]  # XPath -> what that element holds
    base: str
    redact: Redact


def pointer(text: str) -> str:
    """A JSON pointer from how a model may write one: ``/a/0/b``, ``a.0.b``, ``a[0].b``."""
    text = text.strip().removeprefix("#")
    if text.startswith("/"):
        return text.rstrip("/")
    parts = [p for p in re.split(r"[.\[\]]+", text) if p]
    return "".join(f"/{p}" for p in parts)


def leaves(data: Any, at: str = "") -> Iterator[tuple[str, Any]]:
    """(pointer, value) of every leaf of ``data``; a list is one leaf (compiled apart)."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield from leaves(value, f"{at}/{key}")
    else:
        yield at, data


def set_at(data: dict[str, Any], path: str, value: Any) -> None:
    """Put ``value`` at JSON pointer ``path`` below ``data``, making objects on the way."""
    keys = path.split("/")[1:]
    for key in keys[:-1]:
        data = data.setdefault(key, {})
    data[keys[-1]] = value


def compile_answer(
    data: dict[str, Any], sources: Mapping[str, list[int]], page: PageFacts
) -> Compiled:
    """The reads that make ``data`` from the elements ``sources`` names (see the module)."""
    out = Compiled()
    values = [v for _, v in all_leaves(data) if isinstance(v, str) and len(v) >= _MIN_VALUE_CHARS]
    for path, value in leaves(data):
        if isinstance(value, list):
            _compile_list(path, value, sources, page, out)
            continue
        try:
            xpath, facts, recipes = _candidates(path, value, sources, page)
            out.fields.append(_field_read(path, xpath, facts, recipes[0]))
        except FieldUnreadable as why:
            out.not_compiled[why.path] = why.reason
    for read in [*out.fields, *(f for listed in out.lists for f in listed.fields)]:
        if any(v in read.prefix or v in read.suffix or v in " ".join(read.classes) for v in values):
            out.not_compiled[read.path] = "the text around it holds another extracted value"
    return out


def all_leaves(data: Any) -> Iterator[tuple[str, Any]]:
    """(pointer, value) of every leaf of ``data``, list items included (their list's pointer)."""
    for path, value in leaves(data):
        if isinstance(value, list):
            for item in value:
                yield from all_leaves(item) if isinstance(item, dict) else [(path, item)]
        else:
            yield path, value


def _candidates(
    path: str, value: Any, sources: Mapping[str, list[int]], page: PageFacts
) -> tuple[str, ElementFacts, list[Recipe]]:
    """The element named for ``path`` and the recipes that make ``value`` from it."""
    if value is None:
        raise FieldUnreadable(path, "it has no value on this page to learn from")
    if isinstance(value, dict | list):
        raise FieldUnreadable(path, "a list or object inside a list item is not compiled")
    numbers = sources.get(path)
    if not numbers:
        raise FieldUnreadable(path, "the model named no element for it")
    for number in numbers:
        xpath = page.xpaths.get(number)
        facts = page.facts.get(xpath) if xpath else None
        if xpath is None or facts is None:
            continue
        recipes = recipes_for(value, facts, base=page.base, redact=page.redact)
        if recipes:
            return xpath, facts, recipes
    if not any(page.xpaths.get(n) for n in numbers):
        raise FieldUnreadable(
            path, "its element has no positional path (in a frame or shadow root)"
        )
    raise FieldUnreadable(path, "no read of the named element gives the model's value exactly")


def _field_read(path: str, xpath: str, facts: ElementFacts, recipe: Recipe) -> FieldRead:
    return FieldRead(
        path=path,
        xpath=xpath,
        tag=facts.tag,
        classes=_class_names(facts),
        read=recipe.read,
        attribute=recipe.attribute,
        transform=recipe.transform,
        prefix=recipe.prefix,
        suffix=recipe.suffix,
    )


def _class_names(facts: ElementFacts) -> list[str]:
    """The element's plain class names (at most ten): template structure, checked on replay."""
    names = facts.attributes.get("class", "").split()
    return [name for name in names if _CLASS_NAME.match(name)][:MAX_CLASSES]


def _steps(xpath: str) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2) or "") for m in _STEP.finditer(xpath)]


def _path(steps: list[tuple[str, str]]) -> str:
    return "".join(f"/{tag}[{index}]" if index else f"/{tag}" for tag, index in steps)


def _compile_list(
    path: str, items: list[Any], sources: Mapping[str, list[int]], page: PageFacts, out: Compiled
) -> None:
    if not items:
        out.not_compiled[path] = "the list is empty on this page, there is no item to learn from"
        return
    rows = [list(leaves(item)) if isinstance(item, dict) else [("", item)] for item in items]
    keys = [key for key, _ in rows[0]]
    if any([key for key, _ in row] != keys for row in rows):
        out.not_compiled[path] = "its items do not all have the same fields"
        return
    try:
        chosen = _item_reads(path, rows, sources, page)
    except FieldUnreadable as why:
        out.not_compiled[why.path] = why.reason
        return
    container = _container(path, [[xpath for xpath, _, _ in row] for row in chosen])
    if isinstance(container, str) and not CONTAINER_XPATH.match(container):
        container = FieldUnreadable(path, "its items have no common positional container")
    if isinstance(container, FieldUnreadable):
        out.not_compiled[path] = container.reason
        return
    first = chosen[0]
    fields = []
    for (key, _), (xpath, facts, recipe) in zip(rows[0], first, strict=True):
        relative = _path(_steps(xpath)[len(_steps(container)) :])
        fields.append(_field_read(key, relative, facts, recipe))
    out.lists.append(ListRead(path=path, container=container, fields=fields))


def _item_reads(
    path: str, rows: list[list[tuple[str, Any]]], sources: Mapping[str, list[int]], page: PageFacts
) -> list[list[tuple[str, ElementFacts, Recipe]]]:
    """Per item, per field: its element and the one recipe that works for every item."""
    chosen: list[list[tuple[str, ElementFacts, Recipe]]] = [[] for _ in rows]
    for column, (key, _) in enumerate(rows[0]):
        found = [
            _candidates(f"{path}/{number}{key}", row[column][1], sources, page)
            for number, row in enumerate(rows)
        ]
        shared = [r for r in found[0][2] if all(r in recipes for _, _, recipes in found)]
        if not shared:
            raise FieldUnreadable(f"{path}/*{key}", "no one read gives this field in every item")
        for number, (xpath, facts, _) in enumerate(found):
            chosen[number].append((xpath, facts, shared[0]))
    return chosen


def _container(path: str, items: list[list[str]]) -> str | FieldUnreadable:
    """The XPath matching each item's container: per item the deepest common ancestor of its
    elements, the steps where items differ left without a position."""
    prefixes = [_common(row) for row in items]
    depth = min(len(p) for p in prefixes)
    prefixes = [p[:depth] for p in prefixes]
    if any([tag for tag, _ in p] != [tag for tag, _ in prefixes[0]] for p in prefixes):
        return FieldUnreadable(path, "its items do not sit in elements of one kind")
    steps = [
        (tag, index if all(p[i][1] == index for p in prefixes) else "")
        for i, (tag, index) in enumerate(prefixes[0])
    ]
    if len(items) == 1 and steps:
        steps[-1] = (steps[-1][0], "")  # one item: its own element is the repeated one
    relative_ok = all(
        _steps(xpath)[:depth] == prefix for row, prefix in zip(items, prefixes, strict=True)
        for xpath in row
    )  # fmt: skip
    if not relative_ok:
        return FieldUnreadable(path, "its items' fields sit at different places")
    return _path(steps)


def _common(xpaths: list[str]) -> list[tuple[str, str]]:
    paths = [_steps(x) for x in xpaths]
    common: list[tuple[str, str]] = []
    for parts in zip(*paths, strict=False):
        if any(p != parts[0] for p in parts):
            break
        common.append(parts[0])
    return common  # a one-field item: the element itself


def build_data(
    compiled: CompiledExtraction, read: dict[str, Any], *, redact: Redact
) -> dict[str, Any]:
    """The data a replay reads (``read``: compiled_read.js's answer); :class:`FieldUnreadable`
    names the first field that does not read."""
    base = str(read.get("base") or "")
    data: dict[str, Any] = {}
    for recipe, cell in zip(compiled.fields, read.get("fields") or [], strict=False):
        set_at(data, recipe.path, _read_cell(recipe.path, recipe, cell, base, redact))
    for listed, matches in zip(compiled.lists, read.get("lists") or [], strict=False):
        items: list[Any] = []
        for number, cells in enumerate(matches):
            item: dict[str, Any] = {}
            for recipe, cell in zip(listed.fields, cells, strict=False):
                where = f"{listed.path}/{number}{recipe.path}"
                value = _read_cell(where, recipe, cell, base, redact)
                if not recipe.path:
                    items.append(value)
                    break
                set_at(item, recipe.path, value)
            else:
                items.append(item)
        set_at(data, listed.path, items)
    return data


def _read_cell(path: str, recipe: FieldRead, cell: Any, base: str, redact: Redact) -> Any:
    if not isinstance(cell, dict):
        raise FieldUnreadable(path, "no element is at its place any more")
    if cell.get("tag") != recipe.tag:
        raise FieldUnreadable(path, f"the element at its place is no longer a <{recipe.tag}>")
    missing = set(recipe.classes) - set(cell.get("classes") or [])
    if missing:
        raise FieldUnreadable(path, f"the element at its place lacks class {sorted(missing)[0]!r}")
    try:
        return apply_recipe(recipe, cell.get("raw"), base=base, redact=redact)
    except Unreadable as why:
        raise FieldUnreadable(path, str(why)) from None


def first_difference(made: Any, wanted: Any, at: str = "") -> str | None:
    """The pointer of the first place where ``made`` and ``wanted`` differ (None: equal)."""
    if isinstance(wanted, dict) and isinstance(made, dict):
        for key in wanted.keys() | made.keys():
            found = first_difference(made.get(key), wanted.get(key), f"{at}/{key}")
            if found is not None:
                return found
        return None
    if isinstance(wanted, list) and isinstance(made, list):
        if len(made) != len(wanted):
            return at or "/"
        for number, (a, b) in enumerate(zip(made, wanted, strict=True)):
            found = first_difference(a, b, f"{at}/{number}")
            if found is not None:
                return found
        return None
    return None if made == wanted and type(made) is type(wanted) else (at or "/")
