"""The agent's eyes: the state of the browser at the start of a step, and its downloads.

The elements come from the same serializer and :class:`~stagehand_py.Snapshot` act() uses;
the agent shows those in the viewport (at most ``max_elements``) and says how much of the page
lies above and below. Every text is redacted before it leaves this module; a screenshot masks
any element whose text or value holds a secret.
"""

from __future__ import annotations

import logging
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.async_api import Download as AsyncDownload
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator as AsyncLocator
from playwright.async_api import Page as AsyncPage

from ..._config import SnapshotMode
from ..._playwright_identity import identity
from ..._snapshot import Box, Snapshot, render_element
from ..._variables import Variables
from ...agent._clock import RunClock, RunEnded
from ...agent._js import load_agent_js
from ...agent._settings import AgentSettings
from ...agent._state import AgentState, TabInfo
from ..browser.inspect import take_snapshot
from ..browser.locate import frame_scope
from ..browser.settle import PageVersion, page_version, settle

logger = logging.getLogger("stagehand_py")
_SCREENSHOT_TIMEOUT_MS = 10_000
_UNSAFE_NAME = re.compile(r"[^\w.\- ()]+")


@dataclass
class Observation:
    """The state as the model will see it, and the snapshot its element numbers belong to."""

    state: AgentState
    snapshot: Snapshot
    page: AsyncPage
    mode: SnapshotMode = "dom"  # the view the snapshot was taken in (Settings.snapshot)
    # The page's version read right before the snapshot (None: unknown); while the page still
    # has it, an accessibility-tree element is found through the snapshot's aria-ref.
    version: PageVersion | None = None


def same_page(a: object, b: object) -> bool:
    """A wrapped page and the plain page it wraps are the same tab."""
    return identity(a) is identity(b)


def open_pages(page: AsyncPage) -> list[AsyncPage]:
    return [p for p in page.context.pages if not p.is_closed()]


def live_page(page: AsyncPage) -> AsyncPage:
    """``page``, or the last open tab of its context when it was closed."""
    if not page.is_closed():
        return page
    others = open_pages(page)
    if not others:
        raise RunEnded("every tab of the browser context is closed")
    return others[-1]


def _in_view(box: Box | None, top: float, height: float, width: float) -> bool:
    if box is None:
        return False
    return (
        box.y + box.height > top
        and box.y < top + height
        and box.x + box.width > 0
        and (box.x < width)
    )


async def observe(
    page: AsyncPage,
    *,
    step: int,
    settings: AgentSettings,
    variables: Variables,
    clock: RunClock,
    settle_first: bool,
    downloads: list[str],
    mode: SnapshotMode = "dom",
) -> Observation:
    """Look at ``page`` (settling first when the last action did not)."""
    page = live_page(page)
    if settle_first:
        await settle(page, timeout_ms=clock.cap_ms(settings.settle_timeout_ms))
    version = await page_version(page)
    snapshot = await take_snapshot(page, mode=mode)
    view: list[float] = await page.evaluate(load_agent_js("view.js"), snapshot.scroll_container)
    window_y, inner_h, inner_w, scroll_top, scroll_h, client_h = view
    in_view = [e for e in snapshot.elements if _in_view(e.box, window_y, inner_h, inner_w)]
    shown = in_view[: settings.max_elements]
    redact = variables.redact
    tabs = []
    for number, tab in enumerate(open_pages(page)):
        title = await tab.title()
        tabs.append(
            TabInfo(
                id=number, url=redact(tab.url), title=redact(title), current=same_page(tab, page)
            )
        )
    screenshot = None
    if settings.use_vision:
        masks = await _secret_locators(page, snapshot, variables)
        screenshot = await page.screenshot(
            type="png", mask=masks, timeout=clock.cap_ms(_SCREENSHOT_TIMEOUT_MS)
        )
    state = AgentState(
        step=step,
        max_steps=settings.max_steps,
        url=redact(snapshot.url),
        title=redact(snapshot.title),
        tabs=tabs,
        elements={e.index: redact(render_element(e, redact=redact)) for e in shown},
        more_in_view=len(in_view) - len(shown),
        pixels_above=max(0, round(scroll_top)),
        pixels_below=max(0, round(scroll_h - client_h - scroll_top)),
        downloads=list(downloads),
        time_left_s=max(0.0, clock.run_left()),
        screenshot=screenshot,
    )
    return Observation(state=state, snapshot=snapshot, page=page, mode=mode, version=version)


async def _secret_locators(
    page: AsyncPage, snapshot: Snapshot, variables: Variables
) -> list[AsyncLocator]:
    """Elements whose line shows a secret value (a filled field, an echo): masked on screen."""
    if not variables:
        return []
    masks = []
    for element in snapshot.elements:
        if element.selectors and variables.contains_secret(render_element(element)):
            scope = await frame_scope(page, element.frame)
            masks.append(scope.locator(element.selectors[0]))
    return masks


# How often a wait for a download that is about to start looks again.
_DOWNLOAD_POLL_MS = 50


class AsyncDownloadTracker:
    """Collects the downloads any tab of the context starts; saves them between steps."""

    def __init__(self, directory: str | None) -> None:
        self._directory = Path(directory) if directory else None
        self._pending: list[AsyncDownload] = []
        self._watched: list[AsyncPage] = []
        self._context: Any = None
        self.saved: list[str] = []
        self.started = 0  # downloads seen so far (events), saved or not

    def attach(self, page: AsyncPage) -> None:
        self._context = page.context
        self._context.on("page", self._watch)
        for tab in open_pages(page):
            self._watch(tab)

    def detach(self) -> None:
        if self._context is not None:
            self._context.remove_listener("page", self._watch)
        for tab in self._watched:
            tab.remove_listener("download", self._on_download)
        self._watched = []

    def _watch(self, tab: AsyncPage) -> None:
        tab.on("download", self._on_download)
        self._watched.append(tab)

    def _on_download(self, download: AsyncDownload) -> None:
        self._pending.append(download)
        self.started += 1

    async def wait_for_start(self, page: AsyncPage, seen: int, timeout_ms: float) -> bool:
        """Wait (at most ``timeout_ms``) until a download beyond the first ``seen`` has
        started. A click on an ``<a download>`` link returns at once, and the browser starts
        the download only when the server answers: without this, a run that ends right after
        the click would never see its file. Playwright delivers events while it waits."""
        end = time.monotonic() + timeout_ms / 1000
        while self.started <= seen and time.monotonic() < end:
            try:
                await page.wait_for_timeout(_DOWNLOAD_POLL_MS)
            except PlaywrightError:  # the page closed meanwhile
                return False
        return self.started > seen

    def _target_dir(self) -> Path:
        if self._directory is None:
            self._directory = Path(tempfile.mkdtemp(prefix="stagehand-agent-downloads-"))
        self._directory.mkdir(parents=True, exist_ok=True)
        return self._directory

    def _free_name(self, suggested: str) -> Path:
        directory = self._target_dir()
        name = _UNSAFE_NAME.sub("_", Path(suggested).name).strip(". ") or "download"
        stem, suffix = Path(name).stem, Path(name).suffix
        candidate, number = directory / name, 2
        while candidate.exists():
            candidate = directory / f"{stem} ({number}){suffix}"
            number += 1
        return candidate

    async def save_pending(self) -> list[str]:
        """Save every download started since the last call; return their paths."""
        saved: list[str] = []
        while self._pending:
            download = self._pending.pop(0)
            target = self._free_name(download.suggested_filename)
            try:
                await download.save_as(target)
            except PlaywrightError as exc:
                logger.info(
                    "stagehand_py: download %s failed: %s",
                    download.suggested_filename,
                    (exc.message or str(exc)).splitlines()[0],
                )
                continue
            saved.append(str(target))
        self.saved.extend(saved)
        return saved
