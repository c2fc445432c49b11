"""The page as the model sees it, in either view: numbered elements in chunks.

Both views make this model: the DOM serializer (``dom/``: its wire format parsed in
``dom/_wire.py``) and the accessibility tree (``aria/``, assembled in ``aria/_assemble.py``).
Each element's line is written by its own view (``dom/_render.py``, ``aria/_render.py``);
:func:`render_element` picks the one the element came from. Pure Python (no browser), so
chunk ordering and rendering are unit-tested from a JSON fixture.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from pydantic import (
    BaseModel,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from ._errors import ElementNotFoundError, PageError
from .aria._render import render_aria_element
from .dom._render import Redactor, render_dom_element

M = TypeVar("M", bound=BaseModel)
_setattr = object.__setattr__


@functools.cache
def _every_field(cls: type[BaseModel]) -> set[str]:
    """The fields set shared by the models :func:`trusted` makes of ``cls``: it holds every
    field, so pydantic's only change to it (adding an assigned field's name) changes nothing."""
    return set(cls.model_fields)


def trusted(cls: type[M], values: dict[str, Any]) -> M:
    """``cls`` holding ``values`` (every field, in declaration order), as ``model_construct``
    makes it but without its per-call overhead (~14 us against ~1.5 us, measured on a 3,000
    element page; a field left to its default factory costs a signature inspection each
    time). For values the caller built with every field's type, as both views do for
    thousands of elements per look."""
    model = cls.__new__(cls)
    _setattr(model, "__dict__", values)
    _setattr(model, "__pydantic_fields_set__", _every_field(cls))
    _setattr(model, "__pydantic_extra__", None)
    _setattr(model, "__pydantic_private__", None)
    return model


class Box(BaseModel):
    """Bounding box in CSS pixels, in document coordinates of the top page (viewport + scroll)."""

    x: float
    y: float
    width: float
    height: float


class Element(BaseModel):
    """One numbered thing the model can see: an element, or a bare text node (tag ``#text``).

    ``text``, attribute values, ``options`` and ``hint`` are raw page strings (whitespace,
    quotes and length as the page has them, up to the serializer's wire bounds); the
    rendering shapes them. ``truncated`` says how many characters the serializer cut off a
    long one on the wire (key ``"text"`` or an attribute name). ``interactive`` is False for
    a ``disabled`` control: it is shown, but cannot be acted on. ``aria_hidden``: the element
    is inside ``aria-hidden="true"`` (hidden from screen readers) but visible and on top.
    ``hint``: for a control that shows no text nor label, what it looks like (a few class
    tokens, the image file it draws, its SVG title).
    """

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
    disabled: bool = False
    readonly: bool = False
    aria_hidden: bool = False
    hint: str = ""
    truncated: dict[str, int] = Field(default_factory=dict)
    # Accessibility-tree mode (stagehand_py.aria): which view produced the element, and its
    # Playwright ref (``aria-ref=eN``), usable only while that snapshot is the page's latest.
    view: Literal["dom", "aria"] = "dom"
    ref: str = ""


def render_element(element: Element, *, redact: Redactor | None = None) -> str:
    """The line the model reads for ``element``, in the form of the view that produced it:
    ``N:<tag attributes>text</tag>`` (DOM) or ``N:<role name="..." states>text`` (aria)."""
    if element.view == "aria":
        return render_aria_element(element, redact=redact)
    return render_dom_element(element, redact=redact)


class Chunk(BaseModel):
    """A horizontal slice of the page (or of its scroll container), ``top``/``bottom`` in px."""

    index: int
    top: float
    bottom: float
    element_indexes: list[int] = Field(default_factory=list)


class ElementSource(Protocol):
    """Elements made on demand (``dom._wire.WireRows``): numbered 0..len-1."""

    def __len__(self) -> int: ...
    def element(self, index: int) -> Element: ...
    def all(self) -> list[Element]: ...


class Snapshot(BaseModel):
    """The serialized page: numbered elements, grouped in chunks ordered nearest-first.

    A parsed snapshot makes its :class:`Element` objects when they are first used (rendering
    one chunk decodes only that chunk's rows); ``elements`` gives all of them, as does
    anything that reads the whole model (dumping, comparing, printing).
    """

    url: str
    title: str
    viewport: dict[str, int]
    scroll_y: float
    scroll_container: str | None = None
    elements: list[Element] = Field(default_factory=list)
    chunks: list[Chunk] = Field(default_factory=list)
    _by_index: dict[int, Element] | None = PrivateAttr(default=None)
    _rows: ElementSource | None = PrivateAttr(default=None)

    @classmethod
    def from_rows(cls, rows: ElementSource, **fields: Any) -> Snapshot:
        """A snapshot whose elements come from ``rows`` when first asked for (no validation:
        ``fields`` must already have the fields' types)."""
        snapshot = cls.model_construct(**fields)
        del snapshot.__dict__["elements"]  # read through __getattr__ until made
        snapshot.__pydantic_fields_set__.add("elements")
        snapshot._rows = rows
        return snapshot

    if not TYPE_CHECKING:  # as BaseModel does, so that mypy still checks attribute names

        def __getattr__(self, name: str) -> Any:
            if name == "elements":
                return self._all_elements()
            return super().__getattr__(name)

    def _all_elements(self) -> list[Element]:
        elements: list[Element] | None = self.__dict__.get("elements")
        if elements is None:
            rows = self._rows
            elements = rows.all() if rows is not None else []
            fields = self.__dict__
            fields["elements"] = elements
            ordered = {name: fields[name] for name in type(self).model_fields if name in fields}
            fields.clear()  # in field order again, as dumps and reprs list them
            fields.update(ordered)
        return elements

    @model_serializer(mode="wrap")
    def _serialize(self, handler: SerializerFunctionWrapHandler) -> Any:
        self._all_elements()
        return handler(self)

    def __eq__(self, other: object) -> bool:
        # Fields only: the private caches (lookup table, undecoded rows) are no part of what
        # a snapshot says.
        if not isinstance(other, Snapshot):
            return NotImplemented
        self._all_elements()
        other._all_elements()
        return type(self) is type(other) and self.__dict__ == other.__dict__

    def __iter__(self) -> Any:
        self._all_elements()
        return super().__iter__()

    def __repr_args__(self) -> Any:
        self._all_elements()
        return super().__repr_args__()

    def element(self, index: int) -> Element:
        """The element numbered ``index``; :class:`ElementNotFoundError` if there is none."""
        rows = self._rows
        found: Element | None = None
        count: int
        if "elements" not in self.__dict__ and rows is not None:
            count = len(rows)
            if 0 <= index < count:
                found = rows.element(index)
        else:
            if self._by_index is None:
                self._by_index = {element.index: element for element in self.elements}
            found = self._by_index.get(index)
            count = len(self.elements)
        if found is None:
            raise ElementNotFoundError(
                f"There is no element number {index} in the snapshot of {self.url} "
                f"({count} elements, numbered 0-{count - 1}). "
                "Pick a number from the element list shown."
            )
        return found

    def render_element(self, index: int, *, redact: Redactor | None = None) -> str:
        """One line as the model sees it: ``N:<tag attributes>text</tag>``.

        ``redact`` is applied to every raw page string (text, attribute values, option
        labels, hints) before any collapsing, capping or escaping.
        """
        return render_element(self.element(index), redact=redact)

    def render_chunk(self, chunk_index: int, *, redact: Redactor | None = None) -> str:
        """The lines of every element in chunk ``chunk_index`` (its index, not its position)."""
        for chunk in self.chunks:
            if chunk.index == chunk_index:
                return "\n".join(
                    self.render_element(i, redact=redact) for i in chunk.element_indexes
                )
        known = sorted(c.index for c in self.chunks)
        raise PageError(f"Chunk {chunk_index} is not in the snapshot (chunks: {known}).")

    def render_all(self, *, redact: Redactor | None = None) -> str:
        """Every element, in document order."""
        return "\n".join(render_element(element, redact=redact) for element in self.elements)

    def chunk_order(self) -> list[int]:
        """Chunk indexes, nearest to the current scroll position first."""
        return [chunk.index for chunk in self.chunks]


def order_chunks(chunks: Iterable[Chunk], scroll_y: float, chunk_height: float) -> list[Chunk]:
    """Sort chunks by distance from the one holding ``scroll_y``; at equal distance the chunk
    below comes first (the reading direction of a page that was scrolled down to here).
    Negative chunk indexes (content scrolled out above an inner scroller) sort the same way."""
    current = math.floor(scroll_y / chunk_height + 1e-6) if chunk_height > 0 else 0
    return sorted(chunks, key=lambda c: (abs(c.index - current), c.index < current, c.index))
