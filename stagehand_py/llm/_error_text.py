"""Readable reasons for failed model requests: one line, the server's own words first, then
what to try. A 7-entry pydantic dump becomes its first entry and a count; an empty HTTP 500
still says where to look."""

from __future__ import annotations

import json
import re

from ._ladder import is_context_overflow

_PYDANTIC_DUMP = re.compile(
    r"^\s*(\d+) validation errors? for [\w.]+\s*\n\s*(\S[^\n]*)\n\s*([^\n]+)"
)
# FastAPI's form (llama.cpp's server): "1 validation error: {'type': ..., 'loc': ('body', ...),
# 'msg': "...", ...}" followed by a traceback.
_FASTAPI_DUMP = re.compile(
    r"^\s*(\d+) validation errors?:\s*\{.*?'loc': \(([^)]*)\), 'msg': (['\"])(.*?)\3",
    re.DOTALL,
)
_PYDANTIC_TAIL = re.compile(r"\s*\[type=[^,\]]+(?:, input_value=([^,\]]*))?[^\]]*\]")
LIMIT = 300


def server_message(body: object, fallback: str = "") -> str:
    """The message inside an error body, whatever its shape: OpenAI's ``{"error": {"message"}}``,
    Anthropic's ``{"type": "error", "error": {...}}``, FastAPI's ``{"detail": ...}``, text."""
    if isinstance(body, dict):
        for key in ("error", "message", "detail"):
            inner = body.get(key)
            if isinstance(inner, str):
                return inner
            if isinstance(inner, dict) and isinstance(inner.get("message"), str):
                return str(inner["message"])
            if key == "detail" and isinstance(inner, list):
                return "; ".join(_detail_entry(item) for item in inner)
        if isinstance(body.get("message"), str):
            return str(body["message"])
        return json.dumps(body, default=str) if body else ""
    if isinstance(body, str):
        return body
    return fallback


def summarize(message: str, limit: int = LIMIT) -> str:
    """``message`` on one line and at most ``limit`` characters; a pydantic validation dump
    is cut to its first error and a count of the others."""
    fastapi = _FASTAPI_DUMP.match(message)
    if fastapi:
        total = int(fastapi.group(1))
        where = ".".join(p.strip(" '") for p in fastapi.group(2).split(",") if p.strip(" '"))
        message = f"{where.removeprefix('body.')}: {fastapi.group(4)}"
        if total > 1:
            message += f" (and {total - 1} more validation error{'s' if total > 2 else ''})"
    dump = _PYDANTIC_DUMP.match(message)
    if dump:
        total, where, what = int(dump.group(1)), dump.group(2).strip(), dump.group(3).strip()
        tail = _PYDANTIC_TAIL.search(what)
        if tail:
            shown = f" (input: {tail.group(1).strip()})" if tail.group(1) else ""
            what = what[: tail.start()] + shown
        message = f"{where}: {what}"
        if total > 1:
            message += f" (and {total - 1} more validation error{'s' if total > 2 else ''})"
    flat = " ".join(message.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def status_reason(status: int, message: str) -> str:
    """``HTTP 500: <message>`` plus advice where the status or message calls for it."""
    text = summarize(message)
    if not text:
        return (
            f"HTTP {status} with an empty body: the server gave no reason (its own log has "
            "it). Check that the model is loaded and can serve this request; for a local "
            "server try a smaller max_tokens, or a model/chat format with tool support"
        )
    reason = f"HTTP {status}: {text}"
    if is_context_overflow(text):
        return reason + (
            ". The prompt does not fit the model's context: use a model (or server setting, "
            "e.g. llama.cpp --n_ctx) with a larger context, or lower max_prompt_chars"
        )
    if status in (401, 403):
        return reason + ". Check the API key (and that it may use this model)"
    if status == 404:
        return reason + ". Check the model name and the base URL"
    return reason


def _detail_entry(item: object) -> str:
    if not isinstance(item, dict):
        return str(item)
    where = ".".join(str(part) for part in item.get("loc") or [])
    return f"{where}: {item.get('msg', '')}".strip(": ")
