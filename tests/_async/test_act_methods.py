"""The methods added to act()'s allow-list, each on two fixture pages (tests/pages/loop/):
scroll to a position, drag and drop, files set from a variable, custom dropdowns in two steps.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import FileChooser as AsyncFileChooser
from playwright.async_api import Locator as AsyncLocator
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand, ConfigurationError
from stagehand_py.llm._messages import ToolCall
from tests._async.plan_llm import AsyncPlanLLM, Step, find_element

# Each test marked MODES runs once per snapshot mode (Stagehand(snapshot=mode)); its plan's
# patterns match an element's line in either view.
MODES = pytest.mark.parametrize("mode", ["dom", "aria"])
COLOUR = r'^(<button\b[^>]*combobox|<combobox name="Frame colour")'


@pytest.mark.parametrize(
    ("page_name", "pattern", "scroller"),
    [
        ("long.html", r"^<(h2\b[^>]*|heading level=2)>Chapter 1", None),
        ("scroll_div.html", r"^<button\b[^>]*>.*Report spam", "#main-scroll"),
    ],
)
@MODES
@pytest.mark.no_sync_twin
async def test_scroll_to_a_percentage_of_the_page_or_an_inner_scroller(
    async_page: AsyncPage,
    pages_url: str,
    page_name: str,
    pattern: str,
    scroller: str | None,
    mode: str,
) -> None:
    llm = AsyncPlanLLM([Step("scroll", pattern, ["50%"])])
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + page_name)
    result = await page.act("scroll halfway down")
    assert result.success, result.message
    if scroller is None:
        position = await page.evaluate(
            "[scrollY, document.documentElement.scrollHeight - innerHeight]"
        )
    else:
        position = await page.locator(scroller).evaluate(
            "el => [el.scrollTop, el.scrollHeight - el.clientHeight]"
        )
    assert position[1] > 0 and abs(position[0] - position[1] / 2) <= 2


@pytest.mark.parametrize(
    ("page_name", "source", "target", "expected"),
    [
        # Native HTML5 drag events (a board).
        (
            "kanban.html",
            r"^<div\b[^>]*>CSV export",
            r"^<h2\b[^>]*>In progress",
            "CSV export -> In progress",
        ),
        # Pointer events only (a sortable list): the handle onto another row.
        (
            "sortable.html",
            r'"Move Harbour Lights"',
            r"^Blue Monday",
            "Harbour Lights, Blue Monday, Sunrise",
        ),
    ],
)
# DOM only: the tree has no element for the board's plain <div> cards nor for the playlist's
# bare text rows (the drop target), so neither can be picked there.
async def test_drag_an_element_onto_another(
    async_page: AsyncPage, pages_url: str, page_name: str, source: str, target: str, expected: str
) -> None:
    llm = AsyncPlanLLM([Step("drag_to", source, target=target)])
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "loop/" + page_name)
    result = await page.act("move it")
    assert result.success, result.message
    assert await page.locator("#moved, #order").first.inner_text() == expected
    [action] = result.actions
    # Stored with the target's selector, so a cached step can find it again.
    assert action.method == "drag_to" and action.arguments[0].startswith("xpath=")
    assert " onto " in action.description


@pytest.mark.parametrize(
    ("pattern", "field"),
    [
        (r"^<input\b[^>]*type=\"file\"", "cv"),  # a plain file input
        (r"^<button\b[^>]*>Upload cover letter", "letter"),  # a button opening the chooser
    ],
)
async def test_files_are_set_from_a_variable(
    async_page: AsyncPage,
    pages_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    pattern: str,
    field: str,
) -> None:
    # Playwright before 1.65 reads each path through pathlib (str(Path(path))), which takes
    # str() of the value: done here on every Playwright release, so that a value printing as
    # a mask (as secrets do) fails this test on any of them.
    for api, method in ((AsyncLocator, "set_input_files"), (AsyncFileChooser, "set_files")):
        original = getattr(api, method)

        async def through_pathlib(
            self: Any, files: Any, *, _call: Any = original, **kw: Any
        ) -> Any:
            return await _call(self, [str(Path(f)) for f in files], **kw)

        monkeypatch.setattr(api, method, through_pathlib)
    document = tmp_path / "ada-lovelace.txt"
    document.write_text("Notes on the Analytical Engine\n")
    llm = AsyncPlanLLM([Step("set_input_files", pattern, ["<|DOCUMENT|>"])])
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "loop/upload.html")
    result = await page.act("attach my document", variables={"document": str(document)})
    assert result.success, result.message
    size = len(document.read_bytes())
    assert await page.locator("#files").inner_text() == f"{field}: ada-lovelace.txt ({size} bytes)."
    assert result.actions[0].arguments == ["<|DOCUMENT|>"]
    assert not any(str(tmp_path) in r.text() for r in llm.requests)


@pytest.mark.parametrize(
    "pattern",
    [r"^<input\b[^>]*type=\"file\"", r"^<button\b[^>]*>Upload cover letter"],
    ids=["file input", "chooser button"],
)
async def test_a_file_that_cannot_be_read_is_a_typed_error_that_keeps_its_path_to_itself(
    async_page: AsyncPage,
    pages_url: str,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    pattern: str,
) -> None:
    missing = str(tmp_path / "cv-of-ada-lovelace.txt")  # never written
    llm = AsyncPlanLLM([Step("set_input_files", pattern, ["<|DOCUMENT|>"])] * 3)
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "loop/upload.html")
    with pytest.raises(ConfigurationError, match=r"could not read a file .*No such file") as caught:
        await page.act("attach my document", variables={"document": missing})
    error = caught.value
    assert error.__cause__ is None and error.__context__ is None  # no OSError naming the path
    shown = [str(error), repr(error), caplog.text, *(r.text() for r in llm.requests)]
    assert not [text for text in shown if "ada-lovelace" in text]
    assert len(llm.requests) == 1  # the model is not asked again: it cannot fix the path
    assert await page.locator("#files").inner_text() == ""  # nothing was set


# DOM only: in aria mode three refused attempts switch the view to DOM (emergency mode), where
# the canned reply's element number means another element.
@pytest.mark.no_sync_twin
async def test_a_file_path_written_by_the_model_is_refused(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = AsyncPlanLLM([])
    page = AsyncStagehand(llm=llm, max_reasks=2).wrap(async_page)
    await page.goto(pages_url + "loop/upload.html")
    snapshot = await page.snapshot()
    file_input = find_element(snapshot.render_all(), r"^<input\b[^>]*type=\"file\"")
    literal = ToolCall(
        id="literal",
        name="doAction",
        arguments={
            "method": "set_input_files",
            "element": file_input,
            "args": ["/etc/passwd"],
            "step": "attach",
            "why": "the page asked",
            "completed": True,
        },
    )
    llm.extra = [literal] * 3
    result = await page.act("attach my CV", raise_on_failure=False)
    assert result.code == "NO_USABLE_REPLY" and not result.actions
    assert "placeholder" in result.message
    assert await page.locator("#files").inner_text() == ""


@pytest.mark.parametrize(
    ("opener", "args", "option", "expected"),
    [
        # A button whose list opens in a portal at the end of <body>, with an animation.
        (("click", COLOUR), [], "Midnight blue", "colour=Midnight blue."),
        # A searchable field whose list is fetched after a debounce.
        (
            ("fill", r'^(<input\b[^>]*combobox|<combobox name="Saddle)'),
            ["carbon"],
            "Racing carbon",
            "saddle=Racing carbon.",
        ),
    ],
)
@MODES
async def test_a_custom_dropdown_takes_two_looks(
    async_page: AsyncPage,
    pages_url: str,
    opener: tuple[str, str],
    args: list[str],
    option: str,
    expected: str,
    mode: str,
) -> None:
    method, pattern = opener
    llm = AsyncPlanLLM(
        [
            Step(method, pattern, args),
            Step("click", rf"^(<div\b[^>]*option[^>]*>|<option\b[^>]*>){option}"),
        ]
    )
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "loop/combobox.html")
    result = await page.act(f"choose {option}")
    assert result.success, result.message
    assert await page.locator("#choice").inner_text() == expected
    chats = [r.text() for r in llm.requests if r.kind == "chat"]
    # The options were not there to batch: a second look showed them.
    shown = 'role="option">' if mode == "dom" else "<option>"
    assert len(chats) == 2 and shown not in chats[0]
    assert shown + option in chats[1]


@MODES
@pytest.mark.no_sync_twin(keep=["aria"])
async def test_select_option_on_a_custom_dropdown_says_to_click_it(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = AsyncPlanLLM(
        [
            Step("click", COLOUR),
            Step("click", r"^(<div\b[^>]*option[^>]*>|<option\b[^>]*>)Signal red"),
        ]
    )
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "loop/combobox.html")
    snapshot = await page.snapshot()
    button = find_element(snapshot.render_all(), COLOUR)
    llm.extra = [
        ToolCall(
            id="select",
            name="doAction",
            arguments={
                "method": "select_option",
                "element": button,
                "args": ["Signal red"],
                "step": "pick red",
                "why": "it is the colour",
                "completed": True,
            },
        )
    ]
    result = await page.act("choose a red frame")
    assert result.success, result.message
    refusal = llm.requests[1].messages[-1]
    assert refusal.role == "tool" and refusal.is_error
    assert "not a native <select>: click it" in refusal.content
    assert await page.locator("#choice").inner_text() == "colour=Signal red."
