"""The action cache: a second run of the same act() replays stored steps with no model call.

Storage is one readable JSON file per act (:class:`ActionCache`); keys normalise the
instruction, URL and variable names (:class:`CacheKey`); fingerprints confirm on replay that a
selector still finds the element it meant (:class:`ElementFingerprint`). The replay itself
lives in ``stagehand_py._async.cache`` (one path for every kind of entry); the command-line
helpers in :mod:`._manage`.
"""

from __future__ import annotations

import functools
from importlib import resources

from ._entry import CachedAction, CacheEntry, format_entry_summary
from ._fingerprint import ElementFields, ElementFingerprint, fingerprint_from_element
from ._key import CACHE_FORMAT_VERSION, CacheKey, UrlNormalizer, normalize_url
from ._manage import clear_entries, list_entries, show_entry
from ._store import CACHE_DIR_ENV, ActionCache, CacheStats, CacheStatus, CacheWarning


@functools.cache
def load_fingerprint_js() -> str:
    """The source of ``fingerprint.js``: a function ``(el) => {tag, text, attributes, ...}``."""
    return resources.files(__package__).joinpath("fingerprint.js").read_text(encoding="utf-8")


__all__ = [
    "CACHE_DIR_ENV",
    "CACHE_FORMAT_VERSION",
    "ActionCache",
    "CacheEntry",
    "CacheKey",
    "CacheStats",
    "CacheStatus",
    "CacheWarning",
    "CachedAction",
    "ElementFields",
    "ElementFingerprint",
    "UrlNormalizer",
    "clear_entries",
    "fingerprint_from_element",
    "format_entry_summary",
    "list_entries",
    "load_fingerprint_js",
    "normalize_url",
    "show_entry",
]
