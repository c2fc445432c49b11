"""The names the SDK's steps carry in a Playwright trace (see ``_async/browser/tracing.py``).

Pure string building: every part is already redacted by the caller, and the group itself
redacts the whole name once more before it leaves.
"""

from __future__ import annotations

from collections.abc import Sequence


def call_group_name(kind: str, instruction: str) -> str:
    """``act: fill the login form``; an observe() or extract() with no instruction reads
    ``observe: (the page's main controls)`` / ``extract: (the page's text)``."""
    if instruction.strip():
        return f"{kind}: {instruction}"
    fallback = {"observe": "(the page's main controls)", "extract": "(the page's text)"}
    return f"{kind}: {fallback.get(kind, '(no instruction)')}"


def action_group_name(method: str, target: str, arguments: Sequence[str] = ()) -> str:
    """``fill 5:<input name=email> with <|EMAIL|>``: the method, the element as the model saw
    it (or the selector a replay used), and the arguments with placeholders."""
    name = f"{method} {target}".strip()
    if arguments:
        name += " with " + ", ".join(arguments)
    return name


def step_group_name(number: int, goal: str) -> str:
    """``agent step 3: open the cart``."""
    return f"agent step {number}: {goal}" if goal else f"agent step {number}"
