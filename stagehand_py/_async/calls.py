"""The one path every public call takes: act, extract, observe, agent, workflow (and a verb
added later, which writes only its checks, its body and its record).

A verb checks its own arguments, then opens an :class:`AsyncCall` with ``_start``: the call's
variables (taken out of its options, so no frame keeps the raw values), its deadline (counted
from here), the model the caller chose and the fallback emergency mode switches to. It hands
``_run`` a body and how the body's outcome becomes a :class:`CallRecord`; ``_run`` does the
rest, the same for every verb: the trace group, the typed timeout, the failure record (which
redacts the error too), then the usage and history of a call that returned.

Every model a call asks comes from the call (``_model_source``, ``fallback_source``) wrapped in
its spending caps (``AsyncCall.metered``): each request is held against the call's, the
Stagehand's and the pytest session's caps before it is sent (see ``llm/accounting.py``).
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from playwright.async_api import Page as AsyncPage

from .._call_outcomes import needs_the_model, out_of_time
from .._config import Settings, check_arguments
from .._deadline_clock import Deadline
from .._errors import (
    BudgetExceededError,
    CacheMissError,
    ConfigurationError,
    LLMError,
    StagehandError,
)
from .._history import CallKind, CallRecord
from .._inputs import check_open, check_timeout, refuse_playwright_timeout
from .._spans import AttributeValue
from .._trace_names import call_group_name
from .._usage import Usage
from .._variables import Variables
from ..llm._caps import Budget
from ..prompts.user_instructions import combine_instructions
from ._deadline import DeadlineExceeded, run_blocking, run_with_deadline
from .browser.tracing import AsyncTraceGroup
from .emergency import WithFallback, checked_fallback, fallback_name, fallback_source
from .llm.accounting import AsyncMeteredLLM
from .llm.base import AsyncLLM
from .llm.source import call_llm_source, check_call_model, model_of, user_model
from .options import ModelOptions, ObserveOptions, VariablesOption
from .session import _ASYNC_API, AsyncStagehandCore, _model_limits, _snapshot_limit

R = TypeVar("R")
ModelSource = Callable[[], AsyncLLM]


class Spent(Protocol):
    """What a call has cost so far (an extract or observe outcome fills it as it goes)."""

    @property
    def usage(self) -> Usage: ...
    @property
    def llm_calls(self) -> int: ...
    @property
    def duration_s(self) -> float: ...


@dataclass
class ModelChoice:
    """The model a call asks instead of the session's (``model=`` / ``llm=``), and the
    instructions it adds to the session's own."""

    model: str | None = None
    llm: AsyncLLM | None = None
    instructions: str | None = None

    @classmethod
    def taken_from(cls, options: ModelOptions) -> ModelChoice:
        return cls(
            options.pop("model", None), options.pop("llm", None), options.pop("instructions", None)
        )


@dataclass
class AsyncCall:
    """One public call on its way: what was asked, where, with which values, until when."""

    kind: CallKind
    page: AsyncPage
    instruction: str | None  # as the caller said it: redacted wherever it is shown
    values: Variables
    deadline: Deadline  # agent() and workflow() runs end themselves: theirs is never reached
    choice: ModelChoice
    fallback: str | AsyncLLM | None  # the model emergency mode switches to
    # agent() and workflow() report every ending in their result: an error that escapes
    # them is the caller's mistake (an approver's bad answer), raised as it was, unrecorded.
    records_errors: bool = True
    spent: Spent | None = None  # set by a body whose outcome fills as it goes
    budget: Budget = field(default_factory=lambda: Budget([]))  # the caps in force
    view: str = ""  # the snapshot view the call reads the page in ("dom" or "aria")

    def metered(self, llm: AsyncLLM) -> AsyncLLM:
        """``llm`` under this call's spending caps (every model the call asks is)."""
        return AsyncMeteredLLM(llm, self.budget)

    async def in_time(self, body: Callable[[], Awaitable[R]]) -> R:
        """``body()``, ended at the call's deadline whatever it waits for (model, page)."""
        __tracebackhide__ = True
        return await run_with_deadline(body, self.deadline.remaining(), lambda: self.page)

    async def model_in_time(self, source: ModelSource) -> AsyncLLM:
        """The call's model, created within the call's deadline (the first client of a
        provider imports its SDK, which takes seconds)."""
        __tracebackhide__ = True
        return await run_blocking(source, self.deadline.remaining())

    async def model_if_any(self, source: ModelSource) -> ModelSource:
        """The model for a call that may not need one (a cache hit): created in time now,
        or, when none is configured, an error raised only where it is needed."""
        __tracebackhide__ = True
        try:
            llm = await self.model_in_time(source)
        except ConfigurationError:
            return source
        return lambda: llm

    def fall_back_to(self, fallback_model: object) -> None:
        """The call's own ``fallback_model=`` (checked) instead of the session's."""
        if fallback_model is not None:
            self.fallback = checked_fallback(fallback_model) or self.fallback

    def record(self, spent: Spent | None = None, **fields: Any) -> CallRecord:
        """This call's history record: its kind, instruction and page URL (redacted), what
        ``spent`` cost, and ``fields`` (the instruction too, as an outcome redacted it)."""
        redact = self.values.redact
        said: dict[str, Any] = {
            "instruction": redact(self.instruction or ""),
            "url": redact(self.page.url),
        }
        if spent is not None:
            said.update(llm_calls=spent.llm_calls, usage=spent.usage, duration_s=spent.duration_s)
        return CallRecord.model_validate({"kind": self.kind, **said, **fields})

    @property
    def fallback_source(self) -> Any:
        """What a run asks in emergency mode: the client, or one made on first need."""
        source = fallback_source(self.fallback)
        return None if source is None else lambda: self.metered(model_of(source))

    @property
    def fallback_name(self) -> str:
        return fallback_name(self.fallback)


def check_options(kind: CallKind, options: Mapping[str, object], accepted: Iterable[str]) -> None:
    """A reading verb's keyword options: Playwright's ``timeout=`` (milliseconds) is refused by
    name, then any other name not ``accepted``, with the closest accepted one."""
    __tracebackhide__ = True
    refuse_playwright_timeout(kind, options)
    check_arguments(kind, options, accepted)


class AsyncCallPath(AsyncStagehandCore):
    """``_start`` and ``_run``: the steps every public call shares (see the module's doc)."""

    def _start(
        self,
        kind: CallKind,
        page: AsyncPage,
        instruction: str | None,
        options: VariablesOption,
        settings: Settings,
        *,
        seconds: float = math.inf,
        choice: ModelChoice | None = None,
        records_errors: bool = True,
    ) -> AsyncCall:
        """The call, its deadline counted from now; ``options`` loses its ``variables``
        (the caller's frames share that dict: none of them keeps the raw values)."""
        __tracebackhide__ = True
        deadline = Deadline.after(seconds)
        values = self._call_variables(page, options.pop("variables", None), settings)
        caps = options.pop("max_cost_usd", None), options.pop("max_total_tokens", None)
        budget = self._call_budget(kind, values.redact(instruction or ""), *caps)
        return AsyncCall(
            kind,
            page,
            instruction,
            values,
            deadline,
            choice or ModelChoice(),
            self._fallback,
            records_errors,
            budget=budget,
            view=settings.snapshot,
        )

    async def _run(
        self,
        call: AsyncCall,
        body: Callable[[], Awaitable[R]],
        record: Callable[[AsyncCall, R], CallRecord],
    ) -> R:
        """``body()`` in the call's trace group; its outcome, recorded by ``record``. A call
        that raises is recorded as failed, with what it spent, and its error redacted."""
        __tracebackhide__ = True
        name = call_group_name(call.kind, call.instruction or "")
        said = {"stagehand.view": call.view, "gen_ai.request.model": self._model_name() or None}
        group = AsyncTraceGroup(
            call.page, name, call.values.redact, span_name=f"stagehand.{call.kind}", attributes=said
        )
        async with group:
            try:
                outcome = await body()
            except DeadlineExceeded as late:
                error = out_of_time(call.kind, call.deadline.seconds, late.note)
                group.span.set(self._record_failure(call, error))
                raise error from None
            except StagehandError as exc:
                # A spending cap (or require mode's refusal) ends even a run that reports its
                # other endings itself.
                if call.records_errors or isinstance(exc, (BudgetExceededError, CacheMissError)):
                    group.span.set(self._record_failure(call, exc))
                raise
            entry = record(call, outcome)
            self.usage.add(call.kind, entry.usage, model=self._model_name())
            self.history.append(entry)
            group.span.set(self._span_facts(entry))
            if not entry.success:  # a result that says it failed (the caller may raise it)
                code = getattr(outcome, "code", None)
                group.span.failed(code or f"{call.kind} failed", entry.message, code)
        return outcome

    def _span_facts(self, entry: CallRecord) -> dict[str, AttributeValue | None]:
        """What a call's span says of its record: outcome, cache, requests, tokens, cost."""
        return {
            "stagehand.success": entry.success,
            "stagehand.cache": entry.cache,
            "stagehand.llm_calls": entry.llm_calls,
            "gen_ai.usage.input_tokens": entry.usage.prompt_tokens,
            "gen_ai.usage.output_tokens": entry.usage.completion_tokens,
            "stagehand.cost_usd": self._priced(entry.usage),
        }

    def _priced(self, usage: Usage) -> float | None:
        prices, model = self.usage.prices, self._model_name()
        return prices.cost(model, usage) if prices is not None and model else None

    def _record_failure(
        self, call: AsyncCall, error: StagehandError
    ) -> dict[str, AttributeValue | None]:
        """History and usage of a call that raised: every model request it sent counts.
        Returns what the call's span says of it.

        The error itself leaves redacted: a message may name the page, whose URL can carry a
        value a GET form put there."""
        redact, spent = call.values.redact, call.spent
        error.args = tuple(redact(a) if isinstance(a, str) else a for a in error.args)
        usage, calls, took = Usage(), 0, 0.0
        if spent is not None:
            usage, calls, took = spent.usage, spent.llm_calls, spent.duration_s
        elif isinstance(error, LLMError):
            usage, calls = error.usage, error.usage.requests
        else:  # every request the call sent, as its caps counted them
            usage = call.budget.spent
            calls = usage.requests
        self.usage.add(call.kind, usage, model=self._model_name())
        message = redact(f"{type(error).__name__}: {error}")
        entry = call.record(
            success=False, message=message, llm_calls=calls, usage=usage, duration_s=took
        )
        self.history.append(entry)
        return self._span_facts(entry)

    def _refuse_in_require_mode(self, call: AsyncCall) -> None:
        """``cache_mode='require'`` never calls the model: a call that always needs it is a
        :class:`CacheMissError` before any request, recorded in the history."""
        __tracebackhide__ = True
        if self.settings.cache_mode != "require":
            return
        error = needs_the_model(call.kind, call.values.redact(call.instruction or ""))
        self._record_failure(call, error)
        raise error

    def _start_reading(
        self,
        kind: CallKind,
        page: AsyncPage,
        instruction: str | None,
        options: ObserveOptions,
    ) -> tuple[AsyncCall, Settings, ModelSource]:
        """The call, settings and model of a verb that reads the page (extract, observe) under
        its own ``timeout_s``, with per-call ``max_tokens``/``temperature``/``snapshot``."""
        __tracebackhide__ = True
        seconds = check_timeout(kind, options.pop("timeout_s", None)) or self.settings.timeout_s
        check_open(page, kind)
        choice = ModelChoice.taken_from(options)
        limits = {
            **_model_limits(options.pop("max_tokens", None), options.pop("temperature", None)),
            **_snapshot_limit(options.pop("snapshot", None)),
        }
        call = self._start(
            kind, page, instruction, options, self.settings, seconds=seconds, choice=choice
        )
        settings = self._settings(limits)
        call.view = settings.snapshot
        return call, settings, self._model_source(call, settings)

    def _model_source(self, call: AsyncCall, settings: Settings) -> ModelSource:
        """The model this call asks (its own ``model=``/``llm=`` or the session's), carrying
        the session's and the call's ``instructions``, redacted by the call's variables."""
        choice = call.choice
        check_call_model(
            f"{type(self).__name__}.{call.kind}",
            model=choice.model,
            llm=choice.llm,
            base_url=self._base_url,
            wants_async=_ASYNC_API,
        )
        said = call.values.redact(combine_instructions(settings.instructions, choice.instructions))
        # A user's model object is adapted to the contract first, then metered.
        own = None if choice.llm is None else user_model(choice.llm, owner="llm=...")
        return call_llm_source(
            lambda: call.metered(self.llm),
            lambda name: call.metered(self._model_for(name)),
            model=choice.model,
            llm=None if own is None else call.metered(own),
            instructions=said,
        )

    def _with_fallback(self, call: AsyncCall, source: ModelSource) -> WithFallback:
        """act()'s model with emergency mode's fallback (``fallback_model=``)."""
        return WithFallback(source, call.fallback_source, call.fallback_name)
