"""``allowed_domains``, held on every page the agent reads or acts on.

One check, asked at three moments: the page each step's look shows (a meta refresh or a
script may have moved it since the last step), the page each action is about to run on (it
may have moved while the model thought), and the page an action led to. Outside the allowed
domains, the agent goes back to the last page it was allowed on (or closes the tab that
page opened) and nothing runs there. The page the run started on is always allowed: the
caller put the agent there.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as AsyncPage

from ...agent._clock import RunClock
from ...agent._navigation import domain_allowed
from ..browser.interrupt import devtools_session, session_value
from .observe import same_page

_RETURN_TIMEOUT_MS = 30_000
# How long a page is given to say where it is before an action. A page busy for longer holds
# the action up too; the driver's record of its URL then decides alone.
_LOCATION_MS = 1000


@dataclass
class AllowedPlace:
    """The last page the run was allowed on: where it goes back to."""

    page: AsyncPage
    url: str


@dataclass(frozen=True)
class AllowedDomains:
    """``allowed_domains`` (None: anywhere) and the URL the run started on."""

    patterns: tuple[str, ...] | None
    start_url: str

    @property
    def limited(self) -> bool:
        return self.patterns is not None

    def allows(self, url: str) -> bool:
        return url == self.start_url or domain_allowed(url, self.patterns)

    def outside(self, url: str) -> str | None:
        """The host ``url`` goes to when it is outside the allowed domains, else None."""
        if self.allows(url):
            return None
        try:
            return urlsplit(url).hostname or url
        except ValueError:
            return url


async def urls_now(page: AsyncPage) -> list[str]:
    """Where ``page`` is, as Playwright's driver records it and as the page itself says.

    ``page.url`` moves only once the driver has processed the navigation's event, which on a
    loaded machine can come after the new document has committed (and even loaded): an
    action run then lands in that document. The page's own ``location.href`` (unforgeable),
    read through its DevTools session with no driver bookkeeping in between, already names it.
    Without a session (not Chromium, or a tab opened during the run), or when the page does
    not answer in time, the driver's record stands alone."""
    urls = [page.url]
    session = devtools_session(page)
    if session is None:
        return urls
    with contextlib.suppress(PlaywrightError):
        href = await session_value(session, "location.href", timeout_ms=_LOCATION_MS)
        if isinstance(href, str) and href != urls[0]:
            urls.append(href)
    return urls


async def return_to(page: AsyncPage, place: AllowedPlace, clock: RunClock) -> tuple[AsyncPage, str]:
    """Leave ``page`` (outside the allowed domains) for ``place``: back in the same tab (its
    history, else straight to the URL), or, for another tab, that tab closed. Returns the
    page now in use and what was done, for the outcome's message."""
    if not same_page(page, place.page):
        if not page.is_closed():
            await page.close()
        if not place.page.is_closed():
            await place.page.bring_to_front()
        return place.page, "closed the tab it opened"
    await page.go_back(wait_until="domcontentloaded", timeout=clock.cap_ms(_RETURN_TIMEOUT_MS))
    if page.url != place.url:  # no history, or it led elsewhere (a redirect that replaced it)
        await page.goto(
            place.url, wait_until="domcontentloaded", timeout=clock.cap_ms(_RETURN_TIMEOUT_MS)
        )
    return page, "went back"
