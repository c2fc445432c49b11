"""Model strings: ``"openai/gpt-4.1-mini"``, ``"anthropic/claude-sonnet-4-5"`` or a bare name."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from .._errors import ConfigurationError

MODEL_ENV_VAR = "STAGEHAND_PY_MODEL"
BASE_URL_ENV_VAR = "STAGEHAND_PY_BASE_URL"

Provider = Literal["openai", "anthropic"]
PROVIDERS: tuple[Provider, ...] = ("openai", "anthropic")
# Bare names we can attribute without a prefix.
_BARE_PREFIXES: tuple[tuple[str, Provider], ...] = (
    ("gpt-", "openai"),
    ("chatgpt-", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("claude-", "anthropic"),
)


class ModelSpec(BaseModel):
    """Which provider to call, and the model name to send it."""

    model_config = ConfigDict(frozen=True)

    provider: Provider
    name: str

    def __str__(self) -> str:
        return f"{self.provider}/{self.name}"


def parse_model_string(model: str, *, default_provider: Provider | None = None) -> ModelSpec:
    """Split ``provider/name``; infer the provider of a bare ``gpt-*``/``claude-*`` name.

    ``default_provider`` covers names no rule attributes, such as a local server's
    ``"qwen2.5:0.5b"`` or ``"Qwen/Qwen2.5-7B"`` behind an OpenAI-compatible ``base_url``.
    """
    text = model.strip()
    if not text:
        raise ConfigurationError(
            "The model name is empty: pass e.g. model='openai/gpt-4.1-mini' or set "
            "STAGEHAND_PY_MODEL."
        )
    prefix, sep, rest = text.partition("/")
    if sep:
        if prefix.lower() in PROVIDERS and rest:
            return ModelSpec(provider=_as_provider(prefix.lower()), name=rest)
        if default_provider is not None:
            return ModelSpec(provider=default_provider, name=text)
        raise ConfigurationError(
            f"Unknown model provider {prefix!r} in {model!r}: use 'openai/<model>' (also for "
            f"OpenAI-compatible servers, with base_url=...) or 'anthropic/<model>'."
        )
    lowered = text.lower()
    for start, provider in _BARE_PREFIXES:
        if lowered.startswith(start):
            return ModelSpec(provider=provider, name=text)
    if default_provider is not None:
        return ModelSpec(provider=default_provider, name=text)
    raise ConfigurationError(
        f"Cannot tell which provider serves model {model!r}: write it as 'openai/{text}' or "
        f"'anthropic/{text}'."
    )


def _as_provider(name: str) -> Provider:
    return "anthropic" if name == "anthropic" else "openai"


def no_model_configured(call: str | None = None) -> ConfigurationError:
    """The error of a ``call`` (or of making a client) that needs a model when none is
    configured: it says which option or environment variable to set."""
    head = f"{call} needs a model, and none is configured." if call else "No model configured."
    return ConfigurationError(
        f"{head} Pass model='openai/gpt-4.1-mini' (or llm=<client>) or set "
        f"{MODEL_ENV_VAR}=openai/gpt-4.1-mini together with OPENAI_API_KEY "
        "(anthropic/<model> with ANTHROPIC_API_KEY; under pytest, --stagehand-model). For a "
        f"local OpenAI-compatible server set {MODEL_ENV_VAR}=openai/<model> and "
        f"{BASE_URL_ENV_VAR}=http://localhost:11434/v1 (no key needed)."
    )
