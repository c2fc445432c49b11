"""The state of an AsyncStagehand (model, settings, cache, history, values used per page) and
the helpers its public calls share: which model a call asks, its variables, its records."""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from playwright.async_api import Page as AsyncPage

from .._config import Settings, SnapshotMode, check_arguments
from .._deadline_clock import Deadline
from .._errors import (
    CacheMissError,
    ConfigurationError,
    LLMError,
    StagehandError,
)
from .._history import CallRecord
from .._session_secrets import SecretRegistry
from .._variables import Variables
from ..agent import AgentSettings
from ..cache import ActionCache
from ..llm._fake_support import check_llm_flavour
from ..llm._usage import PriceTable, Usage, UsageMeter
from ..prompts.user_instructions import combine_instructions
from ..workflow._history import WorkflowHistory
from ._deadline import run_blocking
from .emergency import WithFallback, checked_fallback, fallback_name, fallback_source
from .extract.read import ExtractOutcome
from .llm.base import AsyncLLM
from .llm.factory import create_llm, model_spec
from .llm.source import call_llm_source, check_call_model
from .observe.ask import ObserveOutcome
from .workflow.run import open_history


class AsyncStagehandCore:
    """What an :class:`AsyncStagehand` holds (model, settings, cache, history, the values
    used per page) and the helpers its public calls share; the calls are in ``stagehand.py``."""

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

    def _refuse_in_require_mode(
        self,
        kind: Literal["agent", "workflow"],
        instruction: str,
        page: AsyncPage,
        values: Variables,
        what_to_do: str,
    ) -> None:
        """``cache_mode='require'`` never calls the model: a call that always needs it is a
        :class:`CacheMissError` before any request, recorded in the history."""
        __tracebackhide__ = True
        if self.settings.cache_mode != "require":
            return
        said = values.redact(instruction)
        error = CacheMissError(
            f"{kind}({said!r}) needs the model, and cache_mode='require' never calls it: "
            + what_to_do,
            instruction=said,
            key="",
            reason="miss",
        )
        self._record_failure(kind, instruction, page, error, values)
        raise error

    def _record_failure(
        self,
        kind: Literal["act", "extract", "observe", "agent", "workflow"],
        instruction: str | None,
        page: AsyncPage,
        error: StagehandError,
        values: Variables,
        spent: ExtractOutcome | ObserveOutcome | None = None,
    ) -> None:
        """History and usage of a call that raised: every model request it sent counts.

        The error itself leaves redacted: a message may name the page, whose URL can carry a
        value a GET form put there."""
        error.args = tuple(values.redact(a) if isinstance(a, str) else a for a in error.args)
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
