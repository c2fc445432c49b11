"""Everything the model could act on gets a line, in both views (tests/pages/hybrid).

A plan model answers only with element numbers it was shown (its patterns match a line the
view rendered), so each task below passes only when the view listed the element, gave it a
locator that finds exactly it, and act() could use it: icon-only controls made clickable by
a script listener and no pointer cursor, clickable words and href-less anchors inside text,
a datepicker's Prev/Next links and days, two clickable children of one pointer container, a
folder tree, links in table cells, a disabled textarea that must be scrolled, and controls
inside closed shadow roots.
"""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand, Snapshot
from stagehand_py._async.browser.inspect import take_snapshot
from stagehand_py._async.browser.locate import frame_scope
from stagehand_py._types import ActionRecord
from stagehand_py.dom._shadow import is_closed_shadow
from tests._async.plan_llm import AsyncPlanLLM, Step

MODES = pytest.mark.parametrize("mode", ["dom", "aria"])


def _line(text: str, *, tag: str = "span") -> str:
    """A line showing only ``text``, as either view writes a clickable without a role."""
    word = re.escape(text)
    return rf"^(<{tag}\b[^>]*>{word}</{tag}>|<generic\b[^>]*>{word})$"


async def _act(
    async_page: AsyncPage, url: str, mode: str, steps: list[Step], *, batch: bool = True
) -> tuple[str, list[ActionRecord]]:
    """Run one act with a plan; the page's status line after it, and the actions taken."""
    llm = AsyncPlanLLM(steps, batch=batch)
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(url)
    result = await page.act("do the task")
    assert result.success, result.message
    return (await async_page.locator("#status").text_content() or ""), result.actions


async def _located_once(page: AsyncPage, action: ActionRecord) -> None:
    """On the page as it was first shown, every selector stored for an action finds exactly
    one element (the action itself may have written the same words elsewhere)."""
    await page.reload()
    scope = await frame_scope(page, action.frame)
    for selector in action.selectors:
        if not is_closed_shadow(selector):
            assert await scope.locator(selector).count() == 1, selector


async def _snapshot(async_page: AsyncPage, url: str, mode: str) -> Snapshot:
    await async_page.goto(url)
    return await take_snapshot(async_page, mode=mode)


# ----------------------------------------------------------------- icon-only controls
@MODES
@pytest.mark.parametrize(
    ("icon", "status"), [("archive", "Archived"), ("trash", "Moved to the bin")]
)
async def test_an_icon_with_a_script_listener_and_no_pointer_cursor_is_clicked(
    async_page: AsyncPage, pages_url: str, mode: str, icon: str, status: str
) -> None:
    steps = [Step("click", rf'hint="[^"]*\bico-{icon}\b')]
    shown, actions = await _act(async_page, pages_url + "hybrid/mail.html", mode, steps)
    assert shown == status
    await _located_once(async_page, actions[0])


@MODES
@pytest.mark.no_sync_twin(keep=["aria"])
async def test_icons_are_described_and_a_decorative_icon_is_left_out(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    snap = await _snapshot(async_page, pages_url + "hybrid/mail.html", mode)
    text = snap.render_all()
    # Class words and the drawn image's file name tell the two text-less icons apart.
    assert re.search(r'hint="ico ico-archive bookmark-add"', text), text
    assert re.search(r'hint="ico ico-trash bin-closed"', text), text
    # The padlock draws an image too, but nothing listens on it: no line of its own.
    assert "ico-lock" not in text and "paperclip" not in text, text
    icons = [e for e in snap.elements if "hint" in e.attributes or e.hint]
    assert len(icons) == 2 and all(e.interactive for e in icons)


# ----------------------------------------------------------------- clickable text in text
@MODES
@pytest.mark.parametrize(
    ("words", "tag", "status"),
    [
        ("sync engine", "span", "Sync engine: keeps your notes the same on every device."),
        ("migration guide", "a", "Migration guide opened"),
        ("full list of changes", "a", "All changes listed"),
    ],
)
async def test_clickable_words_inside_a_paragraph_are_lines_of_their_own(
    async_page: AsyncPage, pages_url: str, mode: str, words: str, tag: str, status: str
) -> None:
    steps = [Step("click", _line(words, tag=tag))]
    shown, actions = await _act(async_page, pages_url + "hybrid/article.html", mode, steps)
    assert shown == status
    await _located_once(async_page, actions[0])


# ----------------------------------------------------------------- a datepicker
@MODES
@pytest.mark.parametrize(
    ("arrow", "month"), [(r"(<span>Prev</span>|<generic\b[^>]*>Prev)$", "April"),
                         (_line("Next"), "June")],
)  # fmt: skip
@pytest.mark.no_sync_twin
async def test_a_datepicker_is_paged_by_its_prev_next_links_and_a_day_is_chosen(
    async_page: AsyncPage, pages_url: str, mode: str, arrow: str, month: str
) -> None:
    steps = [Step("click", arrow, completed=False), Step("click", _line("3", tag="a"))]
    shown, actions = await _act(async_page, pages_url + "hybrid/calendar.html", mode, steps)
    assert shown == f"Table booked for 3 {month}"
    await _located_once(async_page, actions[-1])


async def test_the_datepicker_heading_keeps_the_month_in_the_aria_view(
    async_page: AsyncPage, pages_url: str
) -> None:
    snap = await _snapshot(async_page, pages_url + "hybrid/calendar.html", "aria")
    lines = snap.render_all().splitlines()
    # The tree's one line "Prev May 2027 Next 1 2 3 ..." is now the month, then a line each.
    assert any(re.fullmatch(r"\d+:May 2027", line) for line in lines), lines
    days = [e for e in snap.elements if e.role == "generic" and e.name == "" and e.text.isdigit()]
    assert [e.text for e in days] == [str(d) for d in range(1, 29)]
    assert all(e.interactive for e in days)


# ----------------------------------------------------------------- one pointer container
@MODES
@pytest.mark.parametrize(
    ("word", "status"),
    [("Reply", "Replying to Grace Hopper"), ("Forward", "Forwarding the report")],
)
@pytest.mark.no_sync_twin
async def test_two_clickable_children_of_one_pointer_container_are_two_lines(
    async_page: AsyncPage, pages_url: str, mode: str, word: str, status: str
) -> None:
    steps = [Step("click", _line(word))]
    shown, actions = await _act(async_page, pages_url + "hybrid/mail.html", mode, steps)
    assert shown == status
    await _located_once(async_page, actions[0])


# ----------------------------------------------------------------- a folder tree, a table
@MODES
@pytest.mark.parametrize(
    ("pattern", "status"),
    [
        (_line("Invoices"), "Opened folder Invoices"),
        (_line("+"), "New folder created"),
        (_line("budget.xlsx", tag="a"), "Previewing budget.xlsx"),
    ],
)
@pytest.mark.no_sync_twin
async def test_folders_a_script_driven_plus_and_links_in_table_cells(
    async_page: AsyncPage, pages_url: str, mode: str, pattern: str, status: str
) -> None:
    shown, actions = await _act(
        async_page, pages_url + "hybrid/files.html", mode, [Step("click", pattern)]
    )
    assert shown == status
    await _located_once(async_page, actions[0])


# ----------------------------------------------------------------- a disabled textarea
@MODES
@pytest.mark.no_sync_twin
async def test_a_disabled_textarea_is_scrolled_to_its_end_which_enables_the_form(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    steps = [
        Step("scroll", r"^<(textarea\b|textbox\b)[^>]*\bdisabled\b", ["100%"], completed=False),
        Step("check", r"^<(input\b[^>]*checkbox|checkbox\b)(?![^>]*disabled)", completed=False),
        Step("click", r"Create account"),
    ]
    shown, _ = await _act(async_page, pages_url + "hybrid/terms.html", mode, steps, batch=False)
    assert shown == "Account created"
    assert await async_page.locator("#terms").is_disabled()


# ----------------------------------------------------------------- closed shadow roots
@MODES
@pytest.mark.no_sync_twin(keep=["aria"])
async def test_controls_inside_closed_shadow_roots_are_filled_checked_and_clicked(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    steps = [
        Step("fill", r'placeholder="Coupon code"', ["TEA10"], completed=False),
        Step("click", r"^<(button\b[^>]*>Apply coupon</button>|button>Apply coupon)$"),
    ]
    url = pages_url + "hybrid/closed_shadow.html"
    shown, actions = await _act(async_page, url, mode, steps)
    assert shown == "Coupon TEA10 applied"
    assert all(is_closed_shadow(a.selectors[0]) for a in actions)
    wrap = [Step("check", r"^<(input\b[^>]*checkbox|checkbox\b[^>]*>Gift wrap)")]
    shown, _ = await _act(async_page, url, mode, wrap)
    assert shown == "Gift wrap added"
