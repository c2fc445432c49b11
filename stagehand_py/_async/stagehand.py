"""AsyncStagehand: the configured SDK (model, limits, cache) that wraps Playwright pages."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping
from typing import Any

from playwright.async_api import Page as AsyncPage

from .._call_outcomes import out_of_time, timed_out_act
from .._config import Settings, SnapshotMode
from .._deadline_clock import Deadline
from .._errors import (
    ActError,
    ActTimeoutError,
    CacheMissError,
    StagehandError,
)
from .._history import CallRecord
from .._inputs import (
    check_action,
    check_instruction,
    check_observed,
    check_open,
    check_page_type,
    check_placeholders,
    check_schema,
    check_timeout,
)
from .._trace_names import call_group_name
from .._types import ActResult, ObserveResult
from .._variables import MIN_CACHEABLE_CHARS, Variables
from ..agent import AgentControls, AgentResult, TokenCounter
from ..agent._history import call_record
from ..llm._options import request_options
from ..workflow._history import WorkflowHistory
from ..workflow._result import WorkflowResult
from ..workflow._result import call_record as workflow_record
from ._deadline import DeadlineExceeded, run_with_deadline
from .act.observed import act_observed
from .agent.observe import same_page
from .agent.run import AsyncAgentRun
from .agent.think import ApprovalCallback
from .browser.tracing import AsyncTraceGroup
from .cache.act import cached_act
from .cache.observe import cached_observe
from .emergency import checked_fallback, fallback_name, fallback_source
from .extract.read import ExtractOutcome, extract
from .llm.base import AsyncLLM
from .observe.ask import ObserveOutcome
from .page import AsyncStagehandPage
from .session import AsyncStagehandCore, _model_limits, _snapshot_limit
from .workflow.run import AsyncWorkflowRun, open_history


class AsyncStagehand(AsyncStagehandCore):
    """The SDK's entry point: which model to ask, with which limits, caching where.

    ``AsyncStagehand(model="openai/gpt-4.1-mini")`` reads keys and base URLs from the
    environment; pass ``llm=`` to use any object with the two-method model contract
    (for instance :class:`~stagehand_py.testing.AsyncScriptedLLM` in tests). The model is
    created on first use, so wrapping a page never fails for want of a key.

    Every :class:`~stagehand_py.Settings` field is accepted as a keyword too (``max_steps=``,
    ``cache_mode=``, ...); an unknown keyword is a :class:`ConfigurationError` listing them all.
    """

    def wrap(self, page: AsyncPage) -> AsyncStagehandPage:
        """Return ``page`` with act/extract/observe added; every Playwright attribute stays."""
        return AsyncStagehandPage(page, self)

    # ------------------------------------------------------------------ act
    async def act(
        self,
        page: AsyncPage,
        action: str | ObserveResult,
        *,
        variables: Mapping[str, object] | Variables | None = None,
        raise_on_failure: bool = True,
        model: str | None = None,
        llm: AsyncLLM | None = None,
        instructions: str | None = None,
        **limits: Any,
    ) -> ActResult:
        """Run ``action`` on ``page``: an instruction, or an observe() result (no LLM call).

        ``model=`` / ``llm=`` ask another model than the session's for this call;
        ``instructions=`` adds to the session's own instructions for this call."""
        __tracebackhide__ = True
        check_page_type(page, AsyncPage, type(self).__name__, "act")
        check_action(action)
        check_open(page, "act")
        settings = self._settings(limits)
        # The deadline counts from the call's start: its setup and trace group are in it.
        deadline = Deadline.after(settings.timeout_s)
        try:
            values = self._call_variables(page, variables, settings)
        finally:
            del variables  # raw values stay out of this frame's locals (tracebacks print them)
        if isinstance(action, ObserveResult):
            check_observed(action, values)
        else:
            check_placeholders("act", action, values)
        source = self._with_fallback(
            self._call_llm("act", values, settings, model, llm, instructions)
        )
        said = action.description if isinstance(action, ObserveResult) else action
        async with AsyncTraceGroup(page, call_group_name("act", said), values.redact):
            try:
                result = await run_with_deadline(
                    functools.partial(self._act_once, page, action, values, settings, source),
                    deadline.remaining(),
                    lambda: page,
                )
            except DeadlineExceeded as late:
                result = timed_out_act(page, action, values, settings, late.note)
            except StagehandError as exc:
                self._record_failure("act", said, page, exc, values)
                raise
        if result.page is not None and result.page is not page:
            self._secrets.carry_over(page, result.page)
            result.page = self.wrap(result.page)
        self.usage.add("act", result.usage, model=self._model_name())
        self.history.append(
            CallRecord(
                kind="act",
                instruction=result.instruction,
                success=result.success,
                message=result.message,
                url=values.redact(page.url),
                actions=result.actions,
                verifications=result.verifications,
                cache=result.cache,
                llm_calls=result.llm_calls,
                usage=result.usage,
                duration_s=result.duration_s,
            )
        )
        if not result.success and raise_on_failure:
            error = ActTimeoutError if result.timed_out else ActError
            raise error(result.message, result)
        return result

    async def _act_once(
        self,
        page: AsyncPage,
        action: str | ObserveResult,
        values: Variables,
        settings: Settings,
        source: Callable[[], AsyncLLM],
    ) -> ActResult:
        __tracebackhide__ = True
        if isinstance(action, ObserveResult):
            return await act_observed(page, action, values, settings, source)
        cache, notes = self.cache, []
        short = values.too_short_to_cache()
        if cache is not None and short and settings.cache_mode != "require":
            cache = None
            notes.append(
                f"Not cached: the value of {', '.join(short)} is shorter than "
                f"{MIN_CACHEABLE_CHARS} characters, too short to keep out of a cache file."
            )
        result = await cached_act(
            page, source, action, variables=values, settings=settings, cache=cache
        )
        result.notes.extend(notes)
        return result

    # ------------------------------------------------------------------ extract / observe
    async def extract(
        self,
        page: AsyncPage,
        instruction: str | None = None,
        schema: Any = None,
        *,
        selector: str | None = None,
        variables: Mapping[str, object] | Variables | None = None,
        max_chars_per_chunk: int = 12000,
        timeout_s: float | None = None,
        max_tokens: int | dict[str, int] | None = None,
        temperature: float | None = None,
        snapshot: SnapshotMode | None = None,
        model: str | None = None,
        llm: AsyncLLM | None = None,
        instructions: str | None = None,
    ) -> ExtractOutcome:
        __tracebackhide__ = True
        check_page_type(page, AsyncPage, type(self).__name__, "extract")
        check_instruction("extract", instruction, required=False)
        check_schema(schema)
        seconds = check_timeout("extract", timeout_s) or self.settings.timeout_s
        deadline = Deadline.after(seconds)  # from the call's start: its setup is in it
        check_open(page, "extract")
        try:
            values = self._call_variables(page, variables, self.settings)
        finally:
            del variables  # raw values stay out of this frame's locals (tracebacks print them)
        settings = self._settings(
            {**_model_limits(max_tokens, temperature), **_snapshot_limit(snapshot)}
        )
        source = self._call_llm("extract", values, settings, model, llm, instructions)
        async with AsyncTraceGroup(
            page, call_group_name("extract", instruction or ""), values.redact
        ):
            try:
                return await self._extract(
                    page,
                    instruction,
                    schema,
                    selector,
                    values,
                    max_chars_per_chunk,
                    settings,
                    source,
                    deadline,
                )
            except CacheMissError as exc:  # refused before any model call: recorded here
                self._record_failure("extract", instruction, page, exc, values)
                raise

    async def _extract(
        self,
        page: AsyncPage,
        instruction: str | None,
        schema: Any,
        selector: str | None,
        values: Variables,
        max_chars_per_chunk: int,
        settings: Settings,
        source: Callable[[], AsyncLLM],
        deadline: Deadline,
    ) -> ExtractOutcome:
        __tracebackhide__ = True
        if settings.cache_mode == "require" and (schema is not None or instruction):
            raise CacheMissError(
                f"extract({values.redact(instruction or '')!r}) needs the model, and "
                "cache_mode='require' never calls it: extract() results are not cached (the "
                "data on a page changes). Use cache_mode='read-only' where extract() runs.",
                instruction=values.redact(instruction or ""),
                key="",
                reason="miss",
            )
        seconds = deadline.seconds
        outcome = ExtractOutcome(value=None)  # filled as it goes: a failure still has its cost
        try:
            llm = await self._model_in_time(source, deadline)
            await run_with_deadline(
                functools.partial(
                    extract,
                    page,
                    llm,
                    instruction or "",  # with no schema either: the page text, no model call
                    schema,
                    selector=selector,
                    max_chars_per_chunk=max_chars_per_chunk,
                    max_retries=settings.max_reasks,
                    redact=values.redact,
                    deadline=deadline,
                    settings=settings,
                    outcome=outcome,
                ),
                deadline.remaining(),
                lambda: page,
            )
        except DeadlineExceeded as late:
            error = out_of_time("extract", seconds, late.note)
            self._record_failure("extract", instruction, page, error, values, outcome)
            raise error from None
        except StagehandError as exc:
            self._record_failure("extract", instruction, page, exc, values, outcome)
            raise
        self.usage.add("extract", outcome.usage, model=self._model_name())
        self.history.append(
            CallRecord(
                kind="extract",
                instruction=values.redact(instruction or ""),
                success=True,
                message=f"{outcome.chunks} chunk(s) read",
                url=values.redact(page.url),
                llm_calls=outcome.llm_calls,
                usage=outcome.usage,
                duration_s=outcome.duration_s,
            )
        )
        return outcome

    async def observe(
        self,
        page: AsyncPage,
        instruction: str | None = None,
        *,
        variables: Mapping[str, object] | Variables | None = None,
        timeout_s: float | None = None,
        max_tokens: int | dict[str, int] | None = None,
        temperature: float | None = None,
        snapshot: SnapshotMode | None = None,
        model: str | None = None,
        llm: AsyncLLM | None = None,
        instructions: str | None = None,
    ) -> ObserveOutcome:
        __tracebackhide__ = True
        check_page_type(page, AsyncPage, type(self).__name__, "observe")
        check_instruction("observe", instruction, required=False)
        seconds = check_timeout("observe", timeout_s) or self.settings.timeout_s
        deadline = Deadline.after(seconds)  # from the call's start: its setup is in it
        check_open(page, "observe")
        try:
            values = self._call_variables(page, variables, self.settings)
        finally:
            del variables  # raw values stay out of this frame's locals (tracebacks print them)
        settings = self._settings(
            {**_model_limits(max_tokens, temperature), **_snapshot_limit(snapshot)}
        )
        source = self._call_llm("observe", values, settings, model, llm, instructions)
        outcome = ObserveOutcome(results=[])  # filled as it goes: a failure still has its cost
        trace = AsyncTraceGroup(page, call_group_name("observe", instruction or ""), values.redact)
        try:
            async with trace:
                ready = await self._model_source(source, deadline)
                outcome = await run_with_deadline(
                    functools.partial(
                        cached_observe,
                        page,
                        ready,
                        instruction,
                        variables=values,
                        settings=settings,
                        cache=self.cache,
                        outcome=outcome,
                    ),
                    deadline.remaining(),
                    lambda: page,
                )
        except DeadlineExceeded as late:
            error = out_of_time("observe", seconds, late.note)
            self._record_failure("observe", instruction, page, error, values, outcome)
            raise error from None
        except StagehandError as exc:
            self._record_failure("observe", instruction, page, exc, values, outcome)
            raise
        self.usage.add("observe", outcome.usage, model=self._model_name())
        self.history.append(
            CallRecord(
                kind="observe",
                instruction=values.redact(instruction or ""),
                success=True,
                url=values.redact(page.url),
                found=[f"{r.description} ({r.method} {r.selector})" for r in outcome.results],
                cache=outcome.cache,
                llm_calls=outcome.llm_calls,
                usage=outcome.usage,
                duration_s=outcome.duration_s,
            )
        )
        return outcome

    # ------------------------------------------------------------------ agent
    async def agent(
        self,
        page: AsyncPage,
        task: str,
        *,
        variables: Mapping[str, object] | Variables | None = None,
        approval: ApprovalCallback | None = None,
        controls: AgentControls | None = None,
        count_tokens: TokenCounter | None = None,
        snapshot: SnapshotMode | None = None,
        model: str | None = None,
        llm: AsyncLLM | None = None,
        instructions: str | None = None,
        **limits: Any,
    ) -> AgentResult:
        """Let the model drive ``page`` step by step until ``task`` is done (see
        :meth:`AsyncStagehandPage.agent`)."""
        __tracebackhide__ = True
        check_page_type(page, AsyncPage, type(self).__name__, "agent")
        check_instruction("agent", task, required=True)
        check_open(page, "agent")
        try:
            values = self._call_variables(page, variables, self.settings)
        finally:
            del variables  # raw values stay out of this frame's locals (tracebacks print them)
        self._refuse_in_require_mode(
            "agent",
            task,
            page,
            values,
            "agent runs are not in the action cache (each step asks the model). Use "
            "cache_mode='read-only' where agent() runs, or replace the run with act() calls "
            "the cache replays (AgentResult.to_playwright_code() turns a saved run into plain "
            "Playwright code).",
        )
        run = AsyncAgentRun(
            page,
            self._call_llm("agent", values, self.settings, model, llm, instructions),
            task,
            variables=values,
            settings=self._agent_settings(limits, snapshot),
            approval=approval,
            controls=controls,
            prices=self.usage.prices,
            count_tokens=count_tokens,
            options=request_options(self.settings, "agent"),
            emergency=self.settings.emergency,
            fallback=fallback_source(self._fallback),
            fallback_name=fallback_name(self._fallback),
        )
        async with AsyncTraceGroup(page, call_group_name("agent", task), values.redact):
            result = await run.run()
        if same_page(result.page, page) and isinstance(page, AsyncStagehandPage):
            result.page = page
        elif result.page is not None:
            result.page = self.wrap(result.page)
        self.usage.add("agent", result.usage, model=self._model_name())
        self.history.append(call_record(result))
        return result

    # ------------------------------------------------------------------ workflow
    async def workflow(
        self,
        page: AsyncPage,
        text: str,
        *,
        variables: Mapping[str, object] | Variables | None = None,
        fallback_model: str | AsyncLLM | None = None,
        history_dir: str | os.PathLike[str] | WorkflowHistory | None = None,
        sitemap: bool | None = None,
        clock: Callable[[], float] | None = None,
        **limits: Any,
    ) -> WorkflowResult:
        """Turn ``text`` into a checklist and work through it on ``page`` (see
        :meth:`AsyncStagehandPage.workflow`)."""
        __tracebackhide__ = True
        check_page_type(page, AsyncPage, type(self).__name__, "workflow")
        check_instruction("workflow", text, required=True)
        check_open(page, "workflow")
        try:
            values = self._call_variables(page, variables, self.settings)
        finally:
            del variables  # raw values stay out of this frame's locals (tracebacks print them)
        self._refuse_in_require_mode(
            "workflow",
            text,
            page,
            values,
            "workflows are not in the action cache (the checklist and each item's steps ask "
            "the model). Use cache_mode='read-only' where workflow() runs.",
        )
        settings = self.settings.workflow.updated(**limits)
        if sitemap is not None:
            settings = settings.updated(sitemap=sitemap)
        fallback = checked_fallback(fallback_model) if fallback_model is not None else None
        source = fallback or self._fallback
        history = open_history(history_dir) if history_dir is not None else None
        run = AsyncWorkflowRun(
            page,
            self._call_llm("workflow", values, self.settings, None, None, None),
            text,
            variables=values,
            settings=self.settings,
            workflow=settings,
            fallback=fallback_source(source),
            fallback_name=fallback_name(source),
            history=history or self.workflow_history,
            now=clock,
        )
        async with AsyncTraceGroup(page, call_group_name("workflow", text), values.redact):
            result = await run.run_all()
        if same_page(result.page, page) and isinstance(page, AsyncStagehandPage):
            result.page = page
        elif result.page is not None:
            result.page = self.wrap(result.page)
        self.usage.add("workflow", result.usage, model=self._model_name())
        self.history.append(workflow_record(result))
        return result
