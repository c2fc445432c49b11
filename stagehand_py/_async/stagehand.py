"""AsyncStagehand: the configured SDK (model, limits, cache) that wraps Playwright pages."""

from __future__ import annotations

import functools
import inspect
import logging
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from playwright.async_api import Page as AsyncPage

from .._call_outcomes import out_of_time, refused_observed, timed_out_act
from .._config import Settings, SnapshotMode, check_arguments
from .._deadline_clock import Deadline
from .._errors import (
    ActError,
    ActTimeoutError,
    CacheMissError,
    ConfigurationError,
    ElementNotFoundError,
    LLMError,
    PageError,
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
from .._session_secrets import SecretRegistry
from .._trace_names import call_group_name
from .._types import ActResult, ObserveResult
from .._variables import MIN_CACHEABLE_CHARS, Variables
from ..agent import AgentControls, AgentResult, AgentSettings, TokenCounter
from ..agent._history import call_record
from ..cache import ActionCache
from ..llm._fake_support import check_llm_flavour
from ..llm._options import request_options
from ..llm._usage import PriceTable, Usage, UsageMeter
from ..prompts.user_instructions import combine_instructions
from ..workflow._history import WorkflowHistory
from ..workflow._result import WorkflowResult
from ..workflow._result import call_record as workflow_record
from ._deadline import DeadlineExceeded, run_blocking, run_with_deadline
from .act import AsyncActRun
from .act_emergency import WithFallback
from .agent import AsyncAgentRun
from .agent_emergency import checked_fallback, fallback_name, fallback_source
from .agent_observe import same_page
from .agent_think import ApprovalCallback
from .cached_act import cached_act
from .cached_observe import cached_observe
from .call_model import call_llm_source, check_call_model
from .executor import perform
from .extract import ExtractOutcome, extract
from .llm.base import AsyncLLM
from .llm.factory import create_llm, model_spec
from .locate import locate_selectors
from .observe import ObserveOutcome
from .page import AsyncStagehandPage
from .secret_guard import locator_refusal
from .tracing import AsyncTraceGroup
from .workflow import AsyncWorkflowRun, open_history

logger = logging.getLogger("stagehand_py")


class AsyncStagehand:
    """The SDK's entry point: which model to ask, with which limits, caching where.

    ``AsyncStagehand(model="openai/gpt-4.1-mini")`` reads keys and base URLs from the
    environment; pass ``llm=`` to use any object with the two-method model contract
    (for instance :class:`~stagehand_py.testing.AsyncScriptedLLM` in tests). The model is
    created on first use, so wrapping a page never fails for want of a key.

    Every :class:`~stagehand_py.Settings` field is accepted as a keyword too (``max_steps=``,
    ``cache_mode=``, ...); an unknown keyword is a :class:`ConfigurationError` listing them all.
    """

    _ARGUMENTS = (
        "model",
        "llm",
        "api_key",
        "base_url",
        "cache_dir",
        "url_normalizer",
        "settings",
        "prices",
        "fallback_model",
        "history_dir",
    )

    def __init__(
        self,
        model: str | None = None,
        *,
        llm: AsyncLLM | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        url_normalizer: Callable[[str], str] | None = None,
        settings: Settings | None = None,
        prices: PriceTable | None = None,
        fallback_model: str | AsyncLLM | None = None,
        history_dir: str | os.PathLike[str] | WorkflowHistory | None = None,
        **limits: Any,
    ) -> None:
        check_arguments(type(self).__name__, limits, (*self._ARGUMENTS, *Settings.model_fields))
        if llm is not None:
            # A sync fake handed to AsyncStagehand (or the reverse) fails here, clearly.
            check_llm_flavour(llm, owner=type(self).__name__, wants_async=_ASYNC_API)
        if llm is None and model is not None:
            model_spec(model, base_url)  # a malformed model string fails here, not mid-act
        self._fallback = checked_fallback(fallback_model)
        self.workflow_history = open_history(history_dir)
        self._llm = llm
        self._model = model
        self._api_key = api_key
        self._base_url = base_url
        self.settings = (settings or Settings.from_env()).updated(**limits)
        directory = cache_dir if cache_dir is not None else os.environ.get("STAGEHAND_PY_CACHE_DIR")
        self.cache: ActionCache | None = (
            ActionCache(Path(directory), url_normalizer=url_normalizer) if directory else None
        )
        if self.cache is None and self.settings.cache_mode == "require":
            raise ConfigurationError(
                "cache_mode='require' needs an action cache: pass cache_dir= (or set "
                "STAGEHAND_PY_CACHE_DIR, or pytest --stagehand-cache-dir)."
            )
        self.history: list[CallRecord] = []
        self._call_models: dict[str, AsyncLLM] = {}
        self.usage = UsageMeter(prices=prices)
        # Values used per page: later calls on a page keep redacting them (session-wide).
        self._secrets = SecretRegistry()

    @property
    def llm(self) -> AsyncLLM:
        """The model client (created from ``model``/env on first use)."""
        if self._llm is None:
            self._llm = create_llm(self._model, api_key=self._api_key, base_url=self._base_url)
        return self._llm

    def _model_name(self) -> str:
        return self._llm.model if self._llm is not None else (self._model or "")

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

    def _call_variables(
        self,
        page: AsyncPage,
        variables: Mapping[str, object] | Variables | None,
        settings: Settings,
    ) -> Variables:
        """The call's variables: remembered for the page (later calls keep redacting them),
        redacting what earlier calls used there, bound to where they may be typed."""
        values = self._secrets.for_call(page, variables)
        return values.bound_to(page.url, settings.secret_domains)

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
            return await self._act_observed(page, action, values, settings, source)
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

    async def _act_observed(
        self,
        page: AsyncPage,
        observed: ObserveResult,
        values: Variables,
        settings: Settings,
        source: Callable[[], AsyncLLM],
    ) -> ActResult:
        run = AsyncActRun(page, None, observed.description, variables=values, settings=settings)
        try:
            located = await locate_selectors(
                page, observed.frame, observed.selectors or [observed.selector]
            )
            refused = await locator_refusal(located[0], observed.method, observed.arguments, values)
            if refused is not None:
                return refused_observed(page, observed, values, refused)
            performed = await perform(
                page,
                method=observed.method,
                selectors=observed.selectors or [observed.selector],
                frame=observed.frame,
                args=[values.substitute(a) for a in observed.arguments],
                timeout_ms=settings.action_timeout_ms,
                follow_new_tabs=settings.follow_new_tabs,
                settle_timeout_ms=settings.settle_timeout_ms,
                located=located,
            )
        except (ElementNotFoundError, PageError) as exc:
            reason = values.redact(str(exc).splitlines()[0])
            if settings.cache_mode == "require" or not settings.self_heal:
                why = "self_heal=False" if settings.self_heal else "cache_mode='require'"
                raise CacheMissError(
                    f"act(observed {values.redact(observed.description)!r}): the element no "
                    f"longer resolves ({reason}) and {why} forbids asking the model to find it.",
                    instruction=values.redact(observed.description),
                    key="",
                    reason="stale",
                ) from None
            logger.info("stagehand_py: observed element is stale (%s); healing with act()", reason)
            healed = await AsyncActRun(
                page,
                source,
                _instruction_for(observed),
                variables=values,
                settings=settings,
            ).run()
            healed.healed = True
            healed.message = f"The observed element no longer resolved ({reason}); healed: " + (
                healed.message
            )
            return healed
        return run.observed_result(observed, performed)

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

    def _record_failure(
        self,
        kind: Literal["act", "extract", "observe"],
        instruction: str | None,
        page: AsyncPage,
        error: StagehandError,
        values: Variables,
        spent: ExtractOutcome | ObserveOutcome | None = None,
    ) -> None:
        """History and usage of a call that raised: every model request it sent counts."""
        usage = spent.usage if spent is not None else Usage()
        calls = spent.llm_calls if spent is not None else 0
        if spent is None and isinstance(error, LLMError):
            usage, calls = error.usage, error.usage.requests
        self.usage.add(kind, usage, model=self._model_name())
        self.history.append(
            CallRecord(
                kind=kind,
                instruction=values.redact(instruction or ""),
                success=False,
                message=values.redact(f"{type(error).__name__}: {error}"),
                url=values.redact(page.url),
                llm_calls=calls,
                usage=usage,
                duration_s=spent.duration_s if spent is not None else 0.0,
            )
        )

    def _call_llm(
        self,
        kind: str,
        values: Variables,
        settings: Settings,
        model: str | None,
        llm: AsyncLLM | None,
        instructions: str | None,
    ) -> Callable[[], AsyncLLM]:
        """The model this call asks (its own ``model=``/``llm=`` or the session's), carrying
        the session's and the call's ``instructions``, redacted by the call's variables."""
        owner = f"{type(self).__name__}.{kind}"
        check_call_model(
            owner, model=model, llm=llm, base_url=self._base_url, wants_async=_ASYNC_API
        )
        said = values.redact(combine_instructions(settings.instructions, instructions))
        return call_llm_source(
            lambda: self.llm, self._model_for, model=model, llm=llm, instructions=said
        )

    def _model_for(self, model: str) -> AsyncLLM:
        """A client for a per-call ``model=`` string, made once per string."""
        if model not in self._call_models:
            self._call_models[model] = create_llm(
                model, api_key=self._api_key, base_url=self._base_url
            )
        return self._call_models[model]

    def _with_fallback(self, source: Callable[[], AsyncLLM]) -> WithFallback:
        """act()'s model with emergency mode's fallback (Stagehand(fallback_model=...))."""
        return WithFallback(source, fallback_source(self._fallback), fallback_name(self._fallback))

    def _agent_settings(
        self, limits: Mapping[str, Any], snapshot: SnapshotMode | None
    ) -> AgentSettings:
        """The agent's limits for this call; its view: the call's ``snapshot=``, else
        ``AgentSettings.snapshot``, else ``Settings.snapshot``."""
        agent = self.settings.agent.updated(**limits)
        if snapshot is not None:
            return agent.updated(snapshot=self._snapshot_mode(snapshot))
        return agent if agent.snapshot else agent.updated(snapshot=self.settings.snapshot)

    def _settings(self, limits: Mapping[str, Any]) -> Settings:
        return self.settings.updated(**limits) if limits else self.settings

    def _snapshot_mode(self, snapshot: SnapshotMode | None) -> SnapshotMode:
        """The call's ``snapshot=`` (checked), else ``Settings.snapshot``."""
        return self._settings(_snapshot_limit(snapshot)).snapshot

    async def _model_in_time(self, source: Callable[[], AsyncLLM], deadline: Deadline) -> AsyncLLM:
        """The call's model, created within the call's deadline (the first client of a
        provider imports its SDK, which takes seconds)."""
        return await run_blocking(source, deadline.remaining())

    async def _model_source(
        self, source: Callable[[], AsyncLLM], deadline: Deadline
    ) -> Callable[[], AsyncLLM]:
        """The model for a call that may not need one (a cache hit): created in time now,
        or, when none is configured, an error raised only where it is needed."""
        try:
            llm = await self._model_in_time(source, deadline)
        except ConfigurationError:
            return source
        return lambda: llm


# True here, False in the generated sync twin (where `async def` becomes `def`).
async def _probe() -> None: ...


_ASYNC_API = inspect.iscoroutinefunction(_probe)


def _snapshot_limit(snapshot: SnapshotMode | None) -> dict[str, Any]:
    """A call's ``snapshot=`` as a settings override (none when not given)."""
    return {} if snapshot is None else {"snapshot": snapshot}


def _model_limits(max_tokens: object, temperature: object) -> dict[str, Any]:
    """Per-call model settings that were given (None leaves the Stagehand's own)."""
    given = {"max_tokens": max_tokens, "temperature": temperature}
    return {name: value for name, value in given.items() if value is not None}


def _instruction_for(observed: ObserveResult) -> str:
    """An act() instruction that redoes what an observed result meant to do."""
    if observed.arguments:
        args = ", ".join(observed.arguments)
        return f"{observed.method} {args} on: {observed.description}"
    return f"{observed.method}: {observed.description}"
