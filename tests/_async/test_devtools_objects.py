"""Before each look the page's documents are prepared through DevTools (closed shadow roots,
click listeners). DevTools keeps the objects an answer names until they are released: a look
that made some releases them, and one that made none spends no round trip on it."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import CDPSession as AsyncCDPSession
from playwright.async_api import Page as AsyncPage

from stagehand_py._async.browser.inspect import take_snapshot


def _count_devtools(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The DevTools methods sent from now on."""
    sent: list[str] = []
    send = AsyncCDPSession.send

    async def counted(self: AsyncCDPSession, method: str, *args: Any, **kwargs: Any) -> Any:
        sent.append(method)
        return await send(self, method, *args, **kwargs)

    monkeypatch.setattr(AsyncCDPSession, "send", counted)
    return sent


@pytest.mark.parametrize("mode", ["dom", "aria"])
@pytest.mark.parametrize("path", ["form.html", "aria/roles.html"])
@pytest.mark.no_sync_twin
async def test_a_look_with_nothing_new_to_ask_about_releases_nothing(
    async_page: AsyncPage, pages_url: str, monkeypatch: pytest.MonkeyPatch, path: str, mode: Any
) -> None:
    await async_page.goto(pages_url + path)
    for _ in range(3):  # every element that may host a closed root is asked about once
        await take_snapshot(async_page, mode=mode)
    sent = _count_devtools(monkeypatch)

    await take_snapshot(async_page, mode=mode)

    assert "Runtime.evaluate" in sent
    assert "Runtime.releaseObjectGroup" not in sent


# A page with more candidate hosts than one look asks about (60): each look that lists some
# releases what it was given, until none is left.
MANY_ICONS = (
    "<main>"
    + "".join(
        f'<p>Item {i} <span style="display:inline-block;width:9px;height:9px"></span></p>'
        for i in range(130)
    )
    + "</main>"
)


@pytest.mark.no_sync_twin
async def test_every_look_that_lists_elements_releases_them(
    async_page: AsyncPage, pages_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    await async_page.goto(pages_url + "hybrid/closed_shadow.html")
    sent = _count_devtools(monkeypatch)
    await take_snapshot(async_page)
    assert "DOM.describeNode" in sent and "Runtime.releaseObjectGroup" in sent

    await async_page.set_content(MANY_ICONS)
    released = []
    for _ in range(4):
        sent.clear()
        await take_snapshot(async_page)
        asked = sent.count("DOM.describeNode")
        released.append((asked, sent.count("Runtime.releaseObjectGroup")))
    assert released == [(60, 1), (60, 1), (10, 1), (0, 0)]
