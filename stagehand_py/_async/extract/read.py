"""extract(): read the page as clean text, ask for the schema chunk by chunk, merge.

The browser serialises the page (or the elements ``selector`` matches) with
``extract/page_html.js``; lxml cleans it and renders readable text with numbered links
(:mod:`stagehand_py.extract`). Each chunk is one structured request for a partial version of
the user's schema plus a ``complete`` flag; answers are merged as they come and the loop
stops when the model says it has everything or the chunks run out. The merged data must
then validate against the user's schema, or :class:`ExtractError` carries it.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import ElementHandle as AsyncElementHandle
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame as AsyncFrame
from playwright.async_api import Locator as AsyncLocator
from playwright.async_api import Page as AsyncPage
from pydantic import BaseModel, ValidationError

from ..._config import Settings
from ..._deadline_clock import Deadline, current_deadline
from ..._error_line import first_line
from ..._errors import (
    ConfigurationError,
    ElementNotFoundError,
    ExtractError,
    LLMError,
    SerializationError,
    StructuredOutputError,
)
from ..._usage import Usage
from ...aria._text import aria_page_text
from ...cache._extraction import CompiledExtraction
from ...cache._store import CacheStatus
from ...codegen import WritesPlaywrightCode
from ...codegen_extract import extraction_code
from ...extract._chunks import split_chunks
from ...extract._js import load_js
from ...extract._merge import filled_fields, merge
from ...extract._target import ExtractTarget
from ...extract._text import PageText, page_text
from ...llm._messages import Message
from ...llm._request_context import RequestContext
from ...prompts.extract import build_extract_messages
from .._deadline import compute_in_time
from ..browser.frames import MAX_FRAMES
from ..browser.inspect import take_snapshot
from ..browser.scripts import run_page_script
from ..browser.settle import settle
from ..llm.accounting import ask_structured
from ..llm.base import AsyncLLM

logger = logging.getLogger("stagehand_py")
# When a caller passes no deadline (the public call always does).
_DEFAULT_TIMEOUT_S = 120.0


@dataclass
class ExtractOutcome(WritesPlaywrightCode):
    """What an extract() produced and what it cost.

    With an action cache and a schema, ``cache`` says how the cache answered (``"hit"``: read
    with no model call), ``compiled`` holds the reads that replay it, and ``not_compiled``
    names each field that could not be compiled and why (the model then runs every time).
    """

    value: Any  # user model instance | validated dict | {"text": str}
    usage: Usage = field(default_factory=Usage)
    llm_calls: int = 0
    chunks: int = 0  # chunks sent to the model
    duration_s: float = 0.0
    cache: CacheStatus | None = None
    compiled: CompiledExtraction | None = None
    not_compiled: dict[str, str] = field(default_factory=dict)

    def _code_parts(self) -> tuple[Callable[..., str], Sequence[Any], str]:
        if self.compiled is None:
            why = "; ".join(f"{k or '/'}: {v}" for k, v in self.not_compiled.items())
            raise ConfigurationError(
                "This extract() was not compiled, so there are no reads to write as code"
                + (f" ({why})." if why else " (compiling needs an action cache and a schema).")
            )
        return extraction_code, [self.compiled], "the reads of a compiled extract()"


def _keep(text: str) -> str:
    return text


async def read_page_text(
    page: AsyncPage, selector: str | None = None, *, redact: Callable[[str], str] = _keep
) -> PageText:
    """The page's (or the ``selector`` elements') readable text, cleaned, with its links.

    Every frame's text is included where its iframe sits, cross-origin frames too: each
    frame is read by its own evaluate (see :func:`_frame_html`).
    """
    script = load_js("page_html.js")
    try:
        if selector is None:
            found = await _frame_html(page.main_frame, script, budget=[MAX_FRAMES])
        else:
            locator = page.locator(selector)
            try:
                matched = await locator.count()
            except PlaywrightError as exc:
                raise ConfigurationError(
                    f"extract(selector={selector!r}) is not a selector Playwright can read: "
                    f"{first_line(exc)}"
                ) from None
            if matched == 0:
                raise ElementNotFoundError(
                    f"extract(selector={selector!r}) matched no element on {redact(page.url)}; "
                    "check the selector or leave it out to read the whole page.",
                    [selector],
                )
            found = await _frame_html(page.main_frame, script, budget=[MAX_FRAMES], roots=locator)
    except PlaywrightError as exc:
        raise SerializationError(
            f"Could not read the page text of {redact(page.url)}: "
            f"{redact(first_line(exc))}. "
            "Wait for the page to finish loading and try again."
        ) from exc
    # Cleaning a huge page takes seconds: bounded by the call's deadline (hardening #13).
    return await compute_in_time(
        lambda: page_text(found["html"], url=found["url"], title=found["title"])
    )


async def _frame_html(
    frame: AsyncFrame, script: str, *, budget: list[int], roots: AsyncLocator | None = None
) -> dict[str, Any]:
    """``page_html.js``'s {url, title, html} for ``frame`` (or the ``roots`` elements in it),
    with the html of each child frame put where its iframe's placeholder is. ``budget``:
    how many more frames may be read (shared across the recursion)."""
    children = frame.child_frames[: max(budget[0], 0)]
    budget[0] -= len(children)
    handles: list[AsyncElementHandle | None] = []
    for child in children:
        try:
            handles.append(await child.frame_element())
        except PlaywrightError:
            handles.append(None)  # detached meanwhile: its placeholder never appears
    try:
        if roots is None:
            raw = await run_page_script(frame, "page_html", script, {"frames": handles})
        else:
            raw = await roots.evaluate_all(script, handles)
    finally:
        for handle in handles:
            if handle is not None:
                await handle.dispose()
    found: dict[str, Any] = json.loads(raw)
    html: str = found["html"]
    for k, child in enumerate(children):
        marker = f'<div data-sh-frame="{k}"></div>'
        if marker not in html:
            continue  # hidden, or inlined: nothing to fill in
        try:
            inner = (await _frame_html(child, script, budget=budget))["html"]
        except PlaywrightError as exc:
            logger.info("stagehand_py: frame %s not read: %s", child.url, exc.message)
            inner = ""
        html = html.replace(marker, inner)
    found["html"] = html
    return found


@dataclass(frozen=True)
class ExtractAsk:
    """How every model request of one extract is sent: to ``llm`` within ``deadline``,
    counted on ``outcome`` (one chunk each)."""

    llm: AsyncLLM
    outcome: ExtractOutcome
    settings: Settings
    max_retries: int
    deadline: Deadline

    async def answer(
        self,
        messages: Sequence[Message],
        answer_model: type[BaseModel],
        context: RequestContext,
        *,
        where: str,
        advice: str,
    ) -> BaseModel:
        """The model's answer; :class:`ExtractError` naming ``where`` (and ``advice``) when
        no answer fits ``answer_model`` after the re-asks."""
        __tracebackhide__ = True
        self.outcome.chunks += 1
        try:
            response = await ask_structured(
                self.outcome,
                self.llm,
                messages,
                answer_model,
                kind="extract",
                context=context,
                settings=self.settings,
                max_retries=self.max_retries,
                deadline=self.deadline,
            )
        except StructuredOutputError as exc:
            raise ExtractError(
                f"extract() got no valid answer for {where} after {self.max_retries} "
                f"re-ask(s): {exc}. {advice}",
                last_attempt=exc.last_answer,
            ) from None  # the message says why; the chain only adds internal frames
        return response.value


def _answer_data(answer: BaseModel) -> tuple[Any, bool]:
    return getattr(answer, "data", None), bool(getattr(answer, "complete", False))


async def extract(
    page: AsyncPage,
    llm: AsyncLLM,
    instruction: str,
    schema: type[BaseModel] | dict[str, Any] | None = None,
    *,
    selector: str | None = None,
    max_chars_per_chunk: int = 12000,
    max_retries: int = 2,
    redact: Callable[[str], str] = _keep,
    deadline: Deadline | None = None,
    settings: Settings | None = None,
    outcome: ExtractOutcome | None = None,
) -> ExtractOutcome:
    """Extract ``schema`` (or, with no schema, text) from the page as ``instruction`` asks.

    With no schema and a blank instruction the page's readable text is returned without
    asking the model. ``outcome`` (returned) is filled as the work goes, so a caller still
    knows what a failed extract cost. ``settings.snapshot == "aria"`` reads
    the page through the accessibility-tree snapshot (one line per element, links numbered
    the same way) unless ``selector`` narrows it.
    """
    __tracebackhide__ = True
    started = time.monotonic()
    deadline = deadline or current_deadline() or Deadline.after(_DEFAULT_TIMEOUT_S)
    settings = settings or Settings()
    outcome = outcome if outcome is not None else ExtractOutcome(value=None)
    target = ExtractTarget.from_schema(schema)
    await settle(page, timeout_ms=deadline.cap_ms(3000))
    if settings.snapshot == "aria" and selector is None:
        text = aria_page_text(await take_snapshot(page, mode="aria"))
    else:
        text = await read_page_text(page, selector, redact=redact)
    text = text.redacted(redact)  # whole values, before chunking can cut one in two
    if target.kind == "text" and not instruction.strip():
        outcome.value = {"text": text.text}
        outcome.duration_s = time.monotonic() - started
        return outcome

    chunks = split_chunks(text.blocks, max_chars_per_chunk)
    merged: dict[str, Any] = {}
    said = redact(instruction)
    ask = ExtractAsk(llm, outcome, settings, max_retries, deadline)
    for chunk in chunks:
        messages = build_extract_messages(
            said,
            page_text=redact(chunk.text),
            part=chunk.index + 1,
            parts=len(chunks),
            url=text.url,
            title=text.title,
            already_found=filled_fields(merged),
        )
        try:
            answer = await ask.answer(
                messages,
                target.plan.answer_model(chunk.link_ids),
                RequestContext("extract", said, section=(chunk.index,)),
                where=f"part {chunk.index + 1} of {len(chunks)} of {text.url}",
                advice="Simplify the schema or the instruction, or raise max_retries.",
            )
        except (LLMError, ExtractError):
            outcome.duration_s = time.monotonic() - started
            raise
        data, complete = _answer_data(answer)
        merged = merge(merged, target.plan.to_data(data, text.links)) or {}
        logger.debug(
            "stagehand_py: extract part %d/%d complete=%s", chunk.index + 1, len(chunks), complete
        )
        if complete:
            break

    outcome.duration_s = time.monotonic() - started
    try:
        outcome.value = target.finish(merged)
    except ValidationError as exc:
        raise ExtractError(
            f"extract() read {outcome.chunks} part(s) of {text.url} but the data found "
            f"does not fit the schema: {exc.error_count()} error(s), first: {first_error(exc)}. "
            "Check that the page shows every required field, or make fields optional.",
            last_attempt=merged,
        ) from None  # the message names the first error
    return outcome


def first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"]) or "(top level)"
    return f"{where}: {error['msg']}"
