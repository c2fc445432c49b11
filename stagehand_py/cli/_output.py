"""What the commands print: text for people, or (``--json``) one JSON object for programs.

With ``--json`` stdout holds exactly one JSON document, ``{"ok": true, "command": ..., ...}``
or ``{"ok": false, "command": ..., "error": {"type", "message", ...}}``, and nothing else:
progress, usage and log lines go to stderr, so ``| jq`` needs no cleaning.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from pydantic import BaseModel

from .._errors import ActError, CacheMissError, CheckError
from .._history import CallRecord
from .._usage import Usage
from ._session import usage_line


def add_json_option(parser: argparse.ArgumentParser) -> None:
    """The ``--json`` option every command has."""
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object on stdout (nothing else); progress stays on stderr",
    )


def json_mode(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "json", False))


def command_name(args: argparse.Namespace) -> str:
    name = str(getattr(args, "command", ""))
    action = getattr(args, "cache_action", None) or getattr(args, "history_action", None)
    return f"{name} {action}" if action else name


def emit_json(args: argparse.Namespace, payload: dict[str, Any], *, ok: bool = True) -> None:
    """Print the command's one JSON object on stdout."""
    document = {"ok": ok, "command": command_name(args), **payload}
    sys.stdout.write(json.dumps(document, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


def emit_result(args: argparse.Namespace, result: BaseModel, code: str | None) -> None:
    """A verb's result as the command's JSON object, with its ``--codegen`` code if any."""
    payload: dict[str, Any] = {"result": result.model_dump(mode="json")}
    if code is not None:
        payload["playwright_code"] = code
    emit_json(args, payload)


def print_code(code: str | None, of_what: str) -> None:
    """The ``--codegen`` code for people, under a line saying what it does."""
    if code is not None:
        print(f"\n# ---- plain Playwright code of this {of_what} ----")
        print(code, end="")


def note(text: str) -> None:
    """A line for people that is not the result (usage, hints): stderr."""
    print(text, file=sys.stderr)


def spent_before_failing(args: argparse.Namespace, history: list[CallRecord]) -> None:
    """A command is failing after its calls sent model requests: the usage line goes to
    stderr now (before the error line), and ``fail`` puts ``llm_calls`` and ``usage`` into the
    ``--json`` error object. Nothing when no request was sent."""
    calls = sum(record.llm_calls for record in history)
    if not calls:
        return
    note(usage_line(history))
    total = sum((record.usage for record in history), Usage())
    args.spent = {"llm_calls": calls, "usage": total.model_dump(mode="json")}


def fail(
    args: argparse.Namespace,
    error: BaseException | None,
    *,
    prefix: str = "",
    message: str | None = None,
    code: int = 1,
    kind: str = "",
) -> int:
    """One line on stderr saying why; with ``--json`` also the error object on stdout. Its
    ``type`` is the exception's name, or ``kind`` for a failure that is not an exception
    (``Interrupted`` for Ctrl-C)."""
    text = message if message is not None else str(error)
    first = text.strip().splitlines()[0] if text.strip() else "unknown failure"
    print(f"error: {prefix}{first}", file=sys.stderr)
    if json_mode(args):
        described: dict[str, Any] = {
            "type": type(error).__name__ if error is not None else kind or "Failed",
            "message": prefix + text.strip(),
        }
        payload: dict[str, Any] = {"error": described}
        if isinstance(error, ActError):
            described["code"] = error.code
        if isinstance(error, (ActError, CheckError)):  # what was tried, and what it cost
            payload["result"] = error.result.model_dump(mode="json")
        if isinstance(error, CacheMissError):
            described.update(key=error.key, reason=error.reason, instruction=error.instruction)
        payload.update(getattr(args, "spent", None) or {})
        emit_json(args, payload, ok=False)
    return code


def run_failed(
    args: argparse.Namespace, kind: str, reason: str, message: str, payload: dict[str, Any]
) -> int:
    """A run (an agent's, a workflow's) that ended without doing its task: not an exception.
    One line on stderr; with ``--json`` the one object on stdout holds the error (``type``
    ``AgentFailed`` or ``WorkflowFailed``, the run's ``reason``) next to ``payload``, the run's
    result with every step."""
    why = f"the {kind} ended with reason {reason}: {message}"
    first = why.strip().splitlines()[0]
    print(f"error: {first}", file=sys.stderr)
    if json_mode(args):
        error = {"type": f"{kind.capitalize()}Failed", "reason": reason, "message": why}
        emit_json(args, {"error": error, **payload}, ok=False)
    return 1
