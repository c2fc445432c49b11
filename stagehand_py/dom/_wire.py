"""Parse the serializer's wire format (compact rows, ``describe`` in ``serializer/80_rows.js``)
into a :class:`Snapshot`, stitching in the rows of frames serialized by their own evaluate.

Parsing runs on every look at the page (the act loop takes a snapshot per turn), so it is
built for speed: rows are decoded straight into each model's field dict and the models are
made without a second validation pass (:func:`~stagehand_py._snapshot.trusted`); the few
checks that keep a page which tampered with the serializer's output from slipping wrong types
through are explicit.
Any malformed input raises :class:`SerializationError`.
"""

from __future__ import annotations

import contextlib
import gc
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .._errors import SerializationError
from .._snapshot import Box, Chunk, Element, Snapshot, order_chunks, trusted
from ._shadow import CLOSED_SHADOW_PREFIX

_XPATH_SPACE = re.compile(r"[ \t\r\n]+")


def _str(value: Any) -> str:
    if value.__class__ is not str:
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


def xpath_space(text: str) -> str:
    """XPath's ``normalize-space``: only space, tab, CR and LF collapse (``xpathSpace`` in JS)."""
    return _XPATH_SPACE.sub(" ", text).strip(" ")


def _xpath_literal(value: str) -> str:
    """The XPath literal for ``value``, as ``xpathLiteral`` (serializer/20_helpers.js) writes it."""
    if '"' not in value:
        return f'"{value}"'
    if "'" not in value:
        return f"'{value}'"
    return "concat(" + ", '\"', ".join(f'"{part}"' for part in value.split('"')) + ")"


def _decode_selectors(
    wire: list[str], absolute: str | None, tag: str, text: str, attributes: dict[str, str]
) -> list[str]:
    """Undo the serializer's wire compression of selectors (``wireXPaths`` in 80_rows.js):
    ``xpath=`` is implied unless a selector starts with ``css=``; the first, absolute XPath
    may be sent as ``~k|rest`` (the first k characters of the previous row's), decoded by
    :meth:`_Part.scan` into ``absolute``; a selector into a closed shadow root
    (:mod:`._shadow`) is kept as it is. Tokens that only repeat what the row itself carries:
    ``#`` (its id), ``@attr`` (its attribute), ``@name+`` (its name and value), ``=`` (its
    text, normalized as XPath does)."""
    out: list[str] = []
    for position, selector in enumerate(wire):
        first = selector[0]
        if position == 0 and absolute is not None:
            selector = absolute
        elif first == "#":
            selector = f"//*[@id={_xpath_literal(attributes['id'])}]"
        elif first == "@":
            name, plus, _ = selector[1:].partition("+")
            selector = f"//{tag}[@{name}={_xpath_literal(attributes[name])}]"
            if plus:
                selector += f"[@value={_xpath_literal(attributes['value'])}]"
        elif first == "=":
            selector = f"//{tag}[normalize-space(.)={_xpath_literal(xpath_space(text))}]"
        elif selector.startswith(("css=", "xpath=", CLOSED_SHADOW_PREFIX)):
            out.append(selector)
            continue
        out.append("xpath=" + _str(selector))
    return out


@dataclass
class FramePart:
    """The serializer's output (decoded with :func:`load_wire`) for a frame its parent's walk
    could not enter (cross-origin).

    ``parent``: index of the part whose rows it goes between (0 = the top document, 1 = the
    first of these frames...; parents come before their children); ``at``: position among
    the parent's rows; ``path``: the frame path (iframe selectors from the top document) of
    the frame's own document.
    """

    parent: int
    at: int
    path: list[str]
    raw: dict[str, Any]


class _Part:
    """The rows of one evaluate (the top document or a cross-origin frame), decoded on demand.

    :meth:`scan` reads what every row must give at once (its chunk; the absolute XPath chain,
    which each row may send relative to the previous one); :meth:`element` decodes one row.
    """

    def __init__(self, raw: dict[str, Any], path: list[str]) -> None:
        self.raw = raw
        self.path = path
        self.rows: list[list[Any]] = raw["elements"]
        self.children: list[tuple[int, int]] = []  # (position among rows, part index)
        self.tags: list[str] = raw.get("tags", [])
        self.roles: list[str] = raw.get("roles", [])
        self.names: list[str] = raw.get("attribute_names", [])
        self.paths = [path + [_str(s) for s in p] for p in raw["frames"]]
        self.absolute: list[str | None] = []
        self.built: list[Element | None] = [None] * len(self.rows)
        self.numbers: list[int] = []  # row -> index in the stitched list

    def scan(self) -> list[int]:
        """Every row's chunk, and its absolute XPath decoded (``~k|rest`` -> full)."""
        chunks: list[int] = []
        absolute = self.absolute
        last = ""
        for row in self.rows:
            if len(row) < 8:
                raise ValueError(f"a row of {len(row)} fields")
            chunks.append(int(row[5]))
            if row[4] >= len(self.paths):
                raise IndexError(f"frame {row[4]} of {len(self.paths)}")
            selectors = row[3]
            path = None
            if selectors.__class__ is list and selectors:
                head = _str(selectors[0])
                if head[0] == "~":
                    shared, _, rest = head[1:].partition("|")
                    path = last = last[: int(shared)] + rest
                elif head[0] == "/" and head[1:2] != "/":
                    path = last = head
            elif selectors.__class__ is not int:
                raise TypeError(f"row selectors are a {type(selectors).__name__}")
            absolute.append(path)
        return chunks

    def element(self, local: int) -> Element:
        found = self.built[local]
        if found is None:
            found = self.built[local] = self._decode(local)
        return found

    def _decode(self, local: int) -> Element:
        tag, text, wire_attrs, selectors, frame, chunk, box, flags, *rest = self.rows[local]
        if tag.__class__ is int:
            tag = self.tags[tag]
        cuts: dict[str, int] = {}
        if text.__class__ is int:
            text = self.rows[text][1]
        if text.__class__ is list:
            text, cuts["text"] = _str(text[0]), int(text[1])
        elif text.__class__ is not str:
            raise TypeError(f"row text is a {type(text).__name__}")
        attrs: dict[str, str] = {}
        if wire_attrs.__class__ is dict:
            attrs = {_str(k): _str(v) for k, v in wire_attrs.items()}
        elif wire_attrs:
            names = self.names
            for i in range(0, len(wire_attrs), 2):
                key, value = names[wire_attrs[i]], wire_attrs[i + 1]
                if value.__class__ is not str:
                    value, cuts[key] = _str(value[0]), int(value[1])
                attrs[key] = value
        role: Any = ""
        name: Any = ""
        hint = ""
        options: list[str] = []
        if rest:
            if rest[0]:
                options = [_str(o) for o in rest[0]]
            if len(rest) > 1:
                role = rest[1]
                if role.__class__ is int:
                    role = self.roles[role]
                if len(rest) > 2:
                    name = rest[2]
                    if name.__class__ is int:
                        name = text if name == 1 else attrs["aria-label"]
                    if len(rest) > 3:
                        hint = _str(rest[3])
        values = {
            "index": self.numbers[local],
            "tag": _str(tag),
            "text": text,
            "attributes": attrs,
            "selectors": (
                list(self.element(selectors).selectors)
                if selectors.__class__ is int
                else _decode_selectors(selectors, self.absolute[local], tag, text, attrs)
            ),
            "frame": list(self.paths[frame] if frame >= 0 else self.path),
            "chunk": int(chunk),
            "box": trusted(
                Box,
                {
                    "x": float(box[0]),
                    "y": float(box[1]),
                    "width": float(box[2]),
                    "height": float(box[3]),
                },
            ),
            "interactive": flags & 1 == 1,
            "options": options,
            "role": _str(role),
            "name": _str(name),
            "disabled": flags & 2 == 2,
            "readonly": flags & 4 == 4,
            "aria_hidden": flags & 8 == 8,
            "hint": hint,
            "truncated": cuts,
            "view": "dom",
            "ref": "",
        }
        return trusted(Element, values)


class WireRows:
    """The elements of a parsed snapshot, each decoded the first time it is asked for.

    The act loop shows one chunk per turn: on a 5,000-element page that is a few hundred of
    ~3,000 rows, so decoding only those keeps a look at the page cheap. A malformed row (a
    page that tampered with the serializer) raises :class:`SerializationError` when reached.
    """

    def __init__(self, parts: list[_Part], order: list[tuple[_Part, int]]) -> None:
        self._parts = parts
        self._order = order

    def __len__(self) -> int:
        return len(self._order)

    def element(self, index: int) -> Element:
        part, local = self._order[index]
        try:
            with _cyclic_gc_paused():
                return part.element(local)
        except (ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
            raise _unreadable(exc) from None

    def all(self) -> list[Element]:
        try:
            with _cyclic_gc_paused():
                return [part.element(local) for part, local in self._order]
        except (ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
            raise _unreadable(exc) from None


def _stitch(parts: list[_Part]) -> list[tuple[_Part, int]]:
    """One numbered list: each frame's rows where its iframe sits in its parent's rows."""
    order: list[tuple[_Part, int]] = []

    def emit(part: _Part) -> None:
        children = sorted(part.children)
        next_child = 0
        for local in range(len(part.rows)):
            while next_child < len(children) and children[next_child][0] <= local:
                emit(parts[children[next_child][1]])
                next_child += 1
            part.numbers.append(len(order))
            order.append((part, local))
        for _, child in children[next_child:]:
            emit(parts[child])

    emit(parts[0])
    return order


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


def _unreadable(exc: Exception) -> SerializationError:
    return SerializationError(
        f"The page serializer returned data stagehand_py cannot read ({exc}). This is a bug "
        "in stagehand_py, or a script on the page tampered with it; please report it with "
        "the page's URL."
    )


def load_wire(json_text: str) -> dict[str, Any]:
    """The serializer's JSON string, decoded (a :class:`SerializationError` if it is not an
    object)."""
    try:
        with _cyclic_gc_paused():
            raw = json.loads(json_text)
    except ValueError as exc:
        raise _unreadable(exc) from None
    if not isinstance(raw, dict):
        raise _unreadable(TypeError(f"a JSON {type(raw).__name__}, not an object"))
    return raw


def parse_snapshot(json_text: str) -> Snapshot:
    """Parse the serializer (``dom/serializer/``) output into a :class:`Snapshot`.

    Chunks are built from each element's chunk number and ordered nearest to the current
    scroll position first; chunks without elements are left out.
    """
    return snapshot_from_wire(load_wire(json_text))


def snapshot_from_wire(raw: dict[str, Any], frames: Sequence[FramePart] = ()) -> Snapshot:
    """The :class:`Snapshot` of decoded serializer output ``raw`` (the top document) and
    ``frames`` (cross-origin frames, each from its own evaluate), stitched into one numbered
    list with chunks over all of it."""
    try:
        with _cyclic_gc_paused():
            return _build_snapshot(raw, frames)
    except (ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
        raise _unreadable(exc) from None


def _build_snapshot(raw: dict[str, Any], frames: Sequence[FramePart]) -> Snapshot:
    parts = [_Part(raw, [])]
    for frame in frames:
        parts[frame.parent].children.append((frame.at, len(parts)))
        parts.append(_Part(frame.raw, list(frame.path)))
    order = _stitch(parts)
    chunk_height = float(raw["chunk_height"])
    members: dict[int, list[int]] = {}
    for part in parts:
        for local, chunk in enumerate(part.scan()):
            members.setdefault(chunk, []).append(part.numbers[local])
    chunks = [
        Chunk.model_construct(
            index=i,
            top=i * chunk_height,
            bottom=(i + 1) * chunk_height,
            element_indexes=sorted(m) if len(parts) > 1 else m,
        )
        for i, m in members.items()
    ]
    return Snapshot.from_rows(
        WireRows(parts, order),
        url=_str(raw["url"]),
        title=_str(raw["title"]),
        viewport={"width": int(raw["viewport"]["width"]), "height": int(raw["viewport"]["height"])},
        scroll_y=float(raw["scroll_y"]),
        scroll_container=(
            None if raw["scroll_container"] is None else _str(raw["scroll_container"])
        ),
        chunks=order_chunks(chunks, raw["scroll_y"], chunk_height),
    )
