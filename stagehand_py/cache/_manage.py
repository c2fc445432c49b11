"""What the ``list``, ``show`` and ``clear`` commands print: pure functions over an ActionCache.

The command-line wiring only parses arguments and prints these strings, so the output is
tested here without a subprocess.
"""

from __future__ import annotations

import difflib
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from ..check._assertions import CheckAssertion
from ._entry import CachedAction, CachedItem, CacheEntry, PreviousVersion, format_entry_summary

if TYPE_CHECKING:
    from ._store import ActionCache

_HEADER = f"{'KEY':<12}  {'UPDATED':<20}  {'ACTIONS':>10}  INSTRUCTION  URL"


def list_entries(cache: ActionCache) -> str:
    """A table of every entry, newest first, with a count line; says so when there is none."""
    entries = cache.entries()
    if not entries:
        return f"No cache entries in {cache.directory}."
    lines = [_HEADER, *(format_entry_summary(entry) for entry in entries)]
    count = len(entries)
    lines.append(f"{count} entr{'y' if count == 1 else 'ies'} in {cache.directory}")
    return "\n".join(lines)


def show_entry(cache: ActionCache, key_prefix: str) -> str:
    """The entry whose key starts with ``key_prefix``, as the pretty JSON stored on disk.

    Raises :class:`~stagehand_py.CacheError` when no entry or several match.
    """
    return cache.find(key_prefix).to_json().rstrip("\n")


def describe_actions(actions: list[CachedAction]) -> list[str]:
    """Readable lines for a list of cached steps: one block per step, for diffing."""
    lines: list[str] = []
    for number, action in enumerate(actions, 1):
        arguments = ", ".join(repr(a) for a in action.arguments)
        lines.append(f"{number}. {action.method}({arguments})")
        if action.fingerprint is not None:
            fp = action.fingerprint
            role = f" role={fp.role}" if fp.role else ""
            lines.append(f'   element: <{fp.tag}{role}> "{fp.name}"')
        if action.frame:
            lines.append(f"   frame: {' > '.join(action.frame)}")
        lines.extend(f"   selector: {selector}" for selector in action.selectors)
    return lines


def describe_assertions(
    assertions: list[CheckAssertion] | None, uncompiled: str | None = None
) -> list[str]:
    """Readable lines for a check's compiled assertions (or why it has none), for diffing."""
    if uncompiled is not None:
        return [f"not compiled, the model judges it on every run: {uncompiled}"]
    lines: list[str] = []
    for number, assertion in enumerate(assertions or [], 1):
        expected = "" if assertion.expected is None else repr(assertion.expected)
        lines.append(f"{number}. {assertion.kind}({expected})")
        if assertion.description:
            lines.append(f"   element: {assertion.description}")
        if assertion.frame:
            lines.append(f"   frame: {' > '.join(assertion.frame)}")
        lines.extend(f"   selector: {selector}" for selector in assertion.selectors)
    return lines


def describe_items(items: list[CachedItem] | None) -> list[str]:
    """Readable lines for a workflow's checklist items and each one's steps, for diffing."""
    lines: list[str] = []
    for number, item in enumerate(items or [], 1):
        lines.append(f"item {number}. {item.text}")
        lines.extend(f"  {line}" for line in describe_actions(item.actions))
    return lines


def _described(contents: CacheEntry | PreviousVersion, kind: str) -> list[str]:
    if kind == "check":
        return describe_assertions(contents.assertions, contents.uncompiled)
    if kind == "workflow":
        return describe_items(contents.items)
    if contents.extraction is not None:
        return contents.extraction.describe()
    return describe_actions(contents.actions)


def entry_diff(entry: CacheEntry) -> str:
    """A unified diff of the entry's steps against the version its last heal replaced;
    says so when it was never healed."""
    if entry.previous is None:
        return f"Entry {entry.key[:12]} was never healed: no previous version to compare."

    def stamp(moment: datetime) -> str:
        return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%SZ")

    diff = difflib.unified_diff(
        _described(entry.previous, entry.kind),
        _described(entry, entry.kind),
        fromfile=f"previous ({stamp(entry.previous.updated_at)})",
        tofile=f"current ({stamp(entry.updated_at)})",
        lineterm="",
    )
    reason = f"healed because: {entry.previous.reason}\n" if entry.previous.reason else ""
    return reason + "\n".join(diff)


def show_entry_diff(cache: ActionCache, key_prefix: str) -> str:
    """:func:`entry_diff` of the entry whose key starts with ``key_prefix``."""
    return entry_diff(cache.find(key_prefix))


def clear_entries(cache: ActionCache) -> int:
    """Delete every entry; returns how many were deleted."""
    return cache.clear()
