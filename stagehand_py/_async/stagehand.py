"""AsyncStagehand: the configured SDK (model, limits, cache) that wraps Playwright pages."""

from __future__ import annotations

import inspect
import logging
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from playwright.async_api import Page as AsyncPage

from .._config import Settings, check_arguments
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
from .._inputs import check_instruction, check_open
from .._types import ActResult, ObserveResult
from .._variables import Variables
from ..agent import AgentControls, AgentResult, AgentSettings, TokenCounter
from ..agent._history import call_record
from ..cache import ActionCache
from ..llm._fake_support import check_llm_flavour
from ..llm._options import request_options
from ..llm._usage import PriceTable, Usage, UsageMeter
from ..workflow._history import WorkflowHistory
from ..workflow._result import WorkflowResult
from ..workflow._result import call_record as workflow_record
from .act import AsyncActRun
from .act_emergency import WithFallback
from .agent import AsyncAgentRun
from .agent_emergency import checked_fallback, fallback_name, fallback_source
from .agent_observe import same_page
from .agent_think import ApprovalCallback
from .cached_act import cached_act
from .cached_observe import cached_observe
from .executor import perform
from .extract import ExtractOutcome, extract
from .llm.base import AsyncLLM
from .llm.factory import create_llm, model_spec
from .observe import ObserveOutcome
from .page import AsyncStagehandPage
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
        self.usage = UsageMeter(prices=prices)

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
        variables: Mapping[str, object] | None = None,
        raise_on_failure: bool = True,
        **limits: Any,
    ) -> ActResult:
        """Run ``action`` on ``page``: an instruction, or an observe() result (no LLM call)."""
        if not isinstance(action, ObserveResult):
            check_instruction("act", action, required=True)
        check_open(page, "act")
        values = Variables(variables)
        settings = self._settings(limits)
        try:
            if isinstance(action, ObserveResult):
                result = await self._act_observed(page, action, values, settings)
            else:
                result = await cached_act(
                    page,
                    self._act_model(),
                    action,
                    variables=values,
                    settings=settings,
                    cache=self.cache,
                )
        except StagehandError as exc:
            instruction = action.description if isinstance(action, ObserveResult) else action
            self._record_failure("act", instruction, page, exc, values)
            raise
        if result.page is not None and result.page is not page:
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

    async def _act_observed(
        self, page: AsyncPage, observed: ObserveResult, values: Variables, settings: Settings
    ) -> ActResult:
        run = AsyncActRun(
            page, self._llm, observed.description, variables=values, settings=settings
        )
        try:
            performed = await perform(
                page,
                method=observed.method,
                selectors=observed.selectors or [observed.selector],
                frame=observed.frame,
                args=[values.substitute(a) for a in observed.arguments],
                timeout_ms=settings.action_timeout_ms,
                follow_new_tabs=settings.follow_new_tabs,
                settle_timeout_ms=settings.settle_timeout_ms,
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
                self._act_model(),
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
        variables: Mapping[str, object] | None = None,
        max_chars_per_chunk: int = 12000,
        max_tokens: int | dict[str, int] | None = None,
        temperature: float | None = None,
    ) -> ExtractOutcome:
        check_instruction("extract", instruction, required=False)
        check_open(page, "extract")
        values = Variables(variables)
        settings = self._settings(_model_limits(max_tokens, temperature))
        if settings.cache_mode == "require" and (schema is not None or instruction):
            raise CacheMissError(
                f"extract({values.redact(instruction or '')!r}) needs the model, and "
                "cache_mode='require' never calls it: extract() results are not cached (the "
                "data on a page changes). Use cache_mode='read-only' where extract() runs.",
                instruction=values.redact(instruction or ""),
                key="",
                reason="miss",
            )
        outcome = ExtractOutcome(value=None)  # filled as it goes: a failure still has its cost
        try:
            await extract(
                page,
                self.llm,
                instruction or "",  # with no schema either: the page text, no model call
                schema,
                selector=selector,
                max_chars_per_chunk=max_chars_per_chunk,
                max_retries=settings.max_reasks,
                redact=values.redact,
                settings=settings,
                outcome=outcome,
            )
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
        variables: Mapping[str, object] | None = None,
        max_tokens: int | dict[str, int] | None = None,
        temperature: float | None = None,
    ) -> ObserveOutcome:
        check_instruction("observe", instruction, required=False)
        check_open(page, "observe")
        values = Variables(variables)
        settings = self._settings(_model_limits(max_tokens, temperature))
        outcome = ObserveOutcome(results=[])  # filled as it goes: a failure still has its cost
        try:
            outcome = await cached_observe(
                page,
                lambda: self.llm,
                instruction,
                variables=values,
                settings=settings,
                cache=self.cache,
                outcome=outcome,
            )
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
        variables: Mapping[str, object] | None = None,
        approval: ApprovalCallback | None = None,
        controls: AgentControls | None = None,
        count_tokens: TokenCounter | None = None,
        **limits: Any,
    ) -> AgentResult:
        """Let the model drive ``page`` step by step until ``task`` is done (see
        :meth:`AsyncStagehandPage.agent`)."""
        check_instruction("agent", task, required=True)
        check_open(page, "agent")
        run = AsyncAgentRun(
            page,
            lambda: self.llm,
            task,
            variables=Variables(variables),
            settings=self._agent_settings(limits),
            approval=approval,
            controls=controls,
            prices=self.usage.prices,
            count_tokens=count_tokens,
            options=request_options(self.settings, "agent"),
            emergency=self.settings.emergency,
            fallback=fallback_source(self._fallback),
            fallback_name=fallback_name(self._fallback),
        )
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
        variables: Mapping[str, object] | None = None,
        fallback_model: str | AsyncLLM | None = None,
        history_dir: str | os.PathLike[str] | WorkflowHistory | None = None,
        sitemap: bool | None = None,
        clock: Callable[[], float] | None = None,
        **limits: Any,
    ) -> WorkflowResult:
        """Turn ``text`` into a checklist and work through it on ``page`` (see
        :meth:`AsyncStagehandPage.workflow`)."""
        check_instruction("workflow", text, required=True)
        check_open(page, "workflow")
        values = Variables(variables)
        settings = self.settings.workflow.updated(**limits)
        if sitemap is not None:
            settings = settings.updated(sitemap=sitemap)
        fallback = checked_fallback(fallback_model) if fallback_model is not None else None
        source = fallback or self._fallback
        history = open_history(history_dir) if history_dir is not None else None
        run = AsyncWorkflowRun(
            page,
            lambda: self.llm,
            text,
            variables=values,
            settings=self.settings,
            workflow=settings,
            fallback=fallback_source(source),
            fallback_name=fallback_name(source),
            history=history or self.workflow_history,
            now=clock,
        )
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

    def _act_model(self) -> WithFallback:
        """act()'s model with emergency mode's fallback (Stagehand(fallback_model=...))."""
        return WithFallback(
            lambda: self.llm, fallback_source(self._fallback), fallback_name(self._fallback)
        )

    def _agent_settings(self, limits: Mapping[str, Any]) -> AgentSettings:
        agent = self.settings.agent.updated(**limits)
        return agent if agent.snapshot else agent.updated(snapshot=self.settings.snapshot)

    def _settings(self, limits: Mapping[str, Any]) -> Settings:
        return self.settings.updated(**limits) if limits else self.settings


# True here, False in the generated sync twin (where `async def` becomes `def`).
async def _probe() -> None: ...


_ASYNC_API = inspect.iscoroutinefunction(_probe)


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
