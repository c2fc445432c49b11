"""The action cache: a second run of the same act() replays stored steps with no model call.

Storage is one readable JSON file per act (:class:`ActionCache`, its counters in
:class:`CacheStats`); keys normalise the instruction, URL and variable names
(:class:`CacheKey`); fingerprints confirm on replay that a selector still finds the element it
meant (:class:`ElementFingerprint`). The replay itself lives in ``stagehand_py._async.cache``
(one path for every kind of entry); the command-line helpers in :mod:`._manage`.
"""

from ._entry import CachedAction, CacheEntry
from ._fingerprint import ElementFingerprint
from ._key import CacheKey
from ._store import ActionCache, CacheStats, CacheWarning

__all__ = [
    "ActionCache",
    "CacheEntry",
    "CacheKey",
    "CacheStats",
    "CacheWarning",
    "CachedAction",
    "ElementFingerprint",
]
