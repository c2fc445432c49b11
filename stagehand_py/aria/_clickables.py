"""The page's clickables merged into the tree's lines: the hybrid of both (pure Python).

Playwright's tree gives the semantics (roles, names, states) but keeps no node, or no line of
its own, for much of what a page makes clickable without markup: a ``cursor:pointer`` span or
an ``<a>`` without ``href`` inside a paragraph, a "+" handled by a script listener, an
icon-only control, "Reply" and "Forward" under one clickable container (one pointer line,
"Reply Forward"), and anything inside a closed shadow root. The page side
(``dom/aria_page/25_clickables.js``, with the DOM view's own detection) lists those, each with
its ``anchor``: the tree line it follows in the page's order. :func:`merge_clickables` puts a
line for each right after its anchor, and drops the tree lines they cover: a content or
pointer line whose whole text is theirs, and a bare text line saying what one of them says;
a content line whose text they say for the most part keeps only the rest (a datepicker's
"Prev May 2027 Next 1 2 3 ..." becomes "May 2027", the days and arrows being lines of
their own).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ._assemble import NodeFacts
from ._lines import Line
from ._parser import AriaNode, BoxPx


@dataclass(frozen=True)
class Clickable:
    """One element the page side listed (see ``describeClickable``)."""

    kind: str  # "text" | "icon" | "control" (inside a closed root) | "content" (ditto)
    role: str
    box: BoxPx
    name: str = ""
    text: str = ""
    hint: str = ""
    anchor: str = ""  # ref of the tree line it follows ("" when none comes before it)
    ref: str = ""  # ref of the tree node that is this very element, if any
    placeholder: str = ""
    checked: bool = False
    disabled: bool = False
    facts: NodeFacts | None = None

    @classmethod
    def read(cls, raw: dict[str, Any]) -> Clickable:
        x, y, width, height = (int(v) for v in raw["box"])
        facts = NodeFacts(
            tag=str(raw["tag"]),
            xpath=raw.get("xpath"),
            css=raw.get("css"),
            closed=raw.get("closed"),
            in_container=bool(raw.get("inContainer")),
            text=raw.get("textRung"),
            text_any_case=bool(raw.get("textAnyCase")),
        )
        return cls(
            kind=str(raw["kind"]),
            role=str(raw.get("role") or "generic"),
            box=BoxPx(x, y, width, height),
            name=str(raw.get("name") or ""),
            text=str(raw.get("text") or ""),
            hint=str(raw.get("hint") or ""),
            anchor=str(raw.get("anchor") or ""),
            ref=str(raw.get("ref") or ""),
            placeholder=str(raw.get("placeholder") or ""),
            checked=bool(raw.get("checked")),
            disabled=bool(raw.get("disabled")),
            facts=facts,
        )

    def line(self, frame_ref: str, node: AriaNode | None) -> Line:
        control = self.kind != "content"
        attributes: dict[str, str] = {}
        if self.checked:
            attributes["checked"] = ""
        if self.disabled:
            attributes["disabled"] = ""
        if self.placeholder:
            attributes["placeholder"] = self.placeholder
        if self.hint:
            attributes["hint"] = self.hint
        return Line(
            kind="control" if control else "content",
            role=self.role if control else "text",
            frame_ref=frame_ref,
            name=self.name if control else "",
            text=self.text,
            node=node,
            anchor=AriaNode(role=self.role, box=self.box, frame_ref=frame_ref),
            attributes=attributes,
        )


@dataclass
class FrameClickables:
    """What the page side listed in one frame: the items and the refs of covered lines."""

    items: list[Clickable]
    covered: set[str]
    rests: dict[str, str]  # ref -> what is left of a line's text when they say most of it

    @classmethod
    def read(cls, raw: dict[str, Any]) -> FrameClickables:
        return cls(
            [Clickable.read(c) for c in raw.get("clickables") or []],
            {str(ref) for ref in raw.get("covered") or []},
            {str(ref): str(rest) for ref, rest in (raw.get("rests") or {}).items()},
        )


def merge_clickables(
    lines: Sequence[Line], found: dict[str, FrameClickables], nodes: dict[str, AriaNode]
) -> tuple[list[Line], dict[int, NodeFacts]]:
    """The lines with the page's clickables in place (see the module docstring), and the facts
    of each new line, keyed by ``id()`` of the line."""
    facts: dict[int, NodeFacts] = {}
    pending: dict[tuple[str, str], list[Line]] = {}
    texts: dict[tuple[str, str], set[str]] = {}
    for frame_ref, listed in found.items():
        for item in listed.items:
            line = item.line(frame_ref, nodes.get(item.ref) if item.ref else None)
            if item.facts is not None:
                facts[id(line)] = item.facts
            pending.setdefault((frame_ref, item.anchor), []).append(line)
            if item.text:
                texts.setdefault((frame_ref, item.anchor), set()).add(item.text)
    covered = {(frame_ref, ref) for frame_ref, f in found.items() for ref in f.covered}
    out: list[Line] = []
    started: set[str] = set()
    last_anchor: dict[str, str] = {}
    for line in lines:
        frame_ref = line.frame_ref
        if frame_ref not in started:  # what comes before any tree line of this frame
            started.add(frame_ref)
            out += pending.pop((frame_ref, ""), [])
            last_anchor[frame_ref] = ""
        ref = line.node.ref if line.node is not None else ""
        if ref and (frame_ref, ref) in covered and line.kind in ("content", "control"):
            pass  # its whole text is said by the lines of its clickables, inserted below
        elif (
            not ref
            and line.role == "text"
            and line.text in texts.get((frame_ref, last_anchor[frame_ref]), ())
        ):
            continue  # a bare text line repeating a clickable just listed
        else:
            rest = found[frame_ref].rests.get(ref) if ref and frame_ref in found else None
            if rest is not None and line.kind == "content" and line.role != "heading":
                line.text = rest  # the clickables listed below say the rest
            out.append(line)
        if ref:
            out += pending.pop((frame_ref, ref), [])
            last_anchor[frame_ref] = ref
    for left in pending.values():  # a frame without tree lines of its own
        out += left
    return out, facts
