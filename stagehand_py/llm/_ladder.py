"""Capability fallback for OpenAI-compatible servers: a fixed ladder of ways to get a tool call
or a structured answer, walked down when a server refuses a feature, and remembered.

Servers differ in what they accept. llama.cpp's Python server answers ``tool_choice:
"required"`` with HTTP 500 and an empty body, ignores ``tool_choice: "auto"`` and answers in
text, refuses ``response_format: json_schema`` and accepts ``json_object`` with a ``schema``.
Ollama ignores ``tool_choice``; a model without tool support is a 400. So a client starts
at the top and steps down when a rung fails:

1. ``required``: tools with ``tool_choice: "required"`` (for a structured answer, the one tool
   named in ``tool_choice``)
2. ``auto``: tools with ``tool_choice: "auto"``, the tool(s) to call named in the prompt
3. ``json_schema``: no tools; ``response_format: {"type": "json_schema", ...}``
4. ``json_object``: ``response_format: {"type": "json_object", "schema": ...}``
5. ``text``: JSON in plain text, described in the prompt, parsed and validated here

A rung fails on an HTTP error that names its feature (or an empty 500), or, on the two tool
rungs, when the answer holds no call (prose or nothing: the server ignored the tools; the
llama.cpp server measured here answers ``"required"`` with HTTP 200 and text when the model's
chat format has no function calling, the one in issue #14 with an empty HTTP 500). It never
fails on what a server that supports the feature also returns: authentication errors, rate
limits, overloaded servers, context-length and other bad requests, and a tool call the model
wrote that the server could not parse, surface as they are (retried first where the SDK
retries). The rung that works is remembered per client and per request shape (tool requests
and structured requests are walked separately: llama.cpp ignores ``"required"`` but honours a
named tool with a grammar), and logged once at INFO.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

Strategy = Literal["required", "auto", "json_schema", "json_object", "text"]
Shape = Literal["tools", "structured"]
LADDER: tuple[Strategy, ...] = ("required", "auto", "json_schema", "json_object", "text")
TOOL_STRATEGIES: frozenset[Strategy] = frozenset({"required", "auto"})

DESCRIPTIONS: dict[Strategy, str] = {
    "required": 'tool_choice "required"',
    "auto": 'tool_choice "auto" with the tool named in the prompt',
    "json_schema": "response_format json_schema",
    "json_object": "response_format json_object with the schema",
    "text": "JSON in plain text",
}

# Words a server's refusal of each feature contains (lower case).
_FEATURE_WORDS: dict[Strategy, tuple[str, ...]] = {
    "required": ("tool_choice", "tool choice", "required", "tool", "function"),
    "auto": ("tool", "function"),
    "json_schema": ("response_format", "response format", "json_schema", "json_object", "schema"),
    "json_object": ("response_format", "response format", "json_object", "schema", "grammar"),
    "text": (),
}
# An error about the conversation itself ("messages.2.content: ..."): never the feature's.
_ABOUT_MESSAGES = re.compile(r"\bmessages?\s*(\.|\[)\s*\d+", re.IGNORECASE)
_CONTEXT_OVERFLOW = re.compile(
    r"context (length|window|size)|maximum context|too many tokens|prompt is too long|"
    r"n_ctx|exceeds the (context|maximum)|reduce the length",
    re.IGNORECASE,
)
# The server could not parse the call the model wrote (Ollama: HTTP 500 "error parsing tool
# call: raw=..."): the model's mistake on a server that does tools, never a refusal of them.
_MODEL_CALL_UNPARSED = re.compile(
    r"(error|fail(ed|ure)?|unable|could not|cannot)\W+(\w+\W+){0,2}?pars(e|ing)\W+"
    r"(\w+\W+){0,2}?(tool|function)[ _]?call",
    re.IGNORECASE,
)
# Statuses a server that supports the feature also returns: never a reason to step down.
_REAL_ERRORS = frozenset({401, 402, 403, 407, 408, 409, 413, 429})
_FEATURE_STATUSES = frozenset({400, 404, 405, 415, 422, 500, 501})


def is_context_overflow(message: str) -> bool:
    """Whether an error message says the prompt does not fit the model's context."""
    return bool(_CONTEXT_OVERFLOW.search(message))


def rejects_feature(status: int, message: str, strategy: Strategy) -> bool:
    """Whether HTTP ``status`` with ``message`` means the server cannot do ``strategy``."""
    words = _FEATURE_WORDS[strategy]
    if not words or status in _REAL_ERRORS or status not in _FEATURE_STATUSES:
        return False
    text = message.lower()
    if is_context_overflow(text) or _ABOUT_MESSAGES.search(text):
        return False
    if _MODEL_CALL_UNPARSED.search(text):
        return False
    if any(word in text for word in words):
        return True
    # llama.cpp's stock server answers a forced tool choice with an empty HTTP 500.
    return status >= 500 and not text.strip()


def refuses_tools(message: str) -> bool:
    """Whether a refusal is of tools altogether ("model x does not support tools"), not just
    of a forced tool choice: then no rung that offers tools is worth trying."""
    text = message.lower()
    choice = any(word in text for word in ("tool_choice", "tool choice", "required"))
    return not choice and any(word in text for word in ("tool", "function"))


class CapabilityLadder:
    """Where each request shape starts on the ladder, for one client.

    Disabled (the client talks to OpenAI itself), every request uses the first rung and
    nothing is ever stepped down.
    """

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self._start: dict[Shape, int] = {"tools": 0, "structured": 0}

    def strategies(self, shape: Shape) -> Sequence[Strategy]:
        """The rungs to try for ``shape``, best first."""
        if not self.enabled:
            return LADDER[:1]
        return LADDER[self._start[shape] :]

    def current(self, shape: Shape) -> Strategy:
        return self.strategies(shape)[0]

    def learn(self, shape: Shape, strategy: Strategy) -> bool:
        """Start ``shape`` at ``strategy`` from now on; True when that is a change."""
        position = LADDER.index(strategy)
        if not self.enabled or position <= self._start[shape]:
            return False
        self._start[shape] = position
        return True


def tried_text(tried: Sequence[tuple[Strategy, str]]) -> str:
    """``required: HTTP 500 ...; auto: ...``: which strategies were tried and why each failed."""
    return "; ".join(f"{DESCRIPTIONS[strategy]}: {reason}" for strategy, reason in tried)
