"""observe(): ask which elements match an instruction; return them ready for act().

The page is sent a group of chunks at a time (nearest first, up to ``max_prompt_chars``).
With an instruction, the first group that yields matches ends the search; without one, every
group is listed. The model's element numbers are checked against what it was shown and its
methods against the allow-list; selectors come from the snapshot, never from the model.
``Settings.snapshot="aria"`` reads the accessibility-tree view: each result then carries the
element's locator ladder (``selectors``, and ``ladder`` as readable calls).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field, replace

from playwright.async_api import Page as AsyncPage

from ..._act_decision import argument_problem
from ..._config import Settings
from ..._deadline_clock import Deadline, current_deadline
from ..._errors import LLMError, StructuredOutputError
from ..._sections import chunk_groups
from ..._snapshot import Snapshot
from ..._types import ObserveResult
from ..._usage import Usage
from ..._variables import Variables
from ...aria._ladder import readable_ladder
from ...llm._messages import Message
from ...llm._request_context import RequestContext
from ...prompts.act import ALLOWED_METHODS
from ...prompts.observe import (
    DEFAULT_OBSERVE_INSTRUCTION,
    ObserveAnswer,
    ObservedElement,
    build_observe_messages,
    unshown_problem,
)
from ..browser.inspect import take_snapshot
from ..browser.settle import settle
from ..llm.accounting import ask_structured
from ..llm.base import AsyncLLM

logger = logging.getLogger("stagehand_py")


@dataclass
class ObserveOutcome:
    results: list[ObserveResult]
    usage: Usage = field(default_factory=Usage)
    llm_calls: int = 0
    duration_s: float = 0.0
    cache: str = "off"  # "hit" / "miss" / "healed" when the action cache was used


def _to_result(
    snapshot: Snapshot, item: ObservedElement, shown: set[int], variables: Variables
) -> ObserveResult | None:
    if item.element not in shown:
        logger.info("stagehand_py: observe dropped element %s (not shown)", item.element)
        return None
    element = snapshot.element(item.element)
    if not element.selectors:
        return None
    method = item.method if item.method in ALLOWED_METHODS else "click"
    low, high = ALLOWED_METHODS[method]
    arguments = [variables.redact(str(a)) for a in item.arguments][:high]
    if len(arguments) < low or argument_problem(method, arguments, item.element, shown):
        method, arguments = "click", []  # never a file path or drop target the model made up
    elif method == "drag_to":  # stored as the target's selector, as act() records it
        target = variables.without_secrets(snapshot.element(int(arguments[0])).selectors)
        method, arguments = ("drag_to", target[:1]) if target else ("click", [])
    # A selector that quotes the page's echo of a secret is not handed out (hardening #13).
    selectors = variables.without_secrets(element.selectors)
    if not selectors:
        return None
    return ObserveResult(
        selector=selectors[0],
        description=variables.redact(item.description)
        or snapshot.render_element(item.element, redact=variables.redact),
        method=method,
        arguments=arguments,
        element=item.element,
        selectors=selectors,
        frame=list(element.frame),
        ladder=readable_ladder(element.view, selectors, element.frame),
    )


async def _usable_answer(
    outcome: ObserveOutcome,
    llm: AsyncLLM,
    messages: list[Message],
    context: RequestContext,
    settings: Settings,
    deadline: Deadline,
) -> ObserveAnswer:
    """The model's answer for one group of chunks. One that does not validate is re-asked by
    the structured request itself; one that names only elements it was not shown is asked
    again here: both up to ``max_reasks`` times, then :class:`StructuredOutputError` (a
    malformed answer is never read as "nothing matches")."""
    conversation = list(messages)
    spent = Usage()
    for attempt in range(1, settings.max_reasks + 2):
        answer = await ask_structured(
            outcome,
            llm,
            conversation,
            ObserveAnswer,
            kind="observe",
            context=replace(context, attempt=attempt),
            settings=settings,
            max_retries=settings.max_reasks,
            deadline=deadline,
        )
        spent = spent + answer.usage
        problem = unshown_problem(answer.value, context.shown)
        if problem is None:
            return answer.value
        conversation += [
            Message(role="assistant", content=answer.value.model_dump_json()),
            Message(role="user", content=problem),
        ]
    failure = StructuredOutputError(
        f"{llm.model} never produced a usable ObserveAnswer in {settings.max_reasks + 1} "
        f"answer(s); last problem: {problem}",
        last_answer=answer.value.model_dump(mode="json"),
        errors=problem or "",
    )
    failure.usage = spent
    raise failure


async def observe(
    page: AsyncPage,
    llm: AsyncLLM,
    instruction: str | None = None,
    *,
    variables: Variables | None = None,
    settings: Settings | None = None,
    deadline: Deadline | None = None,
    outcome: ObserveOutcome | None = None,
) -> ObserveOutcome:
    """Find elements matching ``instruction`` (or the page's main controls when None).

    ``outcome`` (returned) is filled as the work goes, so a caller still knows what a failed
    observe cost."""
    __tracebackhide__ = True
    settings = settings or Settings()
    variables = variables if variables is not None else Variables()
    started = time.monotonic()
    outcome = outcome if outcome is not None else ObserveOutcome(results=[])
    deadline = deadline or current_deadline() or Deadline.after(settings.timeout_s)
    await settle(page, timeout_ms=deadline.cap_ms(settings.settle_timeout_ms))
    snapshot = await take_snapshot(page, mode=settings.snapshot)
    chunk_elements = {c.index: c.element_indexes for c in snapshot.chunks}
    seen_elements: set[int] = set()
    said = variables.redact(instruction or "")  # a value written into it stays a placeholder
    for group in chunk_groups(snapshot, settings.max_prompt_chars):
        text = "\n".join(snapshot.render_chunk(c, redact=variables.redact) for c in group)
        messages = build_observe_messages(
            said or DEFAULT_OBSERVE_INSTRUCTION,
            page_text=variables.redact(text),
            variable_names=variables.names,
            url=variables.redact(snapshot.url),
        )
        shown = {i for c in group for i in chunk_elements[c]}
        context = RequestContext("observe", said, snapshot, tuple(group), frozenset(shown))
        try:
            answer = await _usable_answer(outcome, llm, messages, context, settings, deadline)
        except LLMError:
            outcome.duration_s = time.monotonic() - started
            raise
        for item in answer.elements:
            result = _to_result(snapshot, item, shown, variables)
            if result is not None and result.element not in seen_elements:
                seen_elements.add(item.element)
                outcome.results.append(result)
        if instruction and outcome.results:
            break
    outcome.duration_s = time.monotonic() - started
    return outcome
