"""See what the model sees: the page's snapshot, and a screenshot with numbered boxes."""

from __future__ import annotations

import contextlib
import os
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as AsyncPage

from .._errors import ConfigurationError, SerializationError
from .._inputs import check_screenshot_path
from ..dom import Snapshot, load_js, parse_snapshot
from ..dom._snapshot import MAX_TEXT_CHARS
from ._deadline import compute_in_time


async def _evaluate_serializer(page: AsyncPage, options: dict[str, Any]) -> str:
    last_error = ""
    # A navigation can destroy the context mid-walk; the new document is tried once more.
    for _ in range(2):
        try:
            result = await page.evaluate(load_js("serializer"), options)
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


async def take_snapshot(
    page: AsyncPage, *, chunk_ratio: float = 0.75, max_text: int = MAX_TEXT_CHARS
) -> Snapshot:
    """Serialize ``page``: numbered elements (light DOM, open shadow roots, same-origin
    iframes) and chunks of ``chunk_ratio`` x viewport height, nearest to the scroll first."""
    if not 0.1 <= chunk_ratio <= 10:
        raise ConfigurationError(
            f"chunk_ratio must be between 0.1 and 10 (a fraction of the viewport height), "
            f"got {chunk_ratio}."
        )
    options = {"chunkRatio": chunk_ratio, "maxText": max_text}
    raw = await _evaluate_serializer(page, options)
    # Parsing a huge page takes seconds: bounded by the call's deadline (hardening #13).
    return await compute_in_time(lambda: parse_snapshot(raw))


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
