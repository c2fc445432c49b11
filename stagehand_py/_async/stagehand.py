"""AsyncStagehand: the configured SDK (model, limits, cache) that wraps Playwright pages."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from playwright.async_api import Page as AsyncPage

from .._config import Settings
from .._deadline_clock import Deadline
from .._errors import (
    ActError,
    ActTimeoutError,
    ElementNotFoundError,
    PageError,
    StagehandError,
    StagehandTimeoutError,
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
from .._types import ActResult, ObserveResult
from .._variables import MIN_CACHEABLE_CHARS, Variables
from ..cache import ActionCache
from ..llm._usage import PriceTable, UsageMeter
from ._deadline import DeadlineExceeded, run_blocking, run_with_deadline
from .act import AsyncActRun
from .cached_act import cached_act
from .executor import perform
from .extract import ExtractOutcome, extract
from .llm.base import AsyncLLM
from .llm.factory import create_llm, model_spec
from .locate import locate_selectors
from .observe import ObserveOutcome, observe
from .page import AsyncStagehandPage
from .secret_guard import locator_refusal

logger = logging.getLogger("stagehand_py")


class AsyncStagehand:
    """The SDK's entry point: which model to ask, with which limits, caching where.

    ``AsyncStagehand(model="openai/gpt-4.1-mini")`` reads keys and base URLs from the
    environment; pass ``llm=`` to use any object with the two-method model contract
    (for instance :class:`~stagehand_py.testing.AsyncScriptedLLM` in tests). The model is
    created on first use, so wrapping a page never fails for want of a key.
    """

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
        **limits: Any,
    ) -> None:
        if llm is None and model is not None:
            model_spec(model, base_url)  # a malformed model string fails here, not mid-act
        self._llm = llm
        self._model = model
        self._api_key = api_key
        self._base_url = base_url
        self.settings = (settings or Settings.from_env()).updated(**limits)
        directory = cache_dir if cache_dir is not None else os.environ.get("STAGEHAND_PY_CACHE_DIR")
        self.cache: ActionCache | None = (
            ActionCache(Path(directory), url_normalizer=url_normalizer) if directory else None
        )
        self.history: list[CallRecord] = []
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
        **limits: Any,
    ) -> ActResult:
        """Run ``action`` on ``page``: an instruction, or an observe() result (no LLM call)."""
        check_page_type(page, AsyncPage, type(self).__name__, "act")
        check_action(action)
        check_open(page, "act")
        settings = self._settings(limits)
        try:
            values = self._call_variables(page, variables, settings)
        finally:
            del variables  # raw values stay out of this frame's locals (tracebacks print them)
        if isinstance(action, ObserveResult):
            check_observed(action, values)
        else:
            check_placeholders("act", action, values)
        try:
            result = await run_with_deadline(
                lambda: self._act_once(page, action, values, settings),
                settings.timeout_s,
                lambda: page,
            )
        except DeadlineExceeded as late:
            result = _timed_out(page, action, values, settings, late.note)
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
        self, page: AsyncPage, action: str | ObserveResult, values: Variables, settings: Settings
    ) -> ActResult:
        if isinstance(action, ObserveResult):
            return await self._act_observed(page, action, values, settings)
        cache, notes = self.cache, []
        short = values.too_short_to_cache()
        if cache is not None and short:
            cache = None
            notes.append(
                f"Not cached: the value of {', '.join(short)} is shorter than "
                f"{MIN_CACHEABLE_CHARS} characters, too short to keep out of a cache file."
            )
        result = await cached_act(
            page, lambda: self.llm, action, variables=values, settings=settings, cache=cache
        )
        result.notes.extend(notes)
        return result

    async def _act_observed(
        self, page: AsyncPage, observed: ObserveResult, values: Variables, settings: Settings
    ) -> ActResult:
        run = AsyncActRun(
            page, self._llm, observed.description, variables=values, settings=settings
        )
        try:
            located = await locate_selectors(
                page, observed.frame, observed.selectors or [observed.selector]
            )
            refused = await locator_refusal(located[0], observed.method, observed.arguments, values)
            if refused is not None:
                return _refused(page, observed, values, refused)
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
            logger.info("stagehand_py: observed element is stale (%s); healing with act()", reason)
            healed = await AsyncActRun(
                page,
                lambda: self.llm,
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
    ) -> ExtractOutcome:
        check_page_type(page, AsyncPage, type(self).__name__, "extract")
        check_instruction("extract", instruction, required=False)
        check_schema(schema)
        seconds = check_timeout("extract", timeout_s) or self.settings.timeout_s
        check_open(page, "extract")
        try:
            values = self._call_variables(page, variables, self.settings)
        finally:
            del variables  # raw values stay out of this frame's locals (tracebacks print them)
        deadline = Deadline.after(seconds)
        try:
            llm = await self._model_in_time(deadline)
            outcome = await run_with_deadline(
                lambda: extract(
                    page,
                    llm,
                    instruction or "",  # with no schema either: the page text, no model call
                    schema,
                    selector=selector,
                    max_chars_per_chunk=max_chars_per_chunk,
                    max_retries=self.settings.max_reasks,
                    redact=values.redact,
                    deadline=deadline,
                ),
                deadline.remaining(),
                lambda: page,
            )
        except DeadlineExceeded as late:
            error = _out_of_time("extract", seconds, late.note)
            self._record_failure("extract", instruction, page, error, values)
            raise error from None
        except StagehandError as exc:
            self._record_failure("extract", instruction, page, exc, values)
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
    ) -> ObserveOutcome:
        check_page_type(page, AsyncPage, type(self).__name__, "observe")
        check_instruction("observe", instruction, required=False)
        seconds = check_timeout("observe", timeout_s) or self.settings.timeout_s
        check_open(page, "observe")
        try:
            values = self._call_variables(page, variables, self.settings)
        finally:
            del variables  # raw values stay out of this frame's locals (tracebacks print them)
        deadline = Deadline.after(seconds)
        try:
            llm = await self._model_in_time(deadline)
            outcome = await run_with_deadline(
                lambda: observe(
                    page,
                    llm,
                    instruction,
                    variables=values,
                    settings=self.settings,
                    deadline=deadline,
                ),
                deadline.remaining(),
                lambda: page,
            )
        except DeadlineExceeded as late:
            error = _out_of_time("observe", seconds, late.note)
            self._record_failure("observe", instruction, page, error, values)
            raise error from None
        except StagehandError as exc:
            self._record_failure("observe", instruction, page, exc, values)
            raise
        self.usage.add("observe", outcome.usage, model=self._model_name())
        self.history.append(
            CallRecord(
                kind="observe",
                instruction=values.redact(instruction or ""),
                success=True,
                url=values.redact(page.url),
                found=[f"{r.description} ({r.method} {r.selector})" for r in outcome.results],
                llm_calls=outcome.llm_calls,
                usage=outcome.usage,
                duration_s=outcome.duration_s,
            )
        )
        return outcome

    def _record_failure(
        self,
        kind: Literal["extract", "observe"],
        instruction: str | None,
        page: AsyncPage,
        error: StagehandError,
        values: Variables,
    ) -> None:
        self.history.append(
            CallRecord(
                kind=kind,
                instruction=values.redact(instruction or ""),
                success=False,
                message=values.redact(f"{type(error).__name__}: {error}"),
                url=values.redact(page.url),
            )
        )

    def _settings(self, limits: Mapping[str, Any]) -> Settings:
        return self.settings.updated(**limits) if limits else self.settings

    async def _model_in_time(self, deadline: Deadline) -> AsyncLLM:
        """The model, created within the call's deadline (the first one imports the
        provider's SDK, which takes seconds)."""
        if self._llm is not None:
            return self._llm
        return await run_blocking(lambda: self.llm, deadline.remaining())


def _out_of_time(call: str, seconds: float, note: str) -> StagehandTimeoutError:
    return StagehandTimeoutError(
        f"{call}() ran out of time after {seconds:g} s. "
        + (f"{note} " if note else "")
        + "Raise timeout_s if the page or the model is slow."
    )


def _timed_out(
    page: AsyncPage,
    action: str | ObserveResult,
    values: Variables,
    settings: Settings,
    note: str,
) -> ActResult:
    """The result of an act the deadline ended outside the act loop (replay, observed)."""
    instruction = action.description if isinstance(action, ObserveResult) else action
    message = f"act() ran out of time after {settings.timeout_s:g} s. " + (
        f"{note} " if note else ""
    )
    return ActResult(
        success=False,
        message=values.redact(message + "Raise timeout_s if the page is slow."),
        instruction=values.redact(instruction),
        duration_s=settings.timeout_s,
        timed_out=True,
        code="TIMEOUT",
        page=page,
    )


def _refused(page: AsyncPage, observed: ObserveResult, values: Variables, reason: str) -> ActResult:
    """An observed action whose variable may not go into its element: nothing was run."""
    return ActResult(
        success=False,
        message=values.redact(f"The observed action was not run. {reason}"),
        instruction=values.redact(observed.description),
        page=page,
    )


def _instruction_for(observed: ObserveResult) -> str:
    """An act() instruction that redoes what an observed result meant to do."""
    if observed.arguments:
        args = ", ".join(observed.arguments)
        return f"{observed.method} {args} on: {observed.description}"
    return f"{observed.method}: {observed.description}"
