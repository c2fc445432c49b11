"""Find the containers of a document that may hold a virtualised list (the ADR's rule).

The scroll search itself is the act loop's (:mod:`.act_vlist`).
"""

from __future__ import annotations

import json
import logging

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame as AsyncFrame
from playwright.async_api import Page as AsyncPage

from ..._errors import PageError
from ...aria._vlist import MIN_RATIO, ListContainer, rank_containers
from ...dom._js import load_js
from ..browser.scripts import run_page_script

logger = logging.getLogger("stagehand_py")


async def find_list_containers(
    page: AsyncPage | AsyncFrame, *, min_ratio: float = MIN_RATIO
) -> list[ListContainer]:
    """Candidate containers in the document of ``page`` (a page or a frame), scrollers first."""
    options = json.dumps({"task": "lists", "minRatio": min_ratio})
    try:
        raw = await run_page_script(page, "aria_page", load_js("aria_page"), options)
        found = [ListContainer.read(item) for item in json.loads(raw)["lists"]]
    except PlaywrightError as exc:
        raise PageError(
            f"Could not look for scrollable lists on {page.url}: "
            f"{(exc.message or str(exc)).splitlines()[0]}"
        ) from None
    return rank_containers(found)
