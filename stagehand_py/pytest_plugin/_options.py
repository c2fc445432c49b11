"""The plugin's command-line options, each with the environment variable that stands in for it."""

from __future__ import annotations

import os
from typing import Any

import pytest

# The model of a suite that names none but has a provider's key (first key set wins): the
# provider's small, fast model, for a step or a check in a test.
DEFAULT_MODELS = (
    ("OPENAI_API_KEY", "openai/gpt-4.1-mini"),
    ("ANTHROPIC_API_KEY", "anthropic/claude-haiku-4-5"),
)

# (option, what it is, other keyword arguments of addoption); ``default=None`` throughout, so
# an absent option is told apart from one given, and its environment variable is read instead.
_OPTIONS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    (
        "--stagehand-model",
        "Model as provider/name, e.g. openai/gpt-4.1-mini (env STAGEHAND_PY_MODEL; with "
        "neither, nor a base URL: openai/gpt-4.1-mini when OPENAI_API_KEY is set, else "
        "anthropic/claude-haiku-4-5 when ANTHROPIC_API_KEY is).",
        {},
    ),
    (
        "--stagehand-base-url",
        "Base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1 "
        "(env STAGEHAND_PY_BASE_URL).",
        {},
    ),
    ("--stagehand-cache-dir", "Directory of the action cache (env STAGEHAND_PY_CACHE_DIR).", {}),
    (
        "--stagehand-history-dir",
        "Directory of the per-site workflow history (env STAGEHAND_PY_HISTORY_DIR).",
        {},
    ),
    (
        "--stagehand-cache-mode",
        "read-write (default): replay and record; read-only: replay, never write; "
        "require: a miss fails the test with CacheMissError and the model is never called "
        "(env STAGEHAND_PY_CACHE_MODE).",
        {"choices": ("read-write", "read-only", "require")},
    ),
    (
        "--stagehand-cache-url",
        "What of the page URL keys a cache entry: auto (default: path and query on "
        "127.0.0.1/localhost, whose port changes every run; the full URL elsewhere), full, or "
        "path (env STAGEHAND_PY_CACHE_URL).",
        {"choices": ("auto", "full", "path")},
    ),
    (
        "--stagehand-max-cost",
        "Hard cap, in US dollars, on what the model requests of the whole test session may "
        "cost, every Stagehand together (needs prices: the stagehand_prices fixture); a "
        "request that would cross it is not sent: BudgetExceededError "
        "(env STAGEHAND_PY_SESSION_MAX_COST_USD).",
        {},
    ),
    (
        "--stagehand-max-total-tokens",
        "Hard cap on the tokens (prompt and answer) the model requests of the whole test "
        "session may use (env STAGEHAND_PY_SESSION_MAX_TOTAL_TOKENS).",
        {},
    ),
    (
        "--stagehand-fake",
        "Use a scripted fake model (fixture stagehand_fake) instead of a real one "
        "(env STAGEHAND_PY_FAKE=1).",
        {"action": "store_true"},
    ),
    (
        "--stagehand-no-chromium",
        "Do not supply a Chromium to pytest-playwright when Playwright's own is missing "
        "(env STAGEHAND_PY_NO_CHROMIUM=1).",
        {"action": "store_true"},
    ),
)


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("stagehand", "stagehand_py: act/extract/observe/check in tests")
    for name, description, extra in _OPTIONS:
        group.addoption(name, default=None, help=description, **extra)


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def option(config: pytest.Config, name: str, env: str) -> str | None:
    """The option's value, else its environment variable's, else None."""
    value = config.getoption(name)
    return str(value) if value else os.environ.get(env) or None


def flag(config: pytest.Config, name: str, env: str) -> bool:
    """Whether the flag was given, or its environment variable is set to a true word."""
    return bool(config.getoption(name)) or _env_flag(env)


def session_model(config: pytest.Config) -> str | None:
    """The model named by the option or its variable; else, unless a base URL says a local
    server serves the suite (its model has a name of its own), the default for the first
    provider key set; else None (a call that needs a model then says what to set)."""
    named = option(config, "--stagehand-model", "STAGEHAND_PY_MODEL")
    if named or option(config, "--stagehand-base-url", "STAGEHAND_PY_BASE_URL"):
        return named
    return next((model for key, model in DEFAULT_MODELS if os.environ.get(key, "").strip()), None)
