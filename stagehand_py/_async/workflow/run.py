"""Checklist workflows: one request becomes a checklist, then each item runs to its check.

``page.workflow(text)``: one structured ``checklist`` request turns ``text`` into items (each
keeping its conditions). Items run in order. An item first tries the flow the per-site
history stored for it (the action cache's replay, no model call); otherwise the agent's step
machinery works on it (:class:`~stagehand_py._async.workflow.item.AsyncItemRun`) until its
completion check says it is done, ``max_attempts`` steps ran, or it failed for good (the model
gave up, or failures went on after emergency mode). A failed item ends the workflow: the
items after it are ``not_run``. Successes and failures go to the history; items that must
find a page see the site's sitemap URLs. Nothing here raises for a goal that was not reached:
the result says what happened.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import KW_ONLY, InitVar, dataclass, field
from typing import Any

from ..._config import Settings
from ..._error_line import first_line
from ..._errors import LLMError, PageError
from ..._types import ActErrorCode
from ..._usage import Usage
from ..._variables import Variables
from ...agent._clock import RunCancelled, RunEnded, RunTimedOut, StepFailed
from ...agent._history import ActionOutcome, StepRecord
from ...cache import CachedAction
from ...llm._options import request_options
from ...workflow._checklist import ChecklistAnswer, ItemStatus, checklist_strings
from ...workflow._history import (
    ChecklistRecord,
    FailureRecord,
    FlowRecord,
    WorkflowHistory,
    page_url,
    start_path,
)
from ...workflow._prompts import checklist_messages
from ...workflow._result import WorkflowItem, WorkflowReason, WorkflowResult
from ...workflow._settings import WorkflowSettings
from ...workflow._sitemap import hint_urls, hints_text
from .._deadline import DeadlineExceeded, run_with_deadline
from ..agent.ending import utc_now
from ..browser.interrupt import interrupt_if_busy
from ..cache.act import replay_actions
from ..llm.accounting import ask_recorded
from ..llm.source import ModelSource
from .item import AsyncItemRun
from .sitemap import AsyncSitemapFetcher

logger = logging.getLogger("stagehand_py")
# How long after timeout_s the hard deadline ends a run stuck in a page-side call (as the
# agent's run does): the run's own clock, a moment earlier, ends everything else.
_BACKSTOP_S = 0.25


@dataclass(eq=False, repr=False)  # no repr: it would show the variables
class AsyncWorkflowRun:
    """One workflow: the checklist, its items' runs, the history and the sitemap hints."""

    page: InitVar[Any]  # the page, the model and the fallback go to the items' run
    llm: InitVar[ModelSource]
    text: str
    _: KW_ONLY
    variables: Variables
    settings: Settings
    workflow: WorkflowSettings
    fallback: InitVar[ModelSource | None] = None
    fallback_name: InitVar[str] = ""
    history: WorkflowHistory | None = None
    now: InitVar[Callable[[], float] | None] = None
    sitemaps: AsyncSitemapFetcher = field(default_factory=AsyncSitemapFetcher)

    def __post_init__(
        self,
        page: Any,
        llm: ModelSource,
        fallback: ModelSource | None,
        fallback_name: str,
        now: Callable[[], float] | None,
    ) -> None:
        self.items: list[WorkflowItem] = []
        self._find_page: set[int] = set()
        # The URL each item started on: its stored flow is keyed by it (see find_flow).
        self._start_urls: dict[int, str] = {}
        self.checklist_replayed = False
        # With an action cache, flows and checklists live there (the workflow's one replay
        # store); the history then keeps only failures.
        self.flows_in_history = True
        # Each item's element actions once it is done (what a cache entry stores), and why an
        # item's actions could not be replayed.
        self.item_flows: dict[int, list[CachedAction]] = {}
        self.unreplayable: dict[int, str] = {}
        self.usage = Usage()  # the checklist request's (each item's steps keep their own)
        self._started_at = utc_now()
        self._current: int | None = None  # the item running (or replaying) now
        settings, workflow = self.settings, self.workflow
        agent = settings.agent.updated(
            timeout_s=workflow.timeout_s, max_steps=10_000, snapshot=workflow.view
        )
        self.run = AsyncItemRun(
            page,
            llm,
            self.text,
            variables=self.variables,
            settings=agent,
            emergency=settings.emergency,
            fallback=fallback,
            fallback_name=fallback_name,
            now=now,
            options=request_options(settings, "agent"),
        )
        self.run.verify_options = request_options(settings, "verify")

    # ----------------------------------------------------------------- the workflow
    async def run_all(self) -> WorkflowResult:
        """Every item in order, under the call's hard deadline (a page that holds its main
        thread, a replay or a model that hangs: the run ends at ``timeout_s`` all the same)."""
        first_url = self.run.page.url
        try:
            reason, message = await run_with_deadline(
                self._run_items, self.run.clock.run_left() + _BACKSTOP_S, lambda: self.run.page
            )
        except DeadlineExceeded as late:
            reason, message = "timeout", self._out_of_time(late.note)
        else:
            if reason == "timeout":  # the run's clock ended it: a busy page is stopped too
                message = self._out_of_time(await interrupt_if_busy(self.run.page))
        for item in self.items:
            if item.status == "pending":
                started = item.attempts > 0 or item.id == self._current
                item.status = "failed" if started else "not_run"
                item.error = item.error or (message if started else None)
                if item.status == "failed":
                    item.code = "TIMEOUT" if reason == "timeout" else "GOAL_NOT_REACHED"
                    self._remember_failure(item)
        result = self._result(reason, message)
        if (
            result.success
            and self.history is not None
            and self.flows_in_history
            and not self.checklist_replayed
        ):
            stored = ChecklistRecord(
                request=self._request(),
                checklist=[i.text for i in self.items],
                find_page=sorted(self._find_page),
                recorded_at=self.history.now(),
            )
            self.history.record_checklist(
                first_url, stored, secret_values=self.variables.secret_values()
            )
        return result

    async def _run_items(self) -> tuple[WorkflowReason, str]:
        """Run the items until one fails; why the run ended and what to tell the caller."""
        try:
            if not self.items:  # a cache replay that stopped set them already
                await self._make_checklist()
            for position, item in enumerate(self.items):
                if item.replayed:  # done by the action cache
                    continue
                self._current = item.id
                await self._run_item(position, item)
                if item.status != "done":
                    return "failed", f"item {item.id} failed: {item.error}"
            self._current = None
        except RunTimedOut:
            return "timeout", self._out_of_time()
        except RunCancelled as cancelled:
            return "cancelled", f"Cancelled: {cancelled.message}."
        except (RunEnded, StepFailed, LLMError) as exc:
            return "failed", self.variables.redact(getattr(exc, "message", "") or str(exc))
        return "done", ""

    def _out_of_time(self, note: str = "") -> str:
        return (
            f"Ran out of time: timeout_s={self.workflow.timeout_s:g} s passed."
            f"{' ' + note if note else ''} Raise timeout_s, or split the request."
        )

    async def _make_checklist(self) -> None:
        """The one ``checklist`` request: items with their conditions, and which find a page
        (or, with a history, the checklist the same request became on this site before)."""
        stored = None
        if self.history is not None and self.workflow.replay and self.flows_in_history:
            stored = self.history.find_checklist(self.run.page.url, self._request())
        if stored is not None:
            self.checklist_replayed = True
            self._set_items(stored.checklist, stored.find_page)
            return
        self.run.clock.start_step()
        try:
            response = await ask_recorded(
                self,
                lambda: self.run.emergency.primary.structured(
                    checklist_messages(self.variables.redact(self.text)),
                    ChecklistAnswer,
                    max_retries=self.settings.max_reasks,
                    options=request_options(self.settings, "checklist"),
                ),
            )
        except LLMError as exc:
            raise StepFailed(f"the checklist request failed: {first_line(exc)}") from None
        self._set_items(response.value.checklist, response.value.find_page)

    def _request(self) -> str:
        return self.variables.redact(self.text)

    def _set_items(self, checklist: list[str], find_page: list[int]) -> None:
        # Each state says "step N of at most M": M is every item's max_attempts.
        most = self.workflow.max_attempts * len(checklist)
        self.run.settings = self.run.settings.updated(max_steps=most)
        self._find_page = {n for n in find_page if 1 <= n <= len(checklist)}
        self.items = [
            WorkflowItem(id=n, text=self.variables.redact(text), find_page=n in self._find_page)
            for n, text in enumerate(checklist, 1)
        ]
        logger.info(
            "stagehand_py: workflow checklist: %s",
            " | ".join(checklist_strings([i.text for i in self.items], self._statuses())),
        )

    def _statuses(self) -> list[ItemStatus]:
        return [item.status for item in self.items]

    async def _run_item(self, position: int, item: WorkflowItem) -> None:
        run = self.run
        start_url = self._start_urls[item.id] = run.page.url
        if await self._replay(item):
            return
        run.begin(
            self.variables.redact(self.text),
            [i.text for i in self.items],
            self._statuses(),
            position,
            item,
        )
        while True:
            done = await run.attempt(await self._hints(item))
            run.statuses = self._statuses()
            if done:
                item.status = "done"
                self.item_flows[item.id] = list(run.flow)
                if not run.flow_replayable:
                    self.unreplayable[item.id] = run.not_replayable
                self._remember_success(item, start_url)
                return
            ending = self._failure(item)
            if ending is not None:
                item.status, item.code = "failed", ending[0]
                item.error = ending[1]
                self._remember_failure(item)
                return

    def _failure(self, item: WorkflowItem) -> tuple[ActErrorCode, str] | None:
        """Why the item fails now, or None while it may go on."""
        run = self.run
        last = _last_error(run.steps[-1]) if run.steps else None
        can_escalate = run.emergency.pending()
        if not can_escalate:
            run.escalate_now(item.attempts + 1)  # a trigger that can switch nothing: recorded
        if run.gave_up and not can_escalate:
            return "TARGET_NOT_FOUND", f"the model says it cannot be done: {run.gave_up}"
        if run.consecutive_failures >= self.settings.agent.max_failures and not can_escalate:
            return "GOAL_NOT_REACHED", (
                f"{run.consecutive_failures} failed steps in a row"
                + (" after escalating" if item.escalations else "")
                + (f"; last: {last}" if last else "")
            )
        if item.attempts >= self.workflow.max_attempts:
            return "MAX_STEPS", f"max_attempts={self.workflow.max_attempts} steps ran" + (
                f"; last: {last}" if last else ""
            )
        return None

    # ----------------------------------------------------------------- history
    async def _replay(self, item: WorkflowItem) -> bool:
        """Replay the item's stored flow (no model call); True when every step held."""
        if self.history is None or not self.workflow.replay or not self.flows_in_history:
            return False
        url = self.run.page.url
        flow = self.history.find_flow(url, item.text)
        if flow is None:
            return False
        if not flow.replayable or not flow.actions:
            item.replay_note = "the stored flow needs more than element actions"
            return False
        unknown = sorted(
            {n for a in flow.actions for arg in a.arguments for n in self._unknown(arg)}
        )
        if unknown:
            item.replay_note = f"the stored flow needs variables not given: {', '.join(unknown)}"
            return False
        self.run.clock.check_run()
        left_ms = max(1.0, self.run.clock.run_left() * 1000)  # a replay cannot outlast the run
        settings = self.settings.updated(
            action_timeout_ms=min(self.settings.action_timeout_ms, left_ms),
            settle_timeout_ms=min(self.settings.settle_timeout_ms, left_ms),
        )
        try:
            self.run.page = await replay_actions(
                self.run.page, flow.actions, variables=self.variables, settings=settings
            )
        except PageError as drift:
            item.replay_note = self.variables.redact(first_line(drift))
            logger.info("stagehand_py: workflow item %d: replay drifted: %s", item.id, drift)
            return False
        item.status, item.replayed = "done", True
        item.url = self.variables.redact(self.run.page.url)
        item.actions = [
            ActionOutcome(action=a.method, description=a.description, note="replayed from history")
            for a in flow.actions
        ]
        logger.info("stagehand_py: workflow item %d replayed from history", item.id)
        return True

    def _unknown(self, text: str) -> list[str]:
        return self.variables.unknown_placeholders(text)

    def _remember_success(self, item: WorkflowItem, start_url: str) -> None:
        if self.history is None or not self.run.flow or not self.flows_in_history:
            return
        flow = FlowRecord(
            item=item.text,
            start_path=start_path(start_url),
            url=self.variables.redact(page_url(start_url)),
            actions=self.run.flow,
            steps=[outcome.line() for outcome in item.actions],
            replayable=self.run.flow_replayable,
            recorded_at=self.history.now(),
        )
        self.history.record_flow(start_url, flow, secret_values=self.variables.secret_values())

    def _remember_failure(self, item: WorkflowItem) -> None:
        """Record where ``item`` failed, and forget its stored flow: the one keyed by the page
        the item started on (the flow a later run would replay), not where it ended."""
        if self.history is None:
            return
        url = self.run.page.url
        start_url = self._start_urls.get(item.id, url)
        failure = FailureRecord(
            item=item.text,
            code=item.code or "GOAL_NOT_REACHED",
            url=self.variables.redact(page_url(url)),
            message=item.error or "",
            recorded_at=self.history.now(),
        )
        self.history.record_failure(url, failure, secret_values=self.variables.secret_values())
        self.history.remove_flow(start_url, item.text)

    # ----------------------------------------------------------------- sitemap hints
    async def _hints(self, item: WorkflowItem) -> str:
        """The sitemap block of an item that must find a page ("" otherwise, or on failure)."""
        if not (self.workflow.sitemap and item.find_page):
            return ""
        found = await self.sitemaps.hints_for(self.run.page.url, self.run.clock.run_left())
        if found is None or not found.urls:
            return ""
        urls = hint_urls(found.urls)
        item.hints = len(urls)
        return self.variables.redact(hints_text(urls, len(found.urls)))

    # ----------------------------------------------------------------- the result
    def _result(self, reason: WorkflowReason, message: str) -> WorkflowResult:
        run = self.run
        total = self.usage + sum((step.usage for step in run.steps), Usage())
        success = reason == "done" and all(i.status == "done" for i in self.items)
        if reason == "done" and not success:
            reason = "failed"
        result = WorkflowResult(
            text=self.variables.redact(self.text),
            success=success,
            reason=reason,
            message=message,
            checklist=checklist_strings([i.text for i in self.items], self._statuses()),
            checklist_replayed=self.checklist_replayed,
            items=self.items,
            model=run.emergency.primary.model,
            fallback_model=run.emergency.fallback.model if run.emergency.fallback else "",
            usage=total,
            started_at=self._started_at,
            ended_at=utc_now(),
            duration_s=run.clock.elapsed(),
            sitemaps={origin: len(h.urls) for origin, h in self.sitemaps.sites.items()},
            page=run.page,
        )
        logger.info("stagehand_py: workflow finished (%s): %s", reason, result.checklist)
        return result


def _last_error(record: StepRecord) -> str | None:
    """The step's own error, else the error of its last action that failed."""
    failed = [r.error for r in record.results if r.status == "error" and r.error]
    return record.error or (failed[-1] if failed else None)
