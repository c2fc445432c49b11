"""What settle() waits for after an action (issue 12, item 3), on tests/pages/loop/.

Each case clicks a button whose page reacts later in its own way, then settles once and reads
the page at once: the change must already be there. The old DOM-quiet window (100 ms) missed
the timers, the chained and fetched updates and the transition.
"""

from __future__ import annotations

import asyncio
import time
import urllib.parse

import pytest
from playwright.async_api import Page as AsyncPage
from playwright.async_api import Route as PlaywrightRoute

from stagehand_py._async.browser.executor import perform
from stagehand_py._async.browser.scripts import run_page_script
from stagehand_py._async.browser.settle import SHORT_TIMER_MS, arm, page_version, settle
from stagehand_py.dom._js import load_js
from tests.site_server import Route, site_server

WAYS = ["microtask", "timer0", "timer300", "chain", "raf2", "fetch", "transition"]


@pytest.mark.parametrize("how", WAYS)
@pytest.mark.no_sync_twin
async def test_settle_waits_for_what_the_action_set_off(
    async_page: AsyncPage, pages_url: str, how: str
) -> None:
    await async_page.goto(pages_url + "loop/reactions.html")
    await settle(async_page)
    before = await arm(async_page)
    await async_page.locator(f"button[data-how={how}]").click()
    after = await settle(async_page, timeout_ms=5000)
    assert await async_page.locator("#out").inner_text() == how
    assert before is not None and after is not None and after.doc == before.doc
    assert after.changes > before.changes


@pytest.mark.no_sync_twin
async def test_the_version_counts_changes_and_a_navigation_makes_a_new_one(
    async_page: AsyncPage, pages_url: str
) -> None:
    await async_page.goto(pages_url + "loop/reactions.html")
    first = await settle(async_page)
    assert first is not None and await page_version(async_page) == first
    before = await arm(async_page)
    await async_page.locator("button[data-how=none]").click()
    assert await settle(async_page) == before  # nothing changed: the same version
    await async_page.locator("button[data-how=microtask]").click()
    changed = await page_version(async_page)
    assert changed is not None and changed.doc == first.doc and changed != first
    await async_page.goto(pages_url + "loop/reactions.html")
    fresh = await page_version(async_page)  # a new document: a new watcher, a new id
    assert fresh is not None and fresh.doc != first.doc


# Reactions that come with the next rendering step rather than as a task: after an action that
# scrolls, "unchanged" is only said once the scroll ended and two frames have passed. Without
# that wait the result depends on where in its frame the action landed, so each case runs
# several rounds. (A click whose handler scrolls the page by script gets the same two frames.)
# A key's smooth scroll on a page whose scroll handler is slow has frames further apart than
# any quiet window: the settle waits for its scrollend (these fail on every round without).
RENDERED_CASES = [
    ("scroll", "#notice", ["bottom"], "scroll", 10),
    ("scroll", "#feed", ["bottom"], "intersection", 10),
    ("press", "#notice", ["End"], "scroll", 10),
    ("click", "#jump", [], "footer", 10),
    ("press", "#heavy", ["End"], "heavy", 2),
    ("press", "#heavy", ["Space"], "heavy", 2),
    ("press", "#heavy", ["PageDown"], "heavy", 2),
]


@pytest.mark.parametrize(
    ("method", "selector", "args", "shown", "rounds"),
    RENDERED_CASES,
    ids=[
        "scroll-event",
        "intersection-observer",
        "scrolling-key",
        "page-scrolled-by-script",
        "end-with-a-slow-scroll-handler",
        "space-with-a-slow-scroll-handler",
        "page-down-with-a-slow-scroll-handler",
    ],
)
@pytest.mark.no_sync_twin
async def test_after_a_scroll_settle_waits_for_what_comes_with_the_next_frames(
    async_page: AsyncPage,
    pages_url: str,
    method: str,
    selector: str,
    args: list[str],
    shown: str,
    rounds: int,
) -> None:
    for _ in range(rounds):
        await async_page.goto(pages_url + "loop/rendered.html")
        done = await perform(
            async_page, method=method, selectors=[selector], args=args, quiet_ms=20
        )
        assert await async_page.locator("#out").inner_text() == shown
        assert done.before is not None and done.after is not None
        assert done.after.changes > done.before.changes


# On a loaded machine a key's scroll can start several frames after the key. A key with room
# to scroll (down from the top, up from the end) is waited for until its scroll starts; here
# the page starts it six frames late, after a key event that has no default action.
@pytest.mark.parametrize(
    ("key", "start", "top", "shown"),
    [("End", 0, 10_000, "scroll"), ("PageUp", 10_000, 0, "top")],
    ids=["down", "up"],
)
async def test_a_key_whose_scroll_starts_late_is_waited_for(
    async_page: AsyncPage, pages_url: str, key: str, start: int, top: int, shown: str
) -> None:
    await async_page.goto(pages_url + "loop/rendered.html")
    await async_page.evaluate("start => { notice.scrollTop = start; out.textContent = ''; }", start)
    await settle(async_page)
    before = await arm(async_page, frames=True)
    await async_page.evaluate(
        """([key, top]) => {
            notice.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true }));
            scrollLate(top, 6);
        }""",
        [key, top],
    )
    after = await settle(async_page, timeout_ms=5000, quiet_ms=20)
    assert await async_page.locator("#out").inner_text() == shown
    assert before is not None and after is not None and after.changes > before.changes


# A key with nothing to scroll (at the top already; End in a field moves its caret) is not
# waited on either.
@pytest.mark.parametrize(
    ("method", "selector", "args"),
    [
        ("scroll", "#notice", ["50%"]),
        ("fill", "#note", ["a note"]),
        ("press", "#notice", ["Home"]),
        ("press", "#note", ["End"]),
    ],
    ids=["scroll", "fill", "home-at-the-top", "end-in-a-field"],
)
@pytest.mark.no_sync_twin(keep=["scroll"])
async def test_an_action_that_sets_off_nothing_is_not_waited_on(
    async_page: AsyncPage, pages_url: str, method: str, selector: str, args: list[str]
) -> None:
    await async_page.goto(pages_url + "loop/rendered.html")
    started = time.monotonic()
    done = await perform(
        async_page, method=method, selectors=[selector], args=args, settle_timeout_ms=5000
    )
    assert done.after == done.before  # the same version: nothing changed
    # Two frames at most, not the settle's 5 s window; half that window is the bound, which a
    # loaded machine's slow frames stay well inside.
    assert time.monotonic() - started < 2.5


# A change the action made (at once, or from work the watcher tracked) is settled two frames
# after the last change, not a whole quiet window later: here the window is 5 s, so without
# that rule the settle says "quiet" after 5 s.
@pytest.mark.parametrize(
    ("method", "selector", "args", "where", "shown"),
    [
        ("click", "button[data-how=now]", [], "#out", "now"),
        ("click", "button[data-how=microtask]", [], "#out", "microtask"),
        ("click", "button[data-how=timer]", [], "#out", "timer"),
        ("fill", "#qty", ["3"], "#total", "Total: 30.00"),
    ],
    ids=["at-once", "microtask", "tracked-timer", "fill-with-an-input-handler"],
)
@pytest.mark.no_sync_twin
async def test_a_change_the_action_made_is_settled_once_rendered(
    async_page: AsyncPage,
    pages_url: str,
    method: str,
    selector: str,
    args: list[str],
    where: str,
    shown: str,
) -> None:
    await async_page.goto(pages_url + "loop/calm.html")
    await settle(async_page)
    before = await arm(async_page)
    locator = async_page.locator(selector)
    await (locator.fill(*args) if method == "fill" else locator.click())
    options = {"op": "settle", "quietMs": 5000, "maxMs": 10_000, "shortTimerMs": SHORT_TIMER_MS}
    done = await run_page_script(async_page, "settle", load_js("settle"), options)
    assert done["why"] == "rendered"
    assert await async_page.locator(where).inner_text() == shown
    assert before is not None and done["changes"] > before.changes


# Once fetch's promise resolves, reading the body is work the page still has to do: a change
# that comes from it is waited for (a response streamed slowly, a body built from a stream).
@pytest.mark.parametrize(
    ("how", "shown"),
    [("slow-body", "slow report"), ("stream", "streamed")],
    ids=["slow-body", "stream"],
)
@pytest.mark.no_sync_twin
async def test_a_response_body_still_being_read_is_waited_for(
    async_page: AsyncPage, pages_url: str, how: str, shown: str
) -> None:
    with site_server() as site:
        # The server's pace: the headers at once, the body 0.4 s later.
        site.routes["/report"] = Route(
            b"slow report", content_type="text/plain", body_after_s=0.4, allow_origin="*"
        )
        query = urllib.parse.urlencode({"body": site.url + "/report"})
        await async_page.goto(f"{pages_url}loop/calm.html?{query}")
        done = await perform(
            async_page, method="click", selectors=[f"button[data-how={how}]"], quiet_ms=20
        )
        assert await async_page.locator("#out").inner_text() == shown
        assert done.before is not None and done.after is not None
        assert done.after.changes > done.before.changes


async def _slowly(route: PlaywrightRoute) -> None:
    await asyncio.sleep(0.4)  # the server's pace, not a wait in the test
    await route.continue_()


# A document loaded after the page's first settle has its watcher from its start: the first
# look knows what loading set off and waits for it. A watcher installed at the first look
# (as before) knew nothing of it, and its quiet window ended before the page rendered.
@pytest.mark.parametrize(
    ("how", "shown"),
    [
        ("fetch", "3 orders (fetched)"),
        ("timer", "3 orders (from a timer)"),
        ("chain", "3 orders (fetched)"),
    ],
    ids=["fetch", "timer", "timer-then-fetch"],
)
@pytest.mark.no_sync_twin
async def test_a_page_is_watched_from_its_start_once_settled_before(
    async_page: AsyncPage, pages_url: str, how: str, shown: str
) -> None:
    await async_page.goto(pages_url + "loop/calm.html")
    await settle(async_page)
    await async_page.route("**/loop/loading.json", _slowly)
    await async_page.goto(f"{pages_url}loop/loading.html?how={how}", wait_until="commit")
    await settle(async_page)
    assert await async_page.locator("#out").inner_text() == shown


# A page that renders at once is not waited on for a whole quiet window (5 s here) either,
# and frames get no watcher: it watches the top document only.
@pytest.mark.no_sync_twin
async def test_the_first_look_at_a_page_watched_from_its_start(
    async_page: AsyncPage, pages_url: str
) -> None:
    await async_page.goto(pages_url + "loop/calm.html")
    await settle(async_page)
    await async_page.goto(pages_url + "loop/loading.html?how=static")
    options = {"op": "settle", "quietMs": 5000, "maxMs": 10_000, "shortTimerMs": SHORT_TIMER_MS}
    done = await run_page_script(async_page, "settle", load_js("settle"), options)
    assert done["why"] in ("rendered", "unchanged")
    assert await async_page.locator("#out").inner_text() == "3 orders (at once)"
    watched = "() => Boolean(window[Symbol.for('stagehand_py.watch')])"
    assert await async_page.evaluate(watched)
    assert not await async_page.frames[1].evaluate(watched)
