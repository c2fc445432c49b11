"""AsyncStagehand: the configured SDK (model, limits, cache) that wraps Playwright pages.

Each verb checks its own arguments, opens its call and hands the call path (``calls.py``) its
body and its record. ``stagehand.act(page, ...)`` checks the page's type first; then it and
``page.act(...)`` meet in ``_act`` (and so for every verb), sharing one options dict.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from playwright.async_api import Page as AsyncPage

from .._call_outcomes import needs_the_model, timed_out_act
from .._config import Settings
from .._errors import ActError, ActTimeoutError
from .._inputs import (
    check_action,
    check_cache_key,
    check_instruction,
    check_observed,
    check_open,
    check_page_type,
    check_placeholders,
    check_schema,
    refuse_playwright_timeout,
)
from .._types import ActResult, ObserveResult
from .._variables import Variables
from ..agent import AgentResult
from ..agent._history import call_record as agent_record
from ..check import CheckResult
from ..llm._options import request_options
from ..workflow._history import open_history
from ..workflow._result import WorkflowResult
from ..workflow._result import call_record as workflow_record
from ._deadline import DeadlineExceeded
from .act.observed import act_observed
from .agent.flow import AsyncFlowKeepingRun
from .agent.observe import same_page
from .agent.replay import AsyncCachedAgent
from .cache.act import cached_act
from .cache.extract import ExtractReading
from .cache.observe import cached_observe
from .calls import AsyncCall, ModelChoice, ModelSource, check_options
from .check.verb import AsyncCheckCalls
from .extract.read import ExtractOutcome, extract
from .llm.base import AsyncLLM
from .observe.ask import ObserveOutcome
from .options import (
    ActOptions,
    AgentOptions,
    CheckOptions,
    ExtractOptions,
    ObserveOptions,
    WorkflowOptions,
    limits_in,
)
from .page import AsyncStagehandPage
from .records import act_record, extract_record, observe_record
from .workflow.replay import AsyncCachedWorkflow
from .workflow.run import AsyncWorkflowRun

if TYPE_CHECKING:
    from typing_extensions import Unpack

RunResult = TypeVar("RunResult", AgentResult, WorkflowResult)

MAX_CHARS_PER_CHUNK = 12000  # extract(): page text sent in one request


class AsyncStagehand(AsyncCheckCalls):
    """The SDK's entry point: which model to ask, with which limits, caching where.

    ``AsyncStagehand(model="openai/gpt-4.1-mini")`` reads keys and base URLs from the
    environment; pass ``llm=`` to use any object with the two-method model contract
    (for instance :class:`~stagehand_py.testing.AsyncScriptedLLM` in tests). The model is
    created on first use, so wrapping a page never fails for want of a key.

    Every :class:`~stagehand_py.Settings` field is accepted as a keyword too (``max_steps=``,
    ``cache_mode=``, ...); an unknown keyword is a :class:`ConfigurationError` listing them all.
    """

    def wrap(self, page: AsyncPage) -> AsyncStagehandPage:
        """Return ``page`` with act/extract/observe/check added; every Playwright attribute
        stays (``page.check(selector)`` included, see :meth:`AsyncStagehandPage.check`)."""
        return AsyncStagehandPage(page, self)

    async def act(
        self, page: AsyncPage, action: str | ObserveResult, **options: Unpack[ActOptions]
    ) -> ActResult:
        """Run ``action`` on ``page``: an instruction, or an observe() result (no LLM call).

        ``model=`` / ``llm=`` ask another model than the session's for this call;
        ``instructions=`` adds to the session's own instructions for this call (see
        :meth:`AsyncStagehandPage.act`)."""
        __tracebackhide__ = True
        check_page_type(page, AsyncPage, type(self).__name__, "act")
        return await self._act(page, action, options)

    async def extract(
        self,
        page: AsyncPage,
        instruction: str | None = None,
        schema: Any = None,
        *,
        max_chars_per_chunk: int = MAX_CHARS_PER_CHUNK,
        **options: Unpack[ExtractOptions],
    ) -> ExtractOutcome:
        """Data from ``page`` (see :meth:`AsyncStagehandPage.extract`), with what it cost."""
        __tracebackhide__ = True
        check_page_type(page, AsyncPage, type(self).__name__, "extract")
        return await self._extract(page, instruction, schema, options, max_chars_per_chunk)

    async def observe(
        self, page: AsyncPage, instruction: str | None = None, **options: Unpack[ObserveOptions]
    ) -> ObserveOutcome:
        """Elements of ``page`` (see :meth:`AsyncStagehandPage.observe`), with what it cost."""
        __tracebackhide__ = True
        check_page_type(page, AsyncPage, type(self).__name__, "observe")
        return await self._observe(page, instruction, options)

    async def check(
        self, page: AsyncPage, statement: str, **options: Unpack[CheckOptions]
    ) -> CheckResult:
        """Whether ``statement`` holds on ``page`` (see :meth:`AsyncStagehandPage.check`):
        a :class:`~stagehand_py.CheckResult`, or :class:`~stagehand_py.CheckError`."""
        __tracebackhide__ = True
        check_page_type(page, AsyncPage, type(self).__name__, "check")
        return await self._check(page, statement, options)

    async def agent(
        self, page: AsyncPage, task: str, **options: Unpack[AgentOptions]
    ) -> AgentResult:
        """Let the model drive ``page`` step by step until ``task`` is done (see
        :meth:`AsyncStagehandPage.agent`)."""
        __tracebackhide__ = True
        check_page_type(page, AsyncPage, type(self).__name__, "agent")
        return await self._agent(page, task, options)

    async def workflow(
        self, page: AsyncPage, text: str, **options: Unpack[WorkflowOptions]
    ) -> WorkflowResult:
        """Turn ``text`` into a checklist and work through it on ``page`` (see
        :meth:`AsyncStagehandPage.workflow`)."""
        __tracebackhide__ = True
        check_page_type(page, AsyncPage, type(self).__name__, "workflow")
        return await self._workflow(page, text, options)

    # ------------------------------------------------------------------ act
    async def _act(
        self, page: AsyncPage, action: str | ObserveResult, options: ActOptions
    ) -> ActResult:
        __tracebackhide__ = True
        refuse_playwright_timeout("act", options)
        check_action(action)
        check_open(page, "act")
        raise_on_failure = options.pop("raise_on_failure", True)
        choice = ModelChoice.taken_from(options)
        settings = self._settings(limits_in(options))  # the rest of its options
        said = action.description if isinstance(action, ObserveResult) else action
        call = self._start(
            "act", page, said, options, settings, seconds=settings.timeout_s, choice=choice
        )
        if isinstance(action, ObserveResult):
            check_observed(action, call.values)
        else:
            check_placeholders("act", action, call.values)
        source = self._with_fallback(call, self._model_source(call, settings))
        body = functools.partial(self._act_body, call, action, settings, source)
        result = await self._run(call, body, act_record)
        if not result.success and raise_on_failure:
            error = ActTimeoutError if result.timed_out else ActError
            raise error(result.message, result)
        return result

    async def _act_body(
        self,
        call: AsyncCall,
        action: str | ObserveResult,
        settings: Settings,
        source: Callable[[], AsyncLLM],
    ) -> ActResult:
        """The act, ended by its deadline with a result; a tab it moved to comes wrapped."""
        __tracebackhide__ = True
        page, values = call.page, call.values
        try:
            result = await call.in_time(
                functools.partial(self._act_once, page, action, values, settings, source)
            )
        except DeadlineExceeded as late:
            return timed_out_act(page, action, values, settings, late.note)
        if result.page is not None and result.page is not page:
            self._secrets.carry_over(page, result.page)
            result.page = self.wrap(result.page)
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
        return await cached_act(
            page, source, action, variables=values, settings=settings, cache=self.cache
        )

    # ------------------------------------------------------------------ extract / observe
    async def _extract(
        self,
        page: AsyncPage,
        instruction: str | None,
        schema: Any,
        options: ExtractOptions,
        chunk_chars: int = MAX_CHARS_PER_CHUNK,
    ) -> ExtractOutcome:
        __tracebackhide__ = True
        check_options("extract", options, ExtractOptions.__optional_keys__)
        check_instruction("extract", instruction, required=False)
        check_schema(schema)
        selector = options.pop("selector", None)
        cache_key = check_cache_key(options.pop("cache_key", None))
        call, settings, source = self._start_reading("extract", page, instruction, options)
        reading = ExtractReading(schema, selector, chunk_chars, cache_key)
        body = functools.partial(self._extract_body, call, reading, settings, source)
        return await self._run(call, body, extract_record)

    async def _extract_body(
        self, call: AsyncCall, reading: ExtractReading, settings: Settings, source: ModelSource
    ) -> ExtractOutcome:
        __tracebackhide__ = True
        instruction = call.instruction or ""  # with no schema either: the page text, no model
        call.spent = outcome = ExtractOutcome(value=None)  # a failure still has its cost
        cache = reading.cache_for(self.cache)
        if cache is not None or (settings.cache_mode == "require" and reading.compiles):
            ready = await call.model_if_any(source)
            compiled = reading.cached_call(call.page, ready, instruction, call.values, settings)
            compiled.outcome, compiled.deadline = outcome, call.deadline
            return await call.in_time(functools.partial(compiled.run, cache))
        if settings.cache_mode == "require" and (reading.schema is not None or instruction):
            raise needs_the_model("extract", call.values.redact(instruction))
        llm = await call.model_in_time(source)
        await call.in_time(
            functools.partial(
                extract,
                call.page,
                llm,
                instruction,
                reading.schema,
                selector=reading.selector,
                max_chars_per_chunk=reading.chunk_chars,
                max_retries=settings.max_reasks,
                redact=call.values.redact,
                deadline=call.deadline,
                settings=settings,
                outcome=outcome,
            )
        )
        return outcome

    async def _observe(
        self, page: AsyncPage, instruction: str | None, options: ObserveOptions
    ) -> ObserveOutcome:
        __tracebackhide__ = True
        check_options("observe", options, ObserveOptions.__optional_keys__)
        check_instruction("observe", instruction, required=False)
        call, settings, source = self._start_reading("observe", page, instruction, options)
        body = functools.partial(self._observe_body, call, settings, source)
        return await self._run(call, body, observe_record)

    async def _observe_body(
        self, call: AsyncCall, settings: Settings, source: ModelSource
    ) -> ObserveOutcome:
        __tracebackhide__ = True
        call.spent = outcome = ObserveOutcome(results=[])  # a failure still has its cost
        ready = await call.model_if_any(source)
        return await call.in_time(
            functools.partial(
                cached_observe,
                call.page,
                ready,
                call.instruction,
                variables=call.values,
                settings=settings,
                cache=self.cache,
                outcome=outcome,
            )
        )

    # ------------------------------------------------------------------ agent / workflow
    async def _agent(self, page: AsyncPage, task: str, options: AgentOptions) -> AgentResult:
        __tracebackhide__ = True
        refuse_playwright_timeout("agent", options)
        check_instruction("agent", task, required=True)
        check_open(page, "agent")
        approval, controls = options.pop("approval", None), options.pop("controls", None)
        count_tokens, snapshot = options.pop("count_tokens", None), options.pop("snapshot", None)
        choice = ModelChoice.taken_from(options)
        call = self._start(
            "agent", page, task, options, self.settings, choice=choice, records_errors=False
        )
        make_run = functools.partial(
            AsyncFlowKeepingRun,
            page,
            self._model_source(call, self.settings),
            task,
            variables=call.values,
            settings=self._agent_settings(limits_in(options), snapshot),
            approval=approval,
            controls=controls,
            prices=self.usage.prices,
            count_tokens=count_tokens,
            options=request_options(self.settings, "agent"),
            emergency=self.settings.emergency,
            fallback=call.fallback_source,
            fallback_name=call.fallback_name,
        )
        cached = AsyncCachedAgent(page, None, task, variables=call.values, settings=self.settings)
        cached.make_run = make_run
        body = functools.partial(self._on_page, page, functools.partial(cached.run, self.cache))
        return await self._run(call, body, lambda _, result: agent_record(result))

    async def _workflow(
        self, page: AsyncPage, text: str, options: WorkflowOptions
    ) -> WorkflowResult:
        __tracebackhide__ = True
        refuse_playwright_timeout("workflow", options)
        check_instruction("workflow", text, required=True)
        check_open(page, "workflow")
        fallback_model = options.pop("fallback_model", None)
        history_dir = options.pop("history_dir", None)
        sitemap, clock = options.pop("sitemap", None), options.pop("clock", None)
        call = self._start("workflow", page, text, options, self.settings, records_errors=False)
        settings = self.settings.workflow.updated(**limits_in(options))
        if not settings.replay:
            self._refuse_in_require_mode(call)
        if sitemap is not None:
            settings = settings.updated(sitemap=sitemap)
        call.fall_back_to(fallback_model)
        history = open_history(history_dir) if history_dir is not None else None
        run = AsyncWorkflowRun(
            page,
            self._model_source(call, self.settings),
            text,
            variables=call.values,
            settings=self.settings,
            workflow=settings,
            fallback=call.fallback_source,
            fallback_name=call.fallback_name,
            history=history or self.workflow_history,
            now=clock,
        )
        # The action cache is the workflow's one replay store when there is one (with
        # replay=False, neither it nor the history is read).
        cache = self.cache if settings.replay else None
        run.flows_in_history = self.cache is None
        cached = AsyncCachedWorkflow(
            page, None, text, variables=call.values, settings=self.settings
        )
        cached.workflow_run = run
        body = functools.partial(self._on_page, page, functools.partial(cached.run, cache))
        return await self._run(call, body, lambda _, result: workflow_record(result))

    async def _on_page(self, page: AsyncPage, run: Callable[[], Awaitable[RunResult]]) -> RunResult:
        """A run's result on the caller's own page object when it ended on the tab it
        started on, else on the tab it moved to, wrapped."""
        __tracebackhide__ = True
        result = await run()
        if same_page(result.page, page) and isinstance(page, AsyncStagehandPage):
            result.page = page
        elif result.page is not None:
            result.page = self.wrap(result.page)
        return result
