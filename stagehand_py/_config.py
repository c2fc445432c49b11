"""Limits and timeouts of act(), extract() and observe(): arguments first, then environment.

Every field can be set on :class:`~stagehand_py.Stagehand` (for all calls) and most per call.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Iterable, Mapping
from typing import Literal

from pydantic import Field, ValidationError, field_validator

from ._emergency import EmergencySettings
from ._errors import ConfigurationError
from ._secret_scope import parse_patterns
from ._settings_model import SettingsModel
from .agent._settings import AgentSettings
from .llm._options import parse_max_tokens
from .workflow._settings import WorkflowSettings

SnapshotMode = Literal["dom", "aria"]
"""How the page is shown to the model: the DOM serializer, or Playwright's accessibility tree."""
SNAPSHOT_MODES: tuple[SnapshotMode, ...] = ("dom", "aria")

CacheMode = Literal["read-write", "read-only", "require"]
"""How act() uses the action cache: replay and write (default), replay only, or replay only
and fail with :class:`~stagehand_py.CacheMissError` where the model would be needed."""
CacheUrlMode = Literal["auto", "full", "path"]
"""What of the page URL keys a cache entry: ``auto`` (path and query on loopback origins,
the full URL elsewhere), ``full`` or ``path`` (path and query on every origin)."""

# Environment variables read by Settings.from_env: name -> (field, parser).
_ENV_SETTINGS: dict[str, tuple[str, Callable[[str], object]]] = {
    "STAGEHAND_PY_MAX_STEPS": ("max_steps", int),
    "STAGEHAND_PY_TIMEOUT": ("timeout_s", float),
    "STAGEHAND_PY_CACHE_MODE": ("cache_mode", str),
    "STAGEHAND_PY_CACHE_URL": ("cache_url", str),
    "STAGEHAND_PY_MAX_TOKENS": ("max_tokens", str),  # "1024" or "1024,extract=8000"
    "STAGEHAND_PY_TEMPERATURE": ("temperature", float),
    "STAGEHAND_PY_MAX_COST_USD": ("max_cost_usd", float),
    "STAGEHAND_PY_MAX_TOTAL_TOKENS": ("max_total_tokens", int),
}


class Settings(SettingsModel):
    """Tunable limits. Defaults suit ordinary pages; raise them for slow sites."""

    max_steps: int = Field(default=10, ge=1, description="actions one act() may take")
    timeout_s: float = Field(default=120.0, gt=0, description="wall-clock budget of one act()")
    action_timeout_ms: float = Field(
        default=5000, gt=0, description="Playwright timeout of one click/fill/..."
    )
    settle_timeout_ms: float = Field(
        default=3000, ge=0, description="longest wait for the page to settle after an action"
    )
    max_reasks: int = Field(
        default=2, ge=0, description="re-asks per turn when the model's reply is unusable"
    )
    follow_new_tabs: bool = Field(default=True, description="continue in a tab a click opened")
    verify: bool = Field(default=True, description="confirm 'completed' with a second call")
    max_prompt_chars: int = Field(
        default=24000, ge=1000, description="cap on page text in one verify/observe request"
    )
    secret_domains: tuple[str, ...] = Field(
        default=(),
        description="domain patterns every variable is bound to (default: the origin of the "
        "page a call starts on); Secret(domains=...) overrides it per variable",
    )
    agent: AgentSettings = Field(
        default_factory=AgentSettings, description="limits of page.agent() (max_steps, ...)"
    )
    snapshot: SnapshotMode = Field(
        default="dom", description='how the page is read: "dom" serializer or "aria" tree'
    )
    cache_mode: CacheMode = Field(
        default="read-write",
        description="action cache: read-write, read-only (never write) or require (a miss is "
        "a CacheMissError, the model is never called)",
    )
    self_heal: bool = Field(
        default=True, description="when a cached step no longer holds, ask the model to redo it"
    )
    cache_url: CacheUrlMode = Field(
        default="auto",
        description="URL part of cache keys: auto (path+query on loopback), full, or path",
    )
    max_section_chars: int = Field(
        default=6000,
        ge=0,
        description=(
            "page text one act() prompt packs, nearest chunks first (at least one chunk; "
            "0 means one chunk per prompt)"
        ),
    )
    instructions: str = Field(
        default="",
        description="your own instructions, added to the system prompt of every model request",
    )
    emergency: EmergencySettings = Field(
        default_factory=EmergencySettings,
        description="when workflows and the agent escalate to fallback_model and the DOM view",
    )
    workflow: WorkflowSettings = Field(
        default_factory=WorkflowSettings, description="limits of page.workflow() (view, ...)"
    )

    max_tokens: int | dict[str, int] | None = Field(
        default=None,
        description="answer budget of one model request: a number for every kind of request, "
        "or per kind ({'extract': 8000}; also '1024,extract=8000'); unset kinds keep their "
        "defaults (stagehand_py.llm.DEFAULT_MAX_TOKENS)",
    )
    temperature: float | None = Field(
        default=None,
        ge=0,
        le=2,
        description="sampling temperature (None: the server's default; Anthropic ignores it)",
    )

    max_cost_usd: float | None = Field(
        default=None,
        gt=0,
        description="hard cap on what this Stagehand's model requests may cost in US dollars "
        "(needs prices=); a request that would cross it is not sent: BudgetExceededError",
    )
    max_total_tokens: int | None = Field(
        default=None,
        ge=1,
        description="hard cap on the tokens (prompt and answer) this Stagehand's model "
        "requests may use; a request that would cross it is not sent: BudgetExceededError",
    )

    @field_validator("max_tokens", mode="before")
    @classmethod
    def _read_max_tokens(cls, value: object) -> object:
        return parse_max_tokens(value)

    @field_validator("secret_domains", mode="before")
    @classmethod
    def _domain_patterns(cls, value: object) -> object:
        if isinstance(value, str):
            raise ConfigurationError(
                "secret_domains takes a list of domain patterns, e.g. ['*.example.com']."
            )
        if isinstance(value, (list, tuple)):
            parse_patterns(value)  # a malformed pattern is named here
        return value

    @classmethod
    def from_env(cls, *, environ: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        """Defaults, then ``STAGEHAND_PY_MAX_STEPS``, ``STAGEHAND_PY_TIMEOUT``,
        ``STAGEHAND_PY_CACHE_MODE``, ``STAGEHAND_PY_CACHE_URL``, ``STAGEHAND_PY_MAX_TOKENS``,
        ``STAGEHAND_PY_TEMPERATURE``, ``STAGEHAND_PY_MAX_COST_USD`` and
        ``STAGEHAND_PY_MAX_TOTAL_TOKENS``, then ``overrides``.

        A variable that does not parse or validate is a :class:`ConfigurationError` naming it.
        """
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        for name, (field, parse) in _ENV_SETTINGS.items():
            raw = env.get(name, "").strip()
            if not raw:
                continue
            try:
                values[field] = getattr(cls.model_validate({field: parse(raw)}), field)
            except (ValueError, ValidationError) as exc:
                why = (
                    exc.errors(include_url=False)[0]["msg"]
                    if isinstance(exc, ValidationError)
                    else f"expected {'a whole number' if parse is int else 'a number'}"
                )
                described = cls.model_fields[field].description or field
                raise ConfigurationError(
                    f"The environment variable {name}={raw!r} is not a valid {field} "
                    f"({described}): {why}. Fix or unset it."
                ) from None
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls.checked(values)


def check_arguments(owner: str, given: Iterable[str], accepted: Iterable[str]) -> None:
    """Raise :class:`ConfigurationError` for any name in ``given`` that is not ``accepted``,
    suggesting the closest accepted name and listing them all (constructor typos)."""
    known = sorted(set(accepted))
    unknown = [name for name in given if name not in known]
    if not unknown:
        return
    hints = []
    for name in unknown:
        close = difflib.get_close_matches(name, known, n=1)
        hints.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    raise ConfigurationError(
        f"{owner}() got unknown argument(s) {', '.join(hints)}. It accepts: {', '.join(known)}."
    )
