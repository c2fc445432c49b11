"""Every exception stagehand_py raises on purpose.

The tree::

    StagehandError
    ├── ConfigurationError            bad or missing settings; the message names what to set
    │   ├── BrowserNotFoundError      no usable Chromium executable was found
    │   └── MissingAPIKeyError        a provider needs a key that is not set
    ├── PageError                     the page could not be read or acted on
    │   ├── SerializationError        the browser-side serializer failed
    │   └── ElementNotFoundError      no stored selector resolved to the element
    ├── LLMError                      anything between us and the model; ``.usage`` is what the
    │   │                             requests behind it cost (failed requests counted too)
    │   ├── ProviderError             the provider failed for good (after our retries)
    │   ├── IncompleteOutputError     the answer was cut off by max_tokens, twice
    │   ├── RealRequestsBlockedError  a real model request while they are switched off
    │   ├── ScriptExhaustedError      a scripted fake LLM ran out of answers
    │   └── StructuredOutputError     the answer never validated; carries the last answer
    ├── BudgetExceededError           a model request would cross a spending cap
    │                                 (max_cost_usd, max_total_tokens): it was not sent
    ├── ActError                      an act() did not reach its goal; carries the ActResult
    │   │                             and a ``code`` (see ``ActErrorCode``)
    │   └── ActTimeoutError           ... because its wall-clock timeout ran out (TIMEOUT);
    │                                 also a StagehandTimeoutError
    ├── StagehandTimeoutError         a call ran out of its ``timeout_s`` (extract, observe);
    │                                 also a builtin TimeoutError
    ├── ExtractError                  an extract() did not produce valid data
    ├── CheckError                    a check()'s statement does not hold; carries the
    │                                 CheckResult; also an AssertionError (pytest: a failure)
    └── CacheError                    the action cache could not be used as asked
        └── CacheMissError            cache_mode="require" (or self_heal=False) and the cache
                                      could not answer without the model

``ActError.code`` (also ``ActResult.code``) says why an act stopped, in both snapshot modes:

    TARGET_NOT_FOUND      the model said the target is not on the page (it did not guess)
    VLIST_NOT_REACHED     a scrollable list was searched and the target never came into view
    CANVAS_UNSUPPORTED    the target is drawn inside a <canvas>, which cannot be acted on
    ALL_SECTIONS_SKIPPED  the model skipped every section of the page
    GOAL_NOT_REACHED      actions ran, then no section offered a next step and verify said no
    NO_USABLE_REPLY       the model's replies stayed unusable after the re-asks
    MAX_STEPS             max_steps actions ran without reaching the goal
    TIMEOUT               timeout_s ran out
    PAGE_EMPTY            the page shows nothing to act on
    ELEMENT_REPLACED      the page kept replacing the element the model chose before it could
                          be used (looked again max_reasks + 1 times)
    MODEL_ERROR           the model request failed for good (the provider's error, a reply that
                          never validated, an answer cut off by max_tokens); the message says which

Catch ``StagehandError`` to handle them all. Messages say what went wrong and what
to do about it; none of them ever contains the value of a secret variable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._usage import Usage

if TYPE_CHECKING:
    from ._types import ActErrorCode, ActResult
    from .check import CheckResult


class StagehandError(Exception):
    """Base class of every error raised by stagehand_py."""


class ConfigurationError(StagehandError):
    """A setting is missing or invalid."""


class BrowserNotFoundError(ConfigurationError):
    """No Chromium executable could be found or launched."""


class MissingAPIKeyError(ConfigurationError):
    """A model provider needs an API key that was neither passed nor set in the environment."""

    def __init__(self, provider: str, env_var: str) -> None:
        self.provider = provider
        self.env_var = env_var
        super().__init__(
            f"No API key for {provider}: pass api_key=... or set the environment variable "
            f"{env_var}."
        )


class PageError(StagehandError):
    """The page could not be read or acted on."""


class SerializationError(PageError):
    """The browser-side serializer failed or returned something unreadable."""


class ElementNotFoundError(PageError):
    """None of an element's stored selectors resolved to exactly one element."""

    def __init__(self, message: str, selectors: list[str] | None = None) -> None:
        self.selectors = list(selectors or [])
        super().__init__(message)


class LLMError(StagehandError):
    """Something went wrong between stagehand_py and the language model.

    ``usage`` is what the model requests behind the error cost: every request sent counts,
    failed ones (retries, refused strategies, cut-off answers) included.
    """

    _usage: Usage | None = None

    @property
    def usage(self) -> Usage:
        return self._usage if self._usage is not None else Usage()

    @usage.setter
    def usage(self, value: Usage) -> None:
        self._usage = value


class ProviderError(LLMError):
    """A provider request failed for good (after the SDK's own retries)."""

    def __init__(self, model: str, endpoint: str, reason: str) -> None:
        self.model = model
        self.endpoint = endpoint
        self.reason = reason
        super().__init__(f"Model request failed: model={model!r} endpoint={endpoint!r}: {reason}")


class IncompleteOutputError(LLMError):
    """The model's answer was cut off by the token limit (OpenAI ``finish_reason: "length"``,
    Anthropic ``stop_reason: "max_tokens"``), and again when asked once more with a larger
    budget. ``max_tokens`` is the last budget tried."""

    def __init__(self, message: str, max_tokens: int | None = None) -> None:
        self.max_tokens = max_tokens
        super().__init__(message)


class RealRequestsBlockedError(LLMError):
    """A real (non-loopback) model request was made while real requests are switched off."""


class ScriptExhaustedError(LLMError):
    """A scripted fake LLM was asked for more answers than it was given."""


class StructuredOutputError(LLMError):
    """The model's answer never validated against the schema, re-asks included."""

    def __init__(self, message: str, last_answer: Any = None, errors: str = "") -> None:
        self.last_answer = last_answer
        self.errors = errors
        super().__init__(message)


class BudgetExceededError(StagehandError):
    """A model request would have taken spending past a cap, so it was not sent.

    ``cap`` is the setting (``"max_cost_usd"`` or ``"max_total_tokens"``) and ``scope`` whose
    cap it is (``"call"``, ``"Stagehand"`` or ``"pytest session"``); ``limit``, ``spent`` (by
    that scope's requests, finished and in flight) and ``request`` (the refused request's
    estimate) are in the cap's unit: US dollars or tokens. ``call`` names the call that hit
    it (redacted). ``usage`` is what earlier requests of the same model call cost (a re-ask
    or a retry can be the one refused); nothing of the refused request was sent.
    """

    def __init__(
        self,
        message: str,
        *,
        cap: str,
        scope: str,
        limit: float,
        spent: float,
        request: float,
        call: str,
        usage: Usage | None = None,
    ) -> None:
        self.cap = cap
        self.scope = scope
        self.limit = limit
        self.spent = spent
        self.request = request
        self.call = call
        self.usage = usage if usage is not None else Usage()
        super().__init__(message)


class ActError(StagehandError):
    """An act() did not reach its goal. ``result`` holds what was done and why it stopped;
    ``code`` is the machine-readable reason (an :data:`ActErrorCode`, ``None`` if unknown)."""

    def __init__(self, message: str, result: ActResult) -> None:
        self.result = result
        self.code: ActErrorCode | None = result.code
        # Facts of the failure for code (VLIST_NOT_REACHED: the list search's fields).
        self.details: dict[str, Any] | None = result.details
        super().__init__(message)

    def __str__(self) -> str:
        """The message, led by its code (``TARGET_NOT_FOUND: ...``) when it has one."""
        message = super().__str__()
        if self.code is None or message.startswith(f"{self.code}:"):
            return message
        return f"{self.code}: {message}"


class StagehandTimeoutError(StagehandError, TimeoutError):
    """A call ran out of its ``timeout_s`` (its model requests and page-side work included).

    Also a builtin :class:`TimeoutError`, so ``except TimeoutError`` catches it."""


class ActTimeoutError(ActError, StagehandTimeoutError):
    """An act() ran out of its wall-clock timeout."""


class ExtractError(StagehandError):
    """An extract() did not produce data that validates. ``last_attempt`` holds the last try."""

    def __init__(self, message: str, last_attempt: Any = None) -> None:
        self.last_attempt = last_attempt
        super().__init__(message)


class CheckError(StagehandError, AssertionError):
    """A check()'s statement does not hold on the page. ``result`` is the
    :class:`~stagehand_py.CheckResult` (``passed`` False) with the model's reason and evidence,
    or, on a replay of compiled assertions that may not ask the model, Playwright's own
    expected/actual message. An ``AssertionError`` too, so pytest reports a failed test."""

    def __init__(self, message: str, result: CheckResult) -> None:
        self.result = result
        super().__init__(message)


class CacheError(StagehandError):
    """The action cache could not be used as asked (e.g. an unwritable directory)."""


class CacheMissError(CacheError):
    """The action cache could not answer and the model may not be asked.

    Raised by ``cache_mode="require"`` when no entry holds the call (``reason="miss"``), a
    cached step no longer holds on the page (``reason="stale"``) or a check's statement could
    not be compiled into assertions when it was recorded (``reason="uncompiled"``), and by
    ``self_heal=False`` for a stale step. ``instruction`` (redacted) and ``key`` (the entry's
    digest) name the entry; no model was called.
    """

    def __init__(self, message: str, *, instruction: str, key: str, reason: str) -> None:
        self.instruction = instruction
        self.key = key
        self.reason = reason
        super().__init__(message)
