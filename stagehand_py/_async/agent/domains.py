"""``allowed_domains``, held on every page the agent reads or acts on.

One check, asked at three moments: the page each step's look shows (a meta refresh or a
script may have moved it since the last step), the page each action is about to run on (it
may have moved while the model thought), and the page an action led to. Outside the allowed
domains, the agent goes back to the last page it was allowed on (or closes the tab that
page opened) and nothing runs there. The page the run started on is always allowed: the
caller put the agent there.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from playwright.async_api import Page as AsyncPage

from ...agent._clock import RunClock
from ...agent._navigation import domain_allowed
from .observe import same_page

_RETURN_TIMEOUT_MS = 30_000


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
