"""The state of an AsyncStagehand (model, settings, cache, history, values used per page) and
what its calls read from it: the session's model, a call's variables and settings."""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Mapping
from typing import Any

from playwright.async_api import Page as AsyncPage

from .._config import Settings, SnapshotMode, check_arguments
from .._errors import ConfigurationError
from .._history import CallRecord
from .._session_secrets import SecretRegistry
from .._variables import Variables
from ..agent import AgentSettings
from ..cache import ActionCache
from ..llm._caps import (
    Budget,
    Ledger,
    call_label,
    checked_caps,
    needs_prices,
    scope_cap,
    session_cap,
)
from ..llm._usage import PriceTable, UsageMeter
from ..workflow._history import WorkflowHistory, open_history
from .emergency import checked_fallback
from .llm.base import AsyncLLM
from .llm.factory import create_llm, model_spec
from .llm.source import user_model


class AsyncStagehandCore:
    """What an :class:`AsyncStagehand` holds (model, settings, cache, history, the values
    used per page); the path every call takes is in ``calls.py``, the verbs in
    ``stagehand.py``."""

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
            # A sync fake handed to AsyncStagehand (or the reverse), or an object that breaks
            # the model contract, fails here, clearly; one of the user's own is adapted.
            llm = user_model(llm, owner=f"{type(self).__name__}(llm=...)", wants_async=_ASYNC_API)
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
            ActionCache(directory, url_normalizer=url_normalizer)
            if directory is not None and directory != ""
            else None
        )
        if self.cache is None and self.settings.cache_mode == "require":
            raise ConfigurationError(
                "cache_mode='require' needs an action cache: pass cache_dir= (or set "
                "STAGEHAND_PY_CACHE_DIR, or pytest --stagehand-cache-dir)."
            )
        self.history: list[CallRecord] = []
        self._call_models: dict[str, AsyncLLM] = {}
        self.usage = UsageMeter(prices=prices)
        # What this Stagehand's requests spent, request by request, for its spending caps.
        self._ledger = Ledger()
        if self.settings.max_cost_usd is not None:
            known = llm.model if llm is not None else model
            needs_prices(f"{type(self).__name__}(max_cost_usd=...)", prices, known)
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

    def _call_budget(
        self, kind: str, said: str, max_cost_usd: object, max_total_tokens: object
    ) -> Budget:
        """The spending caps a call obeys: its own ``max_cost_usd=`` / ``max_total_tokens=``
        (checked here), this Stagehand's settings, the pytest session's."""
        cost, tokens = checked_caps(max_cost_usd, max_total_tokens)
        label = call_label(kind, said)
        if cost is not None:
            needs_prices(f"{label}: max_cost_usd", self.usage.prices)
        caps = [
            scope_cap("call", Ledger(), cost, tokens),
            scope_cap(
                "Stagehand",
                self._ledger,
                self.settings.max_cost_usd,
                self.settings.max_total_tokens,
            ),
        ]
        session = session_cap()
        if session is not None:
            caps.append(session)
        return Budget(
            caps,
            prices=self.usage.prices,
            call=label,
            image_tokens=self.settings.agent.image_tokens,
        )

    def _model_for(self, model: str) -> AsyncLLM:
        """A client for a per-call ``model=`` string, made once per string."""
        if model not in self._call_models:
            self._call_models[model] = create_llm(
                model, api_key=self._api_key, base_url=self._base_url
            )
        return self._call_models[model]

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
