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

from .._errors import ActError, CacheMissError


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


def note(text: str) -> None:
    """A line for people that is not the result (usage, hints): stderr."""
    print(text, file=sys.stderr)


def fail(
    args: argparse.Namespace,
    error: BaseException | None,
    *,
    prefix: str = "",
    message: str | None = None,
    code: int = 1,
) -> int:
    """One line on stderr saying why; with ``--json`` also the error object on stdout."""
    text = message if message is not None else str(error)
    first = text.strip().splitlines()[0] if text.strip() else "unknown failure"
    print(f"error: {prefix}{first}", file=sys.stderr)
    if json_mode(args):
        described: dict[str, Any] = {
            "type": type(error).__name__ if error is not None else "Interrupted",
            "message": prefix + text.strip(),
        }
        payload: dict[str, Any] = {"error": described}
        if isinstance(error, ActError):
            described["code"] = error.code
            payload["result"] = error.result.model_dump(mode="json")
        if isinstance(error, CacheMissError):
            described.update(key=error.key, reason=error.reason, instruction=error.instruction)
        emit_json(args, payload, ok=False)
    return code
