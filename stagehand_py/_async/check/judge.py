"""Ask the model whether a statement holds on the page, and which assertions say it.

The page is read as act and observe read it (settled, then the snapshot of ``Settings.snapshot``:
the DOM or the aria view) and sent a group of chunks at a time, nearest first, up to
``max_prompt_chars``. The first group whose answer finds what the statement is about decides
(most pages fit in one request); a page where no group finds it fails the check. Every request
goes through the one accounting helper (counted and priced, failed ones too), with the
statement and the page redacted by the call's variables.
"""

from __future__ import annotations

from dataclasses import dataclass

from playwright.async_api import Page as AsyncPage

from ..._config import Settings
from ..._deadline_clock import Deadline
from ..._sections import chunk_groups
from ..._snapshot import Snapshot
from ..._variables import Variables
from ...check._result import CheckSpent, evidence_lines
from ...llm._request_context import RequestContext
from ...prompts.check import CheckAnswer, build_check_messages
from ..browser.inspect import take_snapshot
from ..browser.settle import settle
from ..llm.accounting import ask_structured
from ..llm.base import AsyncLLM


@dataclass(frozen=True)
class Judgement:
    """The model's answer, with the snapshot it was given and the element numbers shown."""

    answer: CheckAnswer
    snapshot: Snapshot
    shown: frozenset[int]
    evidence: list[str]  # the lines of the elements it relied on (redacted)


async def judge(
    page: AsyncPage,
    llm: AsyncLLM,
    statement: str,
    *,
    variables: Variables,
    settings: Settings,
    deadline: Deadline,
    spent: CheckSpent,
) -> Judgement:
    """The model's judgement of ``statement`` (redacted, as the model sees it) on ``page``."""
    __tracebackhide__ = True
    await settle(page, timeout_ms=deadline.cap_ms(settings.settle_timeout_ms))
    snapshot = await take_snapshot(page, mode=settings.snapshot)
    chunk_elements = {c.index: c.element_indexes for c in snapshot.chunks}
    judgement: Judgement | None = None
    for group in chunk_groups(snapshot, settings.max_prompt_chars) or [[]]:
        text = "\n".join(snapshot.render_chunk(c, redact=variables.redact) for c in group)
        shown = frozenset(i for c in group for i in chunk_elements[c])
        messages = build_check_messages(
            statement,
            page_text=variables.redact(text),
            variable_names=variables.names,
            url=variables.redact(snapshot.url),
            title=variables.redact(snapshot.title),
        )
        answer = await ask_structured(
            spent,
            llm,
            messages,
            CheckAnswer,
            kind="check",
            context=RequestContext("check", statement, snapshot, tuple(group), shown),
            settings=settings,
            max_retries=settings.max_reasks,
            deadline=deadline,
        )
        judgement = _judgement(answer.value, snapshot, shown, variables)
        if answer.value.holds or answer.value.found:
            break
    if judgement is None:
        raise AssertionError("unreachable: at least one group is always asked")
    return judgement


def _judgement(
    answer: CheckAnswer, snapshot: Snapshot, shown: frozenset[int], variables: Variables
) -> Judgement:
    cited = [*answer.evidence, *(a.element for a in answer.assertions if a.element is not None)]
    numbers = [n for n in dict.fromkeys(cited) if n in shown]  # never one it was not shown
    lines = [snapshot.render_element(n, redact=variables.redact) for n in numbers]
    reason = answer.reason.strip()
    if not answer.found:
        reason = reason or "what the statement is about is not on the page"
    answer = answer.model_copy(
        update={"reason": variables.redact(reason), "holds": answer.holds and answer.found}
    )
    return Judgement(answer, snapshot, shown, evidence_lines(lines))
