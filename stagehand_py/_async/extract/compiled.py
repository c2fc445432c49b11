"""Compiled extract(): the model answers naming its elements, the SDK compiles reads from the
answer, and a replay reads the page with them (no model).

:func:`ask_sourced` shows the page as the DOM serializer's numbered elements (in either
view: the accessibility view merges runs of text into lines that no element owns) and asks
for the data plus, per leaf, the number of the element it was read from. :func:`compile_reads`
turns that into a :class:`~stagehand_py.cache._extraction.CompiledExtraction` and keeps it only
if reading the page back with it gives exactly the model's answer. :func:`replay_reads` is the
replay. All page reads are one ``evaluate`` of ``extract/compiled_read.js``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

from playwright.async_api import Page as AsyncPage
from pydantic import BaseModel, ValidationError

from ..._config import Settings
from ..._deadline_clock import Deadline
from ..._errors import ElementNotFoundError, ExtractError
from ..._snapshot import Element, Snapshot
from ...cache._extraction import ABSOLUTE_XPATH, USER_LOCATOR, CompiledExtraction, FieldRead
from ...extract._compile import (
    FieldUnreadable,
    PageFacts,
    all_leaves,
    build_data,
    compile_answer,
    first_difference,
    pointer,
)
from ...extract._js import load_js
from ...extract._recipes import ElementFacts
from ...extract._target import ExtractTarget
from ...llm._request_context import RequestContext
from ...prompts.extract import build_sourced_extract_messages
from ..browser.inspect import take_snapshot
from ..browser.scripts import run_page_script
from ..llm.base import AsyncLLM
from .read import ExtractAsk, ExtractOutcome, first_error

Redact = Callable[[str], str]
MAX_SOURCED_CHARS = 120_000
"""Longest numbered page sent in the one request of a compiled extract; a longer page is
extracted from its text (not compiled)."""


@dataclass
class SourcedAnswer:
    """The model's data (keys by alias, links as absolute hrefs) and the elements it named."""

    data: dict[str, Any]
    sources: dict[str, list[int]]
    snapshot: Snapshot


def schema_digest(target: ExtractTarget) -> tuple[str, dict[str, Any]]:
    """The sha256 of the target's JSON schema (canonical), and the schema."""
    schema = target.model.model_json_schema()
    text = json.dumps(schema, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest(), schema


async def read_page(
    page: AsyncPage, compiled: CompiledExtraction | None, probe: Sequence[str] = ()
) -> dict[str, Any]:
    """compiled_read.js's answer: the entry's reads and the facts of the ``probe`` paths."""
    spec: dict[str, Any] = {"fields": [], "lists": [], "probe": list(probe)}
    if compiled is not None:
        spec["fields"] = [_js_read(f.xpath, f.read, f.attribute) for f in compiled.fields]
        spec["lists"] = [
            {
                "container": listed.container,
                "fields": [_js_read(f.xpath, f.read, f.attribute) for f in listed.fields],
            }
            for listed in compiled.lists
        ]
    raw = await run_page_script(page.main_frame, "compiled_read", load_js("compiled_read.js"), spec)
    found: dict[str, Any] = json.loads(raw)
    return found


def _js_read(xpath: str, read: str, attribute: str) -> dict[str, str]:
    return {"xpath": xpath, "read": read, "attribute": attribute}


async def ask_sourced(
    page: AsyncPage,
    llm: AsyncLLM,
    instruction: str,
    target: ExtractTarget,
    *,
    redact: Redact,
    deadline: Deadline,
    settings: Settings,
    outcome: ExtractOutcome,
) -> SourcedAnswer | None:
    """The model's answer with its sources; None when the page is too large for one request."""
    snapshot = await take_snapshot(page, mode="dom")
    elements = snapshot.render_all(redact=redact)
    if len(elements) > MAX_SOURCED_CHARS:
        return None
    links = {
        element.index: redact(urljoin(page.url, element.attributes["href"]))
        for element in snapshot.elements
        if element.tag == "a" and element.attributes.get("href")
    }
    said = redact(instruction)
    messages = build_sourced_extract_messages(
        said, elements=elements, url=redact(page.url), title=redact(await page.title())
    )
    ask = ExtractAsk(llm, outcome, settings, settings.max_reasks, deadline)
    answer = await ask.answer(
        messages,
        target.plan.answer_model(frozenset(links), sourced=True),
        RequestContext("extract", said, snapshot=snapshot),
        where=redact(page.url),
        advice="Simplify the schema or the instruction.",
    )
    data = target.plan.to_data(getattr(answer, "data", None), links) or {}
    named = getattr(answer, "sources", {}) or {}
    sources = {pointer(key): list(numbers) for key, numbers in named.items()}
    return SourcedAnswer(data=data, sources=sources, snapshot=snapshot)


def finish(target: ExtractTarget, data: dict[str, Any], url: str) -> Any:
    """``data`` validated by the user's schema; :class:`ExtractError` when it does not fit."""
    try:
        return target.finish(data)
    except ValidationError as exc:
        raise ExtractError(
            f"extract() read {url} but the data found does not fit the schema: "
            f"{exc.error_count()} error(s), first: {first_error(exc)}. Check that the "
            "page shows every required field, or make fields optional.",
            last_attempt=data,
        ) from None


def plain(value: Any) -> Any:
    """A validated result as JSON-like data (a model instance dumped)."""
    return value.model_dump(mode="json") if isinstance(value, BaseModel) else value


def _positional(element: Element) -> str | None:
    if element.frame:
        return None
    for selector in element.selectors:
        body = selector.removeprefix("xpath=")
        if selector.startswith("xpath=") and ABSOLUTE_XPATH.match(body):
            return body
    return None


async def _with_locator(
    page: AsyncPage, read: FieldRead, facts: dict[str, ElementFacts], data: Any
) -> FieldRead:
    """``read`` with a user-facing locator for generated code: the element's test id or id,
    when it finds that one element only and holds no extracted value."""
    found = facts.get(read.xpath)
    if found is None:
        return read
    values = [str(v) for _, v in all_leaves(data) if isinstance(v, str) and len(v) >= 3]
    candidates = []
    test_id = found.attributes.get("data-testid", "")
    if test_id and '"' not in test_id and "\\" not in test_id:
        candidates.append(f'internal:testid=[data-testid="{test_id}"s]')
    if found.attributes.get("id"):
        candidates.append(f"css=#{found.attributes['id']}")
    for selector in candidates:
        if not USER_LOCATOR.match(selector) or any(v in selector for v in values):
            continue
        if await page.locator(selector).count() == 1:
            return read.model_copy(update={"locator": selector})
    return read


async def compile_reads(
    page: AsyncPage, target: ExtractTarget, answer: SourcedAnswer, *, redact: Redact
) -> tuple[CompiledExtraction | None, dict[str, str]]:
    """The reads that give the model's answer on this page, or per field why there are none."""
    named = {number for numbers in answer.sources.values() for number in numbers}
    xpaths: dict[int, str | None] = {}
    for number in named:
        try:
            xpaths[number] = _positional(answer.snapshot.element(number))
        except ElementNotFoundError:  # a number the page does not have: the model's mistake
            xpaths[number] = None
    probe = sorted({xpath for xpath in xpaths.values() if xpath})
    found = await read_page(page, None, probe)
    facts = {
        xpath: ElementFacts.from_json(fact)
        for xpath, fact in zip(probe, found.get("probe") or [], strict=False)
        if isinstance(fact, dict)
    }
    base = str(found.get("base") or page.url)
    made = compile_answer(answer.data, answer.sources, PageFacts(xpaths, facts, base, redact))
    if made.not_compiled:
        return None, made.not_compiled
    digest, schema = schema_digest(target)
    fields = [await _with_locator(page, read, facts, answer.data) for read in made.fields]
    try:
        compiled = CompiledExtraction(
            schema_digest=digest, json_schema=schema, fields=fields, lists=made.lists
        )
    except ValidationError as exc:
        error = exc.errors(include_url=False, include_input=False)[0]
        return None, {"/": f"the reads cannot be stored ({error['msg']})"}
    return _checked(compiled, await replay_data(page, compiled, redact), target, answer)


def _checked(
    compiled: CompiledExtraction,
    again: dict[str, Any] | FieldUnreadable,
    target: ExtractTarget,
    answer: SourcedAnswer,
) -> tuple[CompiledExtraction | None, dict[str, str]]:
    if isinstance(again, FieldUnreadable):
        return None, {again.path: again.reason}
    try:
        made = plain(target.finish(again))
    except ValidationError:
        return None, {"/": "the values read back do not fit the schema"}
    differs = first_difference(made, plain(target.finish(answer.data)))
    if differs is not None:
        return None, {differs: "reading it back from the page does not give the model's value"}
    return compiled, {}


async def replay_data(
    page: AsyncPage, compiled: CompiledExtraction, redact: Redact
) -> dict[str, Any] | FieldUnreadable:
    """The data ``compiled`` reads on the page now, or the first field that does not read."""
    read = await read_page(page, compiled)
    try:
        return build_data(compiled, read, redact=redact)
    except FieldUnreadable as why:
        return why
