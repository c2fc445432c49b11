"""From lines, DOM facts and chosen rungs to the same :class:`Snapshot` the DOM view produces.

Pure Python: the browser side (``dom/aria_facts.js``) and the Playwright checks live in
``_async/aria/snapshot.py``; what they return is read and combined here.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .._snapshot import Box, Chunk, Element, Snapshot, order_chunks, trusted
from ._ladder import (
    Rung,
    css_rung,
    label_rung,
    normalized_text_rung,
    placeholder_rung,
    role_rung,
    testid_rung,
    text_rung,
    xpath_rung,
)
from ._lines import UNQUERYABLE_ROLES, Line, RoleCensus
from ._parser import AriaNode, BoxPx

# Rungs a person reads (the ADR's user-facing locators), as opposed to structural ones.
USER_FACING = frozenset({"role", "label", "placeholder", "text", "text_normalized"})
MAX_RUNGS = 5


@dataclass
class NodeFacts:
    """What ``aria_facts.js`` learnt about the element behind one tree node."""

    tag: str
    ambiguous: bool = False
    xpath: str | None = None
    css: str | None = None
    in_container: bool = False
    offset: tuple[float, float] | None = None  # an iframe's content box in its frame
    testid: str | None = None
    placeholder: str | None = None
    labels: list[str] = field(default_factory=list)
    text: str | None = None
    text_any_case: bool = False
    target: str | None = None
    closed: str | None = None  # the selector of an element inside a closed shadow root

    @classmethod
    def read(cls, raw: dict[str, Any]) -> NodeFacts:
        offset = raw.get("offset")
        return cls(
            tag=raw["tag"],
            ambiguous=bool(raw.get("ambiguous")),
            xpath=raw.get("xpath"),
            css=raw.get("css"),
            in_container=bool(raw.get("inContainer")),
            offset=(float(offset[0]), float(offset[1])) if offset else None,
            testid=raw.get("testid"),
            placeholder=raw.get("placeholder"),
            labels=list(raw.get("labels") or []),
            text=raw.get("text"),
            text_any_case=bool(raw.get("textAnyCase")),
            target=raw.get("target"),
        )

    def structural_rungs(self) -> list[Rung]:
        """css then xpath: unique by construction (counted over the whole document); inside a
        closed shadow root, the closed-shadow selector alone (no engine of Playwright's
        reaches there)."""
        if self.closed:
            return [Rung("css", self.closed)]
        rungs = [css_rung(self.css)] if self.css else []
        return rungs + ([xpath_rung(self.xpath)] if self.xpath else [])


@dataclass
class Scroll:
    """The top page's scroll geometry (and its main scroller, if the page itself does not)."""

    x: float
    y: float
    width: int
    height: int
    total: float
    container: dict[str, Any] | None = None

    @classmethod
    def read(cls, raw: dict[str, Any]) -> Scroll:
        return cls(raw["x"], raw["y"], raw["width"], raw["height"], raw["total"], raw["container"])

    @property
    def container_selector(self) -> str | None:
        xpath = self.container.get("xpath") if self.container else None
        return f"xpath={xpath}" if xpath else None

    def chunk_height(self, ratio: float) -> float:
        view = self.container["clientHeight"] if self.container else self.height
        return max(1.0, ratio * view)

    def chunk_of(self, top: float, height: float, inside: bool, chunk_h: float) -> int:
        """The DOM serializer's rule (``chunkOf``): an element belongs where its top part is."""
        centre = top + min(height, chunk_h) / 2
        if self.container is None:
            y, total = centre + self.y, self.total
        else:
            c = self.container
            total = c["scrollHeight"]
            if inside:
                y = centre - c["top"] + c["scrollTop"]
            else:  # outside the scroller (a fixed header): always on screen
                y = c["scrollTop"] + min(max(centre - c["top"], 0), c["clientHeight"] - 1)
        return math.floor(min(max(y, 0), max(total - 1, 0)) / chunk_h)


@dataclass
class FrameInfo:
    """Where a frame's document sits: its frame-locator path and its offset in the top view."""

    path: list[str] | None  # None: the iframe element could not be found in its parent
    dx: float = 0.0
    dy: float = 0.0
    in_container: bool = False


def frame_selector(facts: NodeFacts) -> str | None:
    """The durable selector stored for an ``<iframe>`` in a frame path (as the DOM view does)."""
    if facts.css and (facts.css.startswith("#") or "[" in facts.css):
        return "css=" + facts.css
    if facts.xpath:
        return "xpath=" + facts.xpath
    return "css=" + facts.css if facts.css else None


def candidate_rungs(
    line: Line, facts: NodeFacts | None, census: RoleCensus
) -> list[tuple[Rung, bool]]:
    """Every rung worth trying for ``line``, in ladder order, each with ``True`` when its
    uniqueness is proven by the tree or the DOM facts, ``False`` when Playwright must check it.
    """
    out: list[tuple[Rung, bool]] = []
    node = line.node
    if (
        node is not None
        and node.name
        and node.role not in UNQUERYABLE_ROLES
        and not line.aria_hidden
        and census.unique(node)
    ):
        out.append((role_rung(node.role, node.name), census.provable(node)))
    if facts is None:
        return out
    if line.kind == "control":
        out += [(label_rung(label), False) for label in facts.labels[:1]]
        if facts.placeholder:
            out.append((placeholder_rung(facts.placeholder), True))
        if facts.text:
            out.append((text_rung(facts.text), False))
            if facts.text_any_case:
                out.append((normalized_text_rung(facts.text), False))
        if facts.testid:
            out.append((testid_rung(facts.testid), True))
    return out + [(rung, True) for rung in facts.structural_rungs()]


def _top_box(line: Line, frames: dict[str, FrameInfo]) -> tuple[BoxPx | None, FrameInfo | None]:
    anchor: AriaNode | None = line.anchor
    frame = frames.get(anchor.frame_ref if anchor else line.frame_ref)
    if anchor is None or anchor.box is None or frame is None:
        return None, frame
    box = anchor.box
    return BoxPx(round(box.x + frame.dx), round(box.y + frame.dy), box.width, box.height), frame


def actionable(line: Line) -> bool:
    """A control the model may act on (a disabled one is listed, marked, but not offered)."""
    return line.kind == "control" and "disabled" not in line.attributes


def _document_box(box: BoxPx, scroll: Scroll) -> dict[str, float]:
    return {"x": box.x + scroll.x, "y": box.y + scroll.y, "width": box.width, "height": box.height}


# A link's address kept for the SDK (extract's link numbers) but not shown to the model.
HIDDEN_URL = ".url"


def _shorten_links(rows: list[dict[str, Any]], page_url: str) -> None:
    """Link addresses as the model needs them: same-origin ones relative to the origin, and
    only where the link's name alone is ambiguous (several links say "Details"); otherwise
    the address moves to ``HIDDEN_URL`` (not rendered)."""
    page = urlsplit(page_url)
    names = Counter(r["name"] for r in rows if r["role"] == "link")
    for row in rows:
        attributes = row["attributes"]
        address = attributes.get("url")
        if row["role"] != "link" or address is None:
            continue
        parts = urlsplit(address)
        if parts.scheme in ("http", "https") and (parts.scheme, parts.netloc) == (
            page.scheme,
            page.netloc,
        ):
            address = urlunsplit(("", "", parts.path or "/", parts.query, parts.fragment))
        if row["name"] and names[row["name"]] == 1:
            del attributes["url"]
            attributes[HIDDEN_URL] = address
        else:
            attributes["url"] = address


@dataclass(frozen=True)
class LineFindings:
    """What was found for the tree's lines: the lines, and the page facts and ladder rungs of
    each (keyed by line position), and the frames they are in."""

    lines: Sequence[Line]
    facts: dict[int, NodeFacts]
    rungs: dict[int, list[Rung]]
    frames: dict[str, FrameInfo]


def build_snapshot(
    url: str, title: str, scroll: Scroll, chunk_ratio: float, found: LineFindings
) -> Snapshot:
    """The snapshot of the page at ``url``: one element per line of ``found``.

    A control without any unique rung (or disabled) is not offered as actionable
    (``interactive=False``).
    """
    lines, facts, rungs, frames = found.lines, found.facts, found.rungs, found.frames
    chunk_h = scroll.chunk_height(chunk_ratio)
    rows: list[dict[str, Any]] = []
    for index, line in enumerate(lines):
        node_facts = facts.get(index)
        selectors = [r.selector for r in rungs.get(index, [])][:MAX_RUNGS]
        box, frame = _top_box(line, frames)
        inside = (
            frame.in_container
            if frame and line.frame_ref
            else bool(node_facts and node_facts.in_container)
        )
        chunk = scroll.chunk_of(box.y, box.height, inside, chunk_h) if box else 0
        attributes = dict(line.attributes)
        if node_facts and node_facts.target and line.role == "link":
            attributes["target"] = node_facts.target
        rows.append(  # every field of Element, in its order (see trusted below)
            {
                "index": index,
                "tag": node_facts.tag if node_facts else ("#text" if line.role == "text" else ""),
                "text": line.text,
                "attributes": attributes,
                "selectors": selectors,
                "frame": (frame.path or []) if frame else [],
                "chunk": chunk,
                "box": None if box is None else _document_box(box, scroll),
                "interactive": actionable(line) and bool(selectors),
                "options": line.options,
                "role": line.role,
                "name": line.name,
                "disabled": False,
                "readonly": False,
                "aria_hidden": False,
                "hint": "",
                "truncated": {},
                "view": "aria",
                "ref": line.node.ref if line.node else "",
            }
        )
    _shorten_links(rows, url)
    scroll_top = scroll.container["scrollTop"] if scroll.container else scroll.y
    members: dict[int, list[int]] = {}
    for row in rows:
        members.setdefault(row["chunk"], []).append(row["index"])
    chunks = [
        Chunk(index=i, top=i * chunk_h, bottom=(i + 1) * chunk_h, element_indexes=m)
        for i, m in members.items()
    ]
    # Built without validation (every value above already has its field's type): validating
    # thousands of rows was a fifth of the Python side's time on a large page.
    for row in rows:
        if row["box"] is not None:
            row["box"] = trusted(Box, row["box"])
    elements = [trusted(Element, row) for row in rows]
    return Snapshot.model_construct(
        url=url,
        title=title,
        viewport={"width": scroll.width, "height": scroll.height},
        scroll_y=float(scroll_top),
        scroll_container=scroll.container_selector,
        elements=elements,
        chunks=order_chunks(chunks, scroll_top, chunk_h),
    )


@dataclass
class CanvasFacts:
    """A visible ``<canvas>`` found in a frame (the tree only lists labelled ones)."""

    box: BoxPx
    name: str
    facts: NodeFacts

    @classmethod
    def read(cls, raw: dict[str, Any]) -> CanvasFacts:
        x, y, width, height = (int(v) for v in raw["box"])
        facts = NodeFacts(
            tag="canvas",
            xpath=raw.get("xpath"),
            css=raw.get("css"),
            in_container=bool(raw.get("inContainer")),
        )
        return cls(BoxPx(x, y, width, height), raw.get("name") or "", facts)


def attach_canvases(
    lines: list[Line], facts: dict[int, NodeFacts], canvases: dict[str, list[CanvasFacts]]
) -> None:
    """Mark the lines whose element is a canvas, and add a line for each canvas the tree left
    out. A canvas line shows its size and name and is never actionable."""
    by_box = {
        (line.frame_ref, line.node.box): i
        for i, line in enumerate(lines)
        if line.node is not None and line.node.box is not None
    }
    for frame_ref, found in canvases.items():
        for canvas in found:
            i = by_box.get((frame_ref, canvas.box))
            if i is None:
                anchor = AriaNode(role="canvas", box=canvas.box, frame_ref=frame_ref)
                lines.append(Line(kind="canvas", role="canvas", frame_ref=frame_ref, anchor=anchor))
                i = len(lines) - 1
            line = lines[i]
            line.kind, line.role = "canvas", "canvas"
            line.name = line.name or (line.node.name if line.node else "") or canvas.name
            line.text = ""
            line.attributes = {"size": f"{canvas.box.width}x{canvas.box.height}"}
            facts[i] = canvas.facts
