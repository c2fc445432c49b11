"""Build a model client from a model string, arguments and the environment."""

from __future__ import annotations

import os

from ..._errors import ConfigurationError
from ...llm._model_string import (
    BASE_URL_ENV_VAR,
    MODEL_ENV_VAR,
    ModelSpec,
    no_model_configured,
    parse_model_string,
)
from .base import AsyncLLM

LLM_TIMEOUT_ENV_VAR = "STAGEHAND_PY_LLM_TIMEOUT"
DEFAULT_LLM_TIMEOUT_S = 60.0
ANTHROPIC_EXTRA_MISSING = (
    "Anthropic models need the optional anthropic package, which is not installed: "
    "pip install 'pystagehand[anthropic]'. OpenAI and OpenAI-compatible servers need nothing more."
)


def create_llm(
    model: str | None = None,
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    timeout: float | None = None,
    max_retries: int = 2,
    compat: bool | None = None,
) -> AsyncLLM:
    """A client for ``model`` (default: ``$STAGEHAND_PY_MODEL``), e.g. ``"openai/gpt-4.1-mini"``
    or ``"anthropic/claude-sonnet-4-5"``.

    Keys come from ``api_key`` or the provider's usual variable (``OPENAI_API_KEY``,
    ``ANTHROPIC_API_KEY``). With ``base_url`` (or ``$STAGEHAND_PY_BASE_URL``) an unprefixed
    model name is taken to be served by an OpenAI-compatible server (Ollama, vLLM, ...).
    ``timeout`` bounds each request (default: ``$STAGEHAND_PY_LLM_TIMEOUT``, else 60 s; a call's
    own deadline bounds it further), ``max_retries`` retries dropped connections, 429 and 5xx;
    ``compat`` forces the OpenAI client's handling of compatible servers on or off (default:
    ``$STAGEHAND_PY_COMPAT``, else on for every host but OpenAI's).
    """
    spec, base = model_spec(model, base_url)
    timeout = request_timeout() if timeout is None else timeout
    # Provider SDKs are imported on first use: they take seconds to import, and most
    # programs (and every test using a fake) need one of them or none.
    if spec.provider == "anthropic":
        try:
            from .anthropic import AsyncAnthropicLLM
        except ModuleNotFoundError as error:
            if error.name != "anthropic":
                raise
            raise ConfigurationError(
                f"{ANTHROPIC_EXTRA_MISSING} (model anthropic/{spec.name})"
            ) from None

        return AsyncAnthropicLLM(
            spec.name, api_key=api_key, base_url=base, timeout=timeout, max_retries=max_retries
        )
    from .openai import AsyncOpenAILLM

    return AsyncOpenAILLM(
        spec.name,
        api_key=api_key,
        base_url=base,
        timeout=timeout,
        max_retries=max_retries,
        compat=compat,
    )


def model_spec(model: str | None, base_url: str | None = None) -> tuple[ModelSpec, str | None]:
    """Which provider and model name ``model`` (or ``$STAGEHAND_PY_MODEL``) means, and the
    base URL to use; raises :class:`ConfigurationError` when there is none or it is malformed."""
    if model is not None and not isinstance(model, str):
        raise ConfigurationError(
            f"The model must be a string such as 'openai/gpt-4.1-mini', not {type(model).__name__}."
        )
    name = (model or os.environ.get(MODEL_ENV_VAR, "")).strip()
    base = base_url or os.environ.get(BASE_URL_ENV_VAR) or None
    if not name:
        raise no_model_configured()
    return parse_model_string(name, default_provider="openai" if base else None), base


def request_timeout() -> float:
    """The per-request timeout: ``$STAGEHAND_PY_LLM_TIMEOUT`` (seconds), else 60."""
    text = os.environ.get(LLM_TIMEOUT_ENV_VAR, "").strip()
    if not text:
        return DEFAULT_LLM_TIMEOUT_S
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not seconds > 0:
        raise ConfigurationError(
            f"{LLM_TIMEOUT_ENV_VAR}={text!r} is not a number of seconds above 0; "
            "set it to e.g. 300 for a slow local model, or unset it (default 60)."
        )
    return seconds
