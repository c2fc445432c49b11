"""See what the model sees: the page's snapshot, and a screenshot with numbered boxes."""

from __future__ import annotations

import contextlib
import logging
import os
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame as AsyncFrame
from playwright.async_api import Page as AsyncPage

from ..._config import SNAPSHOT_MODES, SnapshotMode
from ..._errors import ConfigurationError, SerializationError
from ..._inputs import check_screenshot_path
from ..._snapshot import Snapshot
from ...dom._js import load_js
from ...dom._wire import FramePart, load_wire, snapshot_from_wire
from .._deadline import compute_in_time
from ..aria.snapshot import take_aria_snapshot
from .devtools import prepare_page
from .frames import MAX_FRAMES, frame_at
from .scripts import run_page_script

logger = logging.getLogger("stagehand_py")

# Characters of one text the serializer sends before cutting it (and saying so): far more
# than the rendering shows (dom._render.MAX_TEXT_CHARS), so that redaction sees whole values.
WIRE_TEXT_CHARS = 2000


async def _evaluate_serializer(page: AsyncPage, options: dict[str, Any]) -> str:
    last_error = ""
    # A navigation can destroy the context mid-walk; the new document is tried once more.
    for _ in range(2):
        try:
            result = await run_page_script(page, "serializer", load_js("serializer"), options)
        except PlaywrightError as exc:
            last_error = (exc.message or str(exc)).splitlines()[0]
            with contextlib.suppress(PlaywrightError):
                await page.wait_for_load_state("domcontentloaded", timeout=5000)
            continue
        if not isinstance(result, str):
            raise SerializationError(
                f"The page serializer returned {type(result).__name__}, not a JSON string, on "
                f"{page.url}. A script on the page may have replaced JSON.stringify."
            )
        return result
    raise SerializationError(
        f"Could not serialize {page.url}: {last_error}. If the page keeps navigating, wait for "
        "it to settle before calling act/extract/observe."
    )


async def _serialize_frame(frame: AsyncFrame, options: dict[str, Any]) -> dict[str, Any] | None:
    try:
        result = await run_page_script(frame, "serializer", load_js("serializer"), options)
    except PlaywrightError as exc:
        # Navigating or detached while we looked: the rest of the page is still worth showing.
        logger.info("stagehand_py: frame %s not serialized: %s", frame.url, exc.message)
        return None
    return load_wire(result) if isinstance(result, str) else None


async def _cross_origin_parts(
    page: AsyncPage, top: dict[str, Any], options: dict[str, Any]
) -> list[FramePart]:
    """Serialize, each with its own evaluate, the frames the top walk could not enter
    (cross-origin, out-of-process ones included), and the ones those could not enter."""
    parts: list[FramePart] = []
    # (part index, its frame, its frame path, what its walk reported), parents first.
    pending: list[tuple[int, AsyncFrame, list[str], dict[str, Any]]] = [
        (0, page.main_frame, [], top)
    ]
    while pending:
        parent, parent_frame, parent_path, raw = pending.pop(0)
        for report in raw.get("cross_origin_frames", []):
            if len(parts) >= MAX_FRAMES:
                logger.info(
                    "stagehand_py: more than %d cross-origin frames; the rest are not shown",
                    MAX_FRAMES,
                )
                return parts
            frame = await frame_at(parent_frame, report["path"])
            if frame is None:
                continue
            child_options = {
                **options,
                "frame": {k: report[k] for k in ("x", "y", "clip", "inside")},
                "geometry": top["geometry"],
            }
            child = await _serialize_frame(frame, child_options)
            if child is None:
                continue
            path = parent_path + list(report["path"])
            parts.append(FramePart(parent=parent, at=int(report["at"]), path=path, raw=child))
            pending.append((len(parts), frame, path, child))
    return parts


async def take_snapshot(
    page: AsyncPage,
    *,
    chunk_ratio: float = 0.75,
    max_text: int = WIRE_TEXT_CHARS,
    mode: SnapshotMode = "dom",
) -> Snapshot:
    """Serialize ``page``: numbered elements (light DOM, shadow roots, iframes of any
    origin) and chunks of ``chunk_ratio`` x viewport height, nearest to the scroll first.

    Same-origin frames are walked with their parent document; every frame the walk cannot
    enter (another origin) gets its own evaluate and its rows are stitched into the one
    numbered list. ``max_text``: characters of one page text sent before it is cut.
    ``mode="aria"``: the same list from Playwright's accessibility tree (``aria_snapshot``).
    """
    if mode not in SNAPSHOT_MODES:
        raise ConfigurationError(f"mode must be one of {SNAPSHOT_MODES}, got {mode!r}.")
    if not 0.1 <= chunk_ratio <= 10:
        raise ConfigurationError(
            f"chunk_ratio must be between 0.1 and 10 (a fraction of the viewport height), "
            f"got {chunk_ratio}."
        )
    # Script listeners and closed shadow roots, read through DevTools (Chromium).
    await prepare_page(page)
    if mode == "aria":
        return await take_aria_snapshot(page, chunk_ratio=chunk_ratio)
    options = {"chunkRatio": chunk_ratio, "maxText": max_text}
    raw = await _evaluate_serializer(page, options)
    # Decoding a huge page takes seconds: bounded by the call's deadline (hardening #13).
    top = await compute_in_time(lambda: load_wire(raw))
    frames = await _cross_origin_parts(page, top, options) if top.get("cross_origin_frames") else []
    return await compute_in_time(lambda: snapshot_from_wire(top, frames))


async def annotated_screenshot(
    page: AsyncPage, path: str | os.PathLike[str], *, snapshot: Snapshot | None = None
) -> Snapshot:
    """Write a full-page screenshot to ``path`` with each element's number drawn in a box.

    The overlay is removed again afterwards, whatever happens, so the page is left as it was.
    Returns the snapshot the numbers belong to.
    """
    check_screenshot_path(path)
    if snapshot is None:
        snapshot = await take_snapshot(page)
    boxes = [
        {"index": e.index, "interactive": e.interactive, **e.box.model_dump()}
        for e in snapshot.elements
        if e.box is not None
    ]
    annotate = load_js("annotate.js")
    # A handle, not a value: "draw" returns the form fields Chromium's screenshot will stamp
    # with an empty style attribute, and "remove" needs those very elements back.
    bare = await page.evaluate_handle(annotate, {"action": "draw", "boxes": boxes, "bare": []})
    try:
        await page.screenshot(path=os.fspath(path), full_page=True)
    finally:
        await page.evaluate(annotate, {"action": "remove", "boxes": [], "bare": bare})
        await bare.dispose()
    return snapshot
