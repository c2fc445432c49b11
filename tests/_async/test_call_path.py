"""The path every public call takes: what it keeps out of frames, and the keywords it takes."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Iterator, Mapping
from types import CoroutineType, FrameType
from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand, ConfigurationError
from stagehand_py.testing import (
    AsyncFunctionLLM,
    AsyncScriptedLLM,
    RequestContext,
    extract_answer,
    observe_answer,
    skip_section,
)

SECRET = "frame-secret-4711@example.com"
PACKAGE = f"{os.sep}stagehand_py{os.sep}"
TITLE = {"type": "object", "properties": {"title": {"type": "string"}}}


def _frames() -> Iterator[FrameType]:
    """Every frame alive now: each thread's stack, and every suspended coroutine's."""
    for top in sys._current_frames().values():
        frame: FrameType | None = top
        while frame is not None:
            yield frame
            frame = frame.f_back
    for thing in gc.get_objects():
        if isinstance(thing, CoroutineType) and thing.cr_frame is not None:
            yield thing.cr_frame


def _holds_the_secret(value: Any) -> bool:
    if isinstance(value, str):
        return SECRET in value
    if isinstance(value, Mapping):  # the variables, or keyword options holding them
        return any(_holds_the_secret(v) for v in value.values())
    return False


def _package_frames_holding_the_secret() -> list[str]:
    return sorted(
        f"{frame.f_code.co_name}: {name}"
        for frame in _frames()
        if PACKAGE in frame.f_code.co_filename
        for name, value in frame.f_locals.items()
        if _holds_the_secret(value)
    )


@pytest.mark.parametrize("layer", ["page", "stagehand"])
@pytest.mark.no_sync_twin
async def test_no_frame_of_the_package_holds_a_raw_value_while_the_model_is_asked(
    async_page: AsyncPage, layer: str
) -> None:
    await async_page.set_content("<label>Email <input id=email></label><button>Save</button>")
    seen: list[list[str]] = []

    def chat(messages: Any, tools: Any) -> Any:
        seen.append(_package_frames_holding_the_secret())
        return skip_section("not here")

    def structured(messages: Any, schema: Any, context: RequestContext) -> Any:
        seen.append(_package_frames_holding_the_secret())
        return extract_answer({"title": "Save"}) if context.kind == "extract" else observe_answer()

    stagehand = AsyncStagehand(llm=AsyncFunctionLLM(chat, structured), verify=False)
    page = stagehand.wrap(async_page)
    variables = {"email": SECRET}
    if layer == "page":
        await page.act("type <|EMAIL|> into Email", variables=variables, raise_on_failure=False)
        await page.extract("the title", TITLE)
        await page.observe("the field for <|EMAIL|>", variables=variables)
    else:
        await stagehand.act(
            async_page, "type <|EMAIL|> into Email", variables=variables, raise_on_failure=False
        )
        await stagehand.extract(async_page, "the title", TITLE, variables=variables)
        await stagehand.observe(async_page, "the field for <|EMAIL|>", variables=variables)
    assert len(seen) >= 3  # the model was asked, and looked at every frame each time
    assert seen == [[] for _ in seen]


@pytest.mark.no_sync_twin
async def test_extract_and_observe_refuse_an_unknown_keyword_by_name(
    async_page: AsyncPage,
) -> None:
    stagehand = AsyncStagehand(llm=AsyncScriptedLLM())
    page = stagehand.wrap(async_page)
    with pytest.raises(
        ConfigurationError, match=r"extract\(\) got unknown argument\(s\) 'selectr'"
    ):
        await page.extract("the title", selectr="h1")  # type: ignore[call-overload]
    with pytest.raises(ConfigurationError, match=r"did you mean timeout_s \(seconds\)"):
        await stagehand.observe(async_page, "the button", timeout=3)  # type: ignore[call-arg]
    assert stagehand.history == []  # refused before the call started


# A directory given as something that is not a path is a typed error naming the option, for
# the cache and the workflow history alike (not Python's TypeError from pathlib).
@pytest.mark.no_sync_twin
@pytest.mark.parametrize("option", ["cache_dir", "history_dir"])
@pytest.mark.parametrize("value", [5, b"cache", ["cache"]], ids=["int", "bytes", "list"])
def test_a_directory_that_is_not_a_path_is_refused_by_name(option: str, value: object) -> None:
    with pytest.raises(ConfigurationError, match=rf"{option} must be a directory's path"):
        AsyncStagehand(llm=AsyncScriptedLLM(), **{option: value})  # type: ignore[arg-type]
