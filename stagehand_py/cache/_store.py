"""ActionCache: one JSON file per entry in a directory, written so that nothing is ever half there.

Writes go to a temporary file in the same directory, are fsynced, then renamed over the entry
with ``os.replace`` (atomic on POSIX and Windows), so a reader sees the old entry or the new
one, never a mix, and several processes writing the same key leave one whole entry. A file
that is unreadable anyway (truncated by a full disk, edited by hand, another format version)
is a miss with a :class:`CacheWarning`, never a crash; so is anything that is not a regular
file of bounded size (a FIFO, a device, a huge file): entries are read without blocking and
never more than :data:`MAX_ENTRY_BYTES`.

Writes can be held back (:meth:`ActionCache.hold_writes`): the pytest plugin holds each test's
writes and commits them only when the test passed, so a failing test never teaches the cache.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import warnings
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, PrivateAttr, ValidationError

from .._errors import CacheError, ConfigurationError
from ._entry import CacheEntry
from ._files import TEMP_SUFFIX, read_or_warn, unlink, write_atomically
from ._key import CACHE_FORMAT_VERSION, CacheKey, EntryKind, UrlMode, UrlNormalizer, is_digest
from ._secrets import find_secret

CACHE_DIR_ENV = "STAGEHAND_PY_CACHE_DIR"
"""Environment variable naming the cache directory; unset or empty means no cache."""

MAX_ENTRY_BYTES = 1 << 20
"""Largest cache file read (1 MiB; a 200-step entry is well under 200 kB)."""

_SUFFIX = ".json"
_MIN_PREFIX = 4

logger = logging.getLogger("stagehand_py.cache")

CacheStatus = Literal["hit", "miss", "healed"]


class CacheWarning(UserWarning):
    """A cache file could not be used (corrupt, truncated, other format); it counts as a miss."""


class CacheStats(BaseModel):
    """Counters of one :class:`ActionCache` since it was created (this process only)."""

    hits: int = 0
    misses: int = 0
    healed: int = 0
    writes: int = 0
    removals: int = 0
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def record(self, status: CacheStatus) -> None:
        """Count one cached call's outcome: ``"hit"``, ``"miss"`` or ``"healed"``."""
        field = {"hit": "hits", "miss": "misses", "healed": "healed"}.get(status)
        if field is None:
            raise ValueError(f"unknown cache status {status!r}; use 'hit', 'miss' or 'healed'")
        self._add(field)

    def _add(self, field: str, count: int = 1) -> None:
        with self._lock:  # pytest-xdist is processes, but a user may share a cache across threads
            setattr(self, field, getattr(self, field) + count)


class ActionCache:
    """The action cache stored in ``directory`` (created on the first write).

    ``url_normalizer`` runs on every URL after the built-in normalisation (see
    :func:`~stagehand_py.cache.normalize_url`), e.g. to drop session ids from the key.
    """

    def __init__(
        self, directory: str | os.PathLike[str], *, url_normalizer: UrlNormalizer | None = None
    ) -> None:
        if not isinstance(directory, (str, os.PathLike)):
            raise ConfigurationError(
                f"cache_dir must be a directory's path (a str or pathlib.Path), not "
                f"{type(directory).__name__}."
            )
        self.directory = Path(directory).expanduser()
        if self.directory.exists() and not self.directory.is_dir():
            raise CacheError(
                f"The cache directory {str(self.directory)!r} is a file. Point cache_dir (or "
                "STAGEHAND_PY_CACHE_DIR) at a directory; it is created if missing."
            )
        self.url_normalizer = url_normalizer
        self.stats = CacheStats()
        # digest -> entry to write (None: to remove) while writes are held; None: not held.
        self._held: dict[str, CacheEntry | None] | None = None
        self._held_lock = threading.Lock()

    @classmethod
    def from_env(
        cls,
        *,
        url_normalizer: UrlNormalizer | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> ActionCache | None:
        """The cache in ``$STAGEHAND_PY_CACHE_DIR``, or None when that is unset or empty."""
        directory = (os.environ if environ is None else environ).get(CACHE_DIR_ENV, "").strip()
        return cls(directory, url_normalizer=url_normalizer) if directory else None

    def __repr__(self) -> str:
        return f"ActionCache({str(self.directory)!r})"

    def key_for(
        self,
        instruction: str,
        url: str,
        variable_names: Iterable[str] = (),
        *,
        url_mode: UrlMode = "auto",
        kind: EntryKind = "act",
    ) -> CacheKey:
        """The key of an act() (or observe()) of ``instruction`` on ``url`` with these variable
        names; ``url_mode`` says which part of the URL counts (see :class:`CacheKey`)."""
        return CacheKey.create(
            instruction,
            url,
            variable_names,
            normalize_url=self.url_normalizer,
            url_mode=url_mode,
            kind=kind,
        )

    def path_for(self, key: CacheKey | str) -> Path:
        """The file an entry with this key (or digest) is stored in."""
        digest = key.digest if isinstance(key, CacheKey) else key
        if not is_digest(digest):  # never let a string reach outside the directory
            raise CacheError(
                f"{digest!r} is not a cache key: keys are 64 lower-case hex digits; use find() "
                "to look one up by its first digits."
            )
        return self.directory / f"{digest}{_SUFFIX}"

    # ---------- reading ----------

    def get(self, key: CacheKey) -> CacheEntry | None:
        """The entry stored under ``key``, or None (missing, or unusable with a warning).

        While writes are held, an entry written (or removed) since counts as stored (gone)."""
        with self._held_lock:
            if self._held is not None and key.digest in self._held:
                return self._held[key.digest]
        entry = self._load(self.path_for(key))
        if entry is not None and entry.key != key.digest:
            self._warn(self.path_for(key), "it holds the entry of another key (renamed by hand?)")
            return None
        return entry

    def entries(self) -> list[CacheEntry]:
        """Every readable entry, newest first (unusable files warn and are skipped)."""
        loaded = (self._load(path) for path in self._entry_paths())
        found = [entry for entry in loaded if entry is not None]
        found.sort(key=lambda entry: entry.updated_at, reverse=True)
        return found

    def find(self, prefix_or_digest: str) -> CacheEntry:
        """The one entry whose digest starts with ``prefix_or_digest`` (as ``list`` shows it).

        Raises :class:`CacheError` when none or several match, or the file is unusable.
        """
        prefix = prefix_or_digest.strip().lower()
        if len(prefix) < _MIN_PREFIX or not all(c in "0123456789abcdef" for c in prefix):
            raise CacheError(
                f"{prefix_or_digest!r} is not a cache key: give at least {_MIN_PREFIX} hex digits "
                "of a key as the list command shows it."
            )
        matches = [path for path in self._entry_paths() if path.name.startswith(prefix)]
        if not matches:
            raise CacheError(
                f"No cache entry key starts with {prefix!r} in {self.directory}. "
                "List the entries to see their keys."
            )
        if len(matches) > 1:
            keys = ", ".join(path.stem[:16] for path in matches[:5])
            raise CacheError(
                f"{len(matches)} cache entries start with {prefix!r} ({keys}...): give more digits."
            )
        entry = self._load(matches[0])
        if entry is None:
            raise CacheError(
                f"The cache file {matches[0]} is unusable (see the warning); clear it or delete "
                "the file, it is rewritten on the next successful act()."
            )
        return entry

    # ---------- writing ----------

    def put(self, entry: CacheEntry, *, secret_values: Iterable[str] = ()) -> Path:
        """Store ``entry`` atomically and durably; returns its file.

        ``secret_values`` are the act's variable values: if any of them occurs in the entry
        (an argument typed literally, a URL carrying it ...) nothing is written and
        :class:`CacheError` is raised, so a value can never reach the disk.
        """
        where = find_secret(entry, secret_values)
        if where is not None:
            raise CacheError(
                f"Refusing to cache the {entry.kind} {entry.key[:12]}: its {where} contains the "
                "value of a variable. Pass values only through variables (placeholders like "
                "<|NAME|>) and keep them out of the instruction and URL."
            )
        data = entry.to_json().encode("utf-8")
        path = self.path_for(entry.key)
        with self._held_lock:
            if self._held is not None:
                self._held[entry.key] = entry
                logger.debug("cache: holding %s until the test passes", path.name)
                return path
        self._write(path, data)
        logger.debug(
            "cache: wrote %s (%d %s)",
            path.name,
            len(entry.assertions or entry.actions or entry.items or []),
            {"check": "assertions", "workflow": "items"}.get(entry.kind, "actions"),
        )
        return path

    def _write(self, path: Path, data: bytes) -> None:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            write_atomically(path, data)
        except OSError as exc:
            raise CacheError(
                f"Could not write the cache entry {path}: {exc.strerror or exc}. Make the "
                f"directory writable or point {CACHE_DIR_ENV} at one that is."
            ) from exc
        self.stats._add("writes")

    def remove(self, key: CacheKey | str) -> bool:
        """Delete the entry for ``key`` (or digest); True if there was one."""
        path = self.path_for(key)
        with self._held_lock:
            if self._held is not None:
                had = self._held.get(path.stem) is not None or path.is_file()
                self._held[path.stem] = None
                return had
        try:
            self.path_for(key).unlink()
        except FileNotFoundError:
            return False
        self.stats._add("removals")
        return True

    def clear(self) -> int:
        """Delete every entry (and leftover temporary files); returns how many entries went."""
        removed = sum(1 for path in self._entry_paths() if unlink(path))
        for path in self._temp_paths():
            unlink(path)
        self.stats._add("removals", removed)
        return removed

    # ---------- held writes (the pytest plugin: only passing tests write) ----------

    def hold_writes(self) -> None:
        """From now on keep writes and removals in memory (reads see them) until
        :meth:`commit` or :meth:`discard`. Anything already held is discarded."""
        with self._held_lock:
            self._held = {}

    def commit(self) -> int:
        """Write (and remove) what was held, stop holding; returns how many entries changed."""
        with self._held_lock:
            held, self._held = self._held or {}, None
        for digest, entry in held.items():
            if entry is None:
                self.remove(digest)
            else:
                self.put(entry)
        return len(held)

    def discard(self) -> int:
        """Forget what was held and stop holding; returns how many changes were dropped."""
        with self._held_lock:
            held, self._held = self._held or {}, None
        if held:
            logger.debug("cache: dropped %d held change(s) of a failed test", len(held))
        return len(held)

    @property
    def holding(self) -> bool:
        """True while writes are held (see :meth:`hold_writes`)."""
        return self._held is not None

    # ---------- internals ----------

    def _load(self, path: Path) -> CacheEntry | None:
        raw = read_or_warn(path, MAX_ENTRY_BYTES, self._warn)
        if raw is None:
            return None
        try:
            return CacheEntry.model_validate_json(raw)
        except ValidationError as exc:
            self._warn(path, _why_invalid(raw, exc))
            return None

    def _warn(self, path: Path, reason: str) -> None:
        message = (
            f"Ignoring the cache file {path}: {reason}. Treated as a miss; it is rewritten on "
            "the next successful act(), or delete it."
        )
        logger.warning("cache: %s", message)
        warnings.warn(message, CacheWarning, stacklevel=3)

    def _entry_paths(self) -> Iterator[Path]:
        if not self.directory.is_dir():
            return iter(())
        return (
            path
            for path in sorted(self.directory.glob(f"*{_SUFFIX}"))
            if is_digest(path.stem) and path.is_file()
        )

    def _temp_paths(self) -> Iterator[Path]:
        if not self.directory.is_dir():
            return iter(())
        return iter(sorted(self.directory.glob(f".*{TEMP_SUFFIX}")))


def _why_invalid(raw: bytes, exc: ValidationError) -> str:
    """A short reason for an unusable file, without quoting its contents."""
    first = exc.errors(include_url=False, include_input=False)[0]
    if first["type"] == "json_invalid":
        return "it is not complete JSON (truncated or corrupted)"
    version = _format_version_of(raw)
    if version is not None and version != CACHE_FORMAT_VERSION:
        return f"it has cache format version {version}, this version reads {CACHE_FORMAT_VERSION}"
    location = ".".join(str(part) for part in first["loc"]) or "entry"
    return f"it is not a valid cache entry ({location}: {first['msg']})"


def _format_version_of(raw: bytes) -> Any:
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    return data.get("format_version") if isinstance(data, dict) else None
