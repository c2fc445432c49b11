"""Typed form of what the serializer (``dom/serializer/``) returns, and the text the model sees.

Everything here is pure Python (no browser), so chunk ordering and rendering are unit-tested
from a JSON fixture.
"""

from __future__ import annotations

import contextlib
import gc
import json
import math
from collections.abc import Iterable, Iterator
from typing import Any, Literal

from pydantic import BaseModel, Field, PrivateAttr

from .._errors import ElementNotFoundError, PageError, SerializationError

# Caps keep one line per element short: the model needs enough to recognise it, no more.
MAX_TEXT_CHARS = 150
MAX_ATTRIBUTE_CHARS = 80
MAX_RENDERED_OPTIONS = 30


class Box(BaseModel):
    """Bounding box in CSS pixels, in document coordinates of the top page (viewport + scroll)."""

    x: float
    y: float
    width: float
    height: float


class Element(BaseModel):
    """One numbered thing the model can see: an element, or a bare text node (tag ``#text``)."""

    index: int
    tag: str
    text: str = ""
    attributes: dict[str, str] = Field(default_factory=dict)
    selectors: list[str] = Field(default_factory=list)
    frame: list[str] = Field(default_factory=list)
    chunk: int = 0
    box: Box | None = None
    interactive: bool = False
    options: list[str] = Field(default_factory=list)
    role: str = ""
    name: str = ""
    # Accessibility-tree mode (stagehand_py.aria): which view produced the element, and its
    # Playwright ref (``aria-ref=eN``), usable only while that snapshot is the page's latest.
    view: Literal["dom", "aria"] = "dom"
    ref: str = ""


class Chunk(BaseModel):
    """A horizontal slice of the page (or of its scroll container), ``top``/``bottom`` in px."""

    index: int
    top: float
    bottom: float
    element_indexes: list[int] = Field(default_factory=list)


class Snapshot(BaseModel):
    """The serialized page: numbered elements, grouped in chunks ordered nearest-first."""

    url: str
    title: str
    viewport: dict[str, int]
    scroll_y: float
    scroll_container: str | None = None
    elements: list[Element] = Field(default_factory=list)
    chunks: list[Chunk] = Field(default_factory=list)
    _by_index: dict[int, Element] | None = PrivateAttr(default=None)

    def element(self, index: int) -> Element:
        """The element numbered ``index``; :class:`ElementNotFoundError` if there is none."""
        if self._by_index is None:
            self._by_index = {element.index: element for element in self.elements}
        found = self._by_index.get(index)
        if found is None:
            raise ElementNotFoundError(
                f"There is no element number {index} in the snapshot of {self.url} "
                f"({len(self.elements)} elements, numbered 0-{len(self.elements) - 1}). "
                "Pick a number from the element list shown."
            )
        return found

    def render_element(self, index: int) -> str:
        """One line as the model sees it: ``N:<tag attributes>text</tag>``."""
        return render_element(self.element(index))

    def render_chunk(self, chunk_index: int) -> str:
        """The lines of every element in chunk ``chunk_index`` (its index, not its position)."""
        for chunk in self.chunks:
            if chunk.index == chunk_index:
                return "\n".join(self.render_element(i) for i in chunk.element_indexes)
        known = sorted(c.index for c in self.chunks)
        raise PageError(f"Chunk {chunk_index} is not in the snapshot (chunks: {known}).")

    def render_all(self) -> str:
        """Every element, in document order."""
        return "\n".join(render_element(element) for element in self.elements)

    def chunk_order(self) -> list[int]:
        """Chunk indexes, nearest to the current scroll position first."""
        return [chunk.index for chunk in self.chunks]


def order_chunks(chunks: Iterable[Chunk], scroll_y: float, chunk_height: float) -> list[Chunk]:
    """Sort chunks by distance from the one holding ``scroll_y``; at equal distance the chunk
    below comes first (the reading direction of a page that was scrolled down to here)."""
    current = math.floor(scroll_y / chunk_height + 1e-6) if chunk_height > 0 else 0
    return sorted(chunks, key=lambda c: (abs(c.index - current), c.index < current, c.index))


def _xpath_literal(value: str) -> str:
    """The XPath literal for ``value``, as ``xpathLiteral`` (serializer/20_helpers.js) writes it."""
    if '"' not in value:
        return f'"{value}"'
    if "'" not in value:
        return f"'{value}'"
    return "concat(" + ", '\"', ".join(f'"{part}"' for part in value.split('"')) + ")"


class _SelectorDecoder:
    """Undo the serializer's wire compression of selectors (``wireXPaths`` in 80_rows.js):
    ``xpath=`` is implied unless a selector starts with ``css=``, and ``~k|rest`` means the
    first k characters of the previous row's absolute XPath followed by ``rest``. Tokens that
    only repeat what the row itself carries: ``#`` (its id), ``@attr`` (its attribute),
    ``@name+`` (its name and value), ``=`` (its text)."""

    def __init__(self) -> None:
        self.last_absolute = ""

    def decode(self, wire: list[str], tag: str, text: str, attributes: dict[str, str]) -> list[str]:
        out: list[str] = []
        for position, selector in enumerate(wire):
            if selector.startswith(("css=", "xpath=")):
                out.append(selector)
                continue
            if selector == "#":
                selector = f"//*[@id={_xpath_literal(attributes['id'])}]"
            elif selector == "=":
                selector = f"//{tag}[normalize-space(.)={_xpath_literal(text)}]"
            elif selector.startswith("@"):
                name, plus, _ = selector[1:].partition("+")
                selector = f"//{tag}[@{name}={_xpath_literal(attributes[name])}]"
                if plus:
                    selector += f"[@value={_xpath_literal(attributes['value'])}]"
            elif selector.startswith("~"):
                shared, _, rest = selector[1:].partition("|")
                selector = self.last_absolute[: int(shared)] + rest
            if position == 0 and not selector.startswith("//"):
                self.last_absolute = selector
            out.append("xpath=" + selector)
        return out


class _WireTables:
    """What a snapshot sends once and rows point into (absent in older output)."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self.frames: list[Any] = raw["frames"]
        self.attribute_names: list[str] = raw.get("attribute_names", [])
        self.roles: list[str] = raw.get("roles", [])
        self.tags: list[str] = raw.get("tags", [])
        self.decoder = _SelectorDecoder()

    def attributes(self, wire: Any) -> dict[str, str]:
        if not wire:
            return {}
        if isinstance(wire, dict):
            return wire
        names = self.attribute_names  # flat [name index, value, ...]
        return {names[wire[i]]: wire[i + 1] for i in range(0, len(wire), 2)}


def _element_fields(
    index: int, row: list[Any], rows: list[dict[str, Any]], tables: _WireTables
) -> dict[str, Any]:
    # Row layout (see `describe` in dom/serializer/80_rows.js): tag (or its index in `tags`),
    # text (or the index of a row with the same text), attributes, selectors (or the index of
    # the row whose selectors it shares), frame index, chunk, box, interactive, [options, role
    # (or its index in `roles`), name (or 1 = the text, 2 = the aria-label)]
    tag, text, attributes, selectors, frame, chunk, box, interactive, *rest = row
    if isinstance(tag, int):
        tag = tables.tags[tag]
    if isinstance(text, int):
        text = rows[text]["text"]
    attrs = tables.attributes(attributes)
    role = rest[1] if len(rest) > 1 else ""
    name = rest[2] if len(rest) > 2 else ""
    if isinstance(name, int):
        name = text if name == 1 else attrs["aria-label"]
    return {
        "index": index,
        "tag": tag,
        "text": text,
        "attributes": attrs,
        "selectors": (
            rows[selectors]["selectors"]
            if isinstance(selectors, int)
            else tables.decoder.decode(selectors, tag, text, attrs)
        ),
        "frame": tables.frames[frame] if frame >= 0 else [],
        "chunk": chunk,
        "box": {"x": box[0], "y": box[1], "width": box[2], "height": box[3]},
        "interactive": interactive,
        "options": rest[0] if rest and rest[0] else [],
        "role": tables.roles[role] if isinstance(role, int) else role,
        "name": name,
    }


@contextlib.contextmanager
def _cyclic_gc_paused() -> Iterator[None]:
    """Building thousands of small dicts and models triggers the cyclic GC again and again, and
    with Playwright's ~250k live objects each full pass is slow: measured here, parsing a
    3,000-element snapshot took ~200 ms with it and ~40 ms without. Nothing built here forms
    cycles, so pausing it for the duration loses nothing."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def parse_snapshot(json_text: str) -> Snapshot:
    """Parse the serializer (``dom/serializer/``) output (compact rows) into a :class:`Snapshot`.

    Chunks are built here from each element's chunk number and ordered nearest to the current
    scroll position first; chunks without elements are left out.
    """
    try:
        with _cyclic_gc_paused():
            return _build_snapshot(json.loads(json_text))
    except (ValueError, KeyError, TypeError, IndexError) as exc:  # ValidationError included
        raise SerializationError(
            f"The page serializer returned data stagehand_py cannot read ({exc}). This is a "
            "bug in stagehand_py; please report it with the page's URL."
        ) from None


def _build_snapshot(raw: dict[str, Any]) -> Snapshot:
    tables = _WireTables(raw)
    rows: list[dict[str, Any]] = []
    for index, row in enumerate(raw["elements"]):
        rows.append(_element_fields(index, row, rows, tables))
    chunk_height = float(raw["chunk_height"])
    members: dict[int, list[int]] = {}
    for fields in rows:
        members.setdefault(fields["chunk"], []).append(fields["index"])
    chunks = [
        Chunk(index=i, top=i * chunk_height, bottom=(i + 1) * chunk_height, element_indexes=m)
        for i, m in members.items()
    ]
    # One validation call for the whole page: pydantic-core does it in Rust, far faster than
    # building thousands of models one by one from Python.
    return Snapshot.model_validate(
        {
            "url": raw["url"],
            "title": raw["title"],
            "viewport": raw["viewport"],
            "scroll_y": raw["scroll_y"],
            "scroll_container": raw["scroll_container"],
            "elements": rows,
            "chunks": order_chunks(chunks, raw["scroll_y"], chunk_height),
        }
    )


def _cap(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _attribute_text(element: Element, text: str) -> str:
    parts: list[str] = []
    for key, value in element.attributes.items():
        if value == text and text:
            continue  # the model already reads it as the element's text
        shown = _cap(value, MAX_ATTRIBUTE_CHARS).replace('"', "'")
        parts.append(f'{key}="{shown}"')
    if element.options:
        shown_options = element.options[:MAX_RENDERED_OPTIONS]
        more = len(element.options) - len(shown_options)
        listed = "|".join(_cap(o, 40).replace("]", ")") for o in shown_options)
        parts.append(f"options=[{listed}{f'|…+{more}' if more else ''}]")
    return (" " + " ".join(parts)) if parts else ""


def render_element(element: Element) -> str:
    """``N:text`` for a text node, ``N:<tag attributes>text</tag>`` for an element."""
    if element.view == "aria":
        from ..aria._render import render_aria_element  # the aria package imports this one

        return render_aria_element(element)
    text = _cap(" ".join(element.text.split()), MAX_TEXT_CHARS)
    if element.tag == "#text":
        return f"{element.index}:{text}"
    return f"{element.index}:<{element.tag}{_attribute_text(element, text)}>{text}</{element.tag}>"
