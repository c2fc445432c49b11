"""What the ``list``, ``show`` and ``clear`` commands print: pure functions over an ActionCache.

The command-line wiring only parses arguments and prints these strings, so the output is
tested here without a subprocess.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._entry import format_entry_summary

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


def clear_entries(cache: ActionCache) -> int:
    """Delete every entry; returns how many were deleted."""
    return cache.clear()
