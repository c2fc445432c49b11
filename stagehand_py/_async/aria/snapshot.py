"""The accessibility-tree view of a page: Playwright's aria snapshot as a numbered, chunked
:class:`Snapshot` whose elements carry a verified locator ladder.

One ``page.aria_snapshot(mode="ai", boxes=True)`` gives the tree (frames included). One
``dom/aria_page/`` evaluate per frame (in the top one, also the scroll geometry and the
title) matches each listed node to its DOM element by box and
reports what the ladder needs (labels, placeholder, text, test id, css, xpath, each with its
uniqueness counted the way Playwright's engines count). Rungs whose uniqueness the tree or
those counts prove are kept as they are; the others (label, text, a role whose name the tree
may have blanked, a box shared by several elements) are checked through Playwright: the
selector must match exactly one element, and that element must be the node's ``aria-ref``.
A control left without any rung is listed but not offered as actionable.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections import defaultdict
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame as AsyncFrame
from playwright.async_api import Page as AsyncPage

from ..._errors import SerializationError
from ..._snapshot import Snapshot
from ...aria._assemble import (
    MAX_RUNGS,
    USER_FACING,
    CanvasFacts,
    FrameInfo,
    LineFindings,
    NodeFacts,
    Scroll,
    actionable,
    attach_canvases,
    build_snapshot,
    candidate_rungs,
    frame_selector,
)
from ...aria._clickables import FrameClickables, merge_clickables
from ...aria._ladder import Rung
from ...aria._lines import CONTROL_ROLES, Line, collect_lines, role_census
from ...aria._parser import AriaNode, parse_aria_snapshot
from ...dom._js import load_js
from ...dom._wire import _cyclic_gc_paused
from ..browser.locate import frame_scope
from ..browser.scripts import run_page_script
from .checks import resolves_to_ref

logger = logging.getLogger("stagehand_py")

_FACTS_TIMEOUT_MS = 10_000
_WANT_CONTENT, _WANT_CONTROL, _WANT_IFRAME, _WANT_POINTER = 0, 1, 2, 3


async def _aria_text(page: AsyncPage) -> str:
    last_error = ""
    for _ in range(2):  # a navigation can replace the document mid-snapshot: try once more
        try:
            return await page.aria_snapshot(mode="ai", boxes=True)
        except PlaywrightError as exc:
            last_error = (exc.message or str(exc)).splitlines()[0]
            with contextlib.suppress(PlaywrightError):
                await page.wait_for_load_state("domcontentloaded", timeout=5000)
    raise SerializationError(
        f"Could not take the accessibility snapshot of {page.url}: {last_error}. If the page "
        "keeps navigating, wait for it to settle first."
    )


def _wanted(lines: list[Line], every: list[AriaNode]) -> dict[str, list[list[Any]]]:
    """Per frame, the nodes whose DOM element the facts script should find (``every``: all
    the tree's nodes, in document order)."""
    wanted: dict[str, list[list[Any]]] = defaultdict(list)

    def add(node: AriaNode, kind: int) -> None:
        if node.ref and node.box is not None and node.box.visible:
            b = node.box
            wanted[node.frame_ref].append([node.ref, node.role, b.x, b.y, b.width, b.height, kind])

    for line in lines:
        if line.node is None:
            continue
        if line.kind != "control":
            add(line.node, _WANT_CONTENT)
        else:  # a line clickable only by its pointer cursor may be split (aria/_clickables.py)
            add(line.node, _WANT_CONTROL if line.node.role in CONTROL_ROLES else _WANT_POINTER)
    for node in every:
        if node.role == "iframe":
            add(node, _WANT_IFRAME)
    return wanted


async def _frame_facts(frame: AsyncFrame, wanted: list[list[Any]], top: bool) -> dict[str, Any]:
    # One string argument: Playwright's client validates a nested argument value by value,
    # which on a large page costs seconds; a string crosses in one piece.
    options = json.dumps({"task": "facts", "wanted": wanted, "top": top, "clickables": True})
    try:
        raw = await run_page_script(frame, "aria_page", load_js("aria_page"), options)
    except PlaywrightError as exc:
        if top:
            raise SerializationError(
                f"Could not read the elements of {frame.url}: "
                f"{(exc.message or str(exc)).splitlines()[0]}."
            ) from None
        logger.debug("stagehand_py: aria facts unavailable in frame %s", frame.url)
        return {"nodes": {}, "canvases": [], "scroll": None, "clickables": [], "covered": []}
    if not isinstance(raw, str):
        raise SerializationError(
            f"The element reader returned {type(raw).__name__}, not a JSON string, on "
            f"{frame.url}. A script on the page may have replaced JSON.stringify."
        )
    try:
        parsed: dict[str, Any] = json.loads(raw)
    except ValueError:
        raise SerializationError(
            f"The element reader returned unreadable data on {frame.url}."
        ) from None
    return parsed


async def _child_frame(parent: AsyncFrame, selector: str) -> AsyncFrame | None:
    """The document of the ``<iframe>`` that ``selector`` finds in ``parent``."""
    try:
        handle = await parent.locator(selector).element_handle(timeout=_FACTS_TIMEOUT_MS)
        try:
            return await handle.content_frame()
        finally:
            await handle.dispose()
    except PlaywrightError:
        return None


class _Facts:
    """Facts of every frame, gathered top frame first (a child needs its iframe's path)."""

    def __init__(self) -> None:
        self.nodes: dict[str, NodeFacts] = {}
        self.canvases: dict[str, list[CanvasFacts]] = {}
        self.clickables: dict[str, FrameClickables] = {}
        self.frames: dict[str, FrameInfo] = {"": FrameInfo(path=[])}
        self.documents: dict[str, AsyncFrame] = {}
        self.scroll: Scroll | None = None
        self.title: str | None = None  # the top document's, read with its facts

    async def gather(self, page: AsyncPage, every: list[AriaNode], lines: list[Line]) -> None:
        wanted = _wanted(lines, every)
        iframes: dict[str, list[AriaNode]] = defaultdict(list)
        for node in every:
            if node.role == "iframe" and node.ref:
                iframes[node.frame_ref].append(node)
        self.documents[""] = page.main_frame
        queue = [""]
        while queue:
            frame_ref = queue.pop(0)
            document = self.documents.get(frame_ref)
            if document is None:
                continue
            raw = await _frame_facts(document, wanted.get(frame_ref, []), not frame_ref)
            try:
                self._read(frame_ref, raw)
            except (KeyError, TypeError, ValueError, IndexError) as exc:
                raise SerializationError(
                    f"The element reader returned data stagehand_py cannot read ({exc}) on "
                    f"{page.url}. This is a bug in stagehand_py; please report it."
                ) from None
            for iframe in iframes.get(frame_ref, []):
                info = self._child_frame(frame_ref, iframe)
                self.frames[iframe.ref] = info
                if info.path is not None:
                    child = await _child_frame(document, info.path[-1])
                    if child is not None:
                        self.documents[iframe.ref] = child
                        queue.append(iframe.ref)

    def _read(self, frame_ref: str, raw: dict[str, Any]) -> None:
        for ref, node_raw in raw["nodes"].items():
            self.nodes[ref] = NodeFacts.read(node_raw)
        self.canvases[frame_ref] = [CanvasFacts.read(c) for c in raw["canvases"]]
        self.clickables[frame_ref] = FrameClickables.read(raw)
        if not frame_ref:
            self.scroll = Scroll.read(raw["scroll"])
            title = raw.get("title")
            self.title = title if isinstance(title, str) else None

    def _child_frame(self, parent_ref: str, iframe: AriaNode) -> FrameInfo:
        parent = self.frames[parent_ref]
        facts = self.nodes.get(iframe.ref)
        selector = frame_selector(facts) if facts else None
        if parent.path is None or facts is None or selector is None or facts.offset is None:
            return FrameInfo(path=None)
        if facts.ambiguous:
            logger.debug("stagehand_py: iframe %s shares its box; located by order", iframe.ref)
        return FrameInfo(
            path=[*parent.path, selector],
            dx=parent.dx + facts.offset[0],
            dy=parent.dy + facts.offset[1],
            in_container=facts.in_container if not parent_ref else parent.in_container,
        )


async def _choose_rungs(
    page: AsyncPage,
    line: Line,
    facts: NodeFacts | None,
    candidates: list[tuple[Rung, bool]],
    frame: list[str],
) -> list[Rung]:
    """Walk the ladder: proven rungs are kept; an unproven one is checked in the browser, but
    only while no user-facing rung is held yet (or as the any-case twin of a kept text rung).
    It must find the node's ``aria-ref``, or for a line the tree has no node for (a page's
    clickable), the element its structural rung finds."""
    ref = line.node.ref if line.node else ""
    structural = facts.structural_rungs() if facts is not None and not ref else []
    identity = structural[0].selector if structural and facts and not facts.closed else ""
    kept: list[Rung] = []
    for rung, proven in candidates:
        if len(kept) >= MAX_RUNGS:
            break
        if not proven:
            twin = rung.kind == "text_normalized" and bool(kept) and kept[-1].kind == "text"
            if (
                not actionable(line)
                or not (ref or identity)
                or (any(k.kind in USER_FACING for k in kept) and not twin)
            ):
                continue
            if ref:
                if not await resolves_to_ref(page, frame, rung.selector, ref):
                    continue
            elif not await _same_element(page, frame, rung.selector, identity):
                continue
        kept.append(rung)
    return kept


async def _same_element(page: AsyncPage, frame: list[str], selector: str, identity: str) -> bool:
    """True when ``selector`` matches exactly one element, the one ``identity`` (a structural
    selector, unique by construction) finds."""
    scope = await frame_scope(page, frame)
    located = scope.locator(selector)
    try:
        return (
            await located.count() == 1 and await located.and_(scope.locator(identity)).count() == 1
        )
    except PlaywrightError:
        return False


async def take_aria_snapshot(page: AsyncPage, *, chunk_ratio: float = 0.75) -> Snapshot:
    """The accessibility-tree view of ``page`` (see the module docstring)."""
    text = await _aria_text(page)
    with _cyclic_gc_paused():
        roots = parse_aria_snapshot(text)
        lines = collect_lines(roots)
        census = role_census(roots)
        every = [node for root in roots for node in root.nodes()]  # walked once, used thrice
    gathered = _Facts()
    await gathered.gather(page, every, lines)
    by_ref = {node.ref: node for node in every if node.ref}
    lines, found = merge_clickables(lines, gathered.clickables, by_ref)
    line_facts: dict[int, NodeFacts] = {}
    for i, line in enumerate(lines):
        if id(line) in found:
            line_facts[i] = found[id(line)]
        elif line.node is not None and line.node.ref in gathered.nodes:
            line_facts[i] = gathered.nodes[line.node.ref]
    attach_canvases(lines, line_facts, gathered.canvases)
    rungs: dict[int, list[Rung]] = {}
    for i, line in enumerate(lines):
        frame = gathered.frames.get(line.frame_ref)
        if frame is None or frame.path is None:
            continue
        facts = line_facts.get(i)
        if facts is not None and facts.ambiguous and line.node is not None:
            # Several elements share the node's box: keep the match only if Playwright agrees.
            structural = facts.structural_rungs()
            agreed = (
                line.kind == "control"
                and bool(structural)
                and await resolves_to_ref(page, frame.path, structural[0].selector, line.node.ref)
            )
            if not agreed:
                facts = None
                line_facts.pop(i)
        candidates = candidate_rungs(line, facts, census)
        rungs[i] = await _choose_rungs(page, line, facts, candidates, frame.path)
    scroll = gathered.scroll
    if scroll is None:  # unreachable: the top frame always reports its scroll geometry
        raise SerializationError(f"No scroll geometry was read from {page.url}.")
    title = gathered.title if gathered.title is not None else await page.title()
    with _cyclic_gc_paused():
        findings = LineFindings(lines, line_facts, rungs, gathered.frames)
        return build_snapshot(page.url, title, scroll, chunk_ratio, findings)
