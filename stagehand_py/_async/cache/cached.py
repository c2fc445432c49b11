"""The one path through the action cache, for every kind of entry (an act's steps, the
elements an observe found, a check's compiled assertions).

A call with a cache looks its key up. A stored entry is replayed with no model call (hit).
One that no longer holds is refused under ``cache_mode="require"`` or ``self_heal=False``
(:class:`~stagehand_py.CacheMissError`); otherwise the model is asked from the page as it is
now, and a success rewrites the entry ("healed", keeping what it replaced as its previous
version) while a failure removes it. With no entry (miss) the model is asked (never under
``"require"``) and a success is stored. ``"read-only"`` replays and heals but never writes or
removes. An entry that says only the model can answer (a check whose statement could not be
compiled: :class:`AskEveryRun`) is a miss that asks the model, and under ``"require"`` a
:class:`~stagehand_py.CacheMissError` saying why. A kind of entry is a subclass of
:class:`AsyncCachedCall`: how to replay an entry, how to ask the model, what of a result to
store, and how a result shows the cache status.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from dataclasses import dataclass, replace
from typing import ClassVar, Generic, TypeVar

from playwright.async_api import Page as AsyncPage
from pydantic import ValidationError

from ..._config import Settings
from ..._error_line import first_line
from ..._errors import CacheError, CacheMissError, ConfigurationError
from ..._variables import Variables
from ...cache import ActionCache, CachedAction, CacheEntry, CacheKey
from ...cache._key import EntryKind
from ...cache._store import CacheStatus
from ...llm._model_string import no_model_configured
from ..llm.base import AsyncLLM
from ..llm.source import ModelSource, model_of

logger = logging.getLogger("stagehand_py")

R = TypeVar("R")


class Drift(Exception):
    """A stored entry no longer holds on the page (the message says where)."""


class AskEveryRun(Exception):
    """A stored entry that says the call needs the model every time (the message says why)."""


@dataclass(frozen=True)
class Stale:
    """The entry that no longer held, and why (redacted)."""

    entry: CacheEntry
    reason: str


@dataclass
class AsyncCachedCall(ABC, Generic[R]):
    """One call through the cache; a subclass is a kind of entry (see the module docstring)."""

    kind: ClassVar[EntryKind]

    page: AsyncPage
    llm: ModelSource | None  # made only when the model is asked
    instruction: str
    variables: Variables
    settings: Settings

    # ----------------------------------------------------------------- what a kind says
    @abstractmethod
    async def replay(self, entry: CacheEntry) -> R:
        """The result ``entry`` gives with no model call; :class:`Drift` when it no longer
        holds."""

    @abstractmethod
    async def ask(self, stale: Stale | None, *, cached: bool) -> R:
        """The model's result, from the page as it is now (``stale``: the entry that did not
        hold; ``cached``: whether the result may be stored)."""

    def succeeded(self, result: R) -> bool:
        """Whether ``result`` may be stored (a failed one removes a stale entry)."""
        return True

    @abstractmethod
    async def entry_actions(self, result: R) -> list[CachedAction]:
        """What of ``result`` an entry stores ([]: nothing worth storing)."""

    def key(self, cache: ActionCache) -> CacheKey:
        """The key this call's entry is stored under (instruction, page URL, variable names)."""
        return self.keyed(cache, self.instruction)

    async def entry_for(self, key: CacheKey, result: R, stale: Stale | None) -> CacheEntry | None:
        """The entry to write for ``result`` (a healed one keeps what it replaced), or None
        when there is nothing worth storing: an empty entry would make the next call a no-op."""
        actions = await self.entry_actions(result)
        if not actions:
            return None
        if stale is not None:
            return stale.entry.with_actions(actions, reason=stale.reason)
        return CacheEntry.create(key, actions)

    @abstractmethod
    def mark(self, result: R, status: CacheStatus, stale: Stale | None) -> None:
        """Let ``result`` say how the cache answered."""

    def not_stored(self, result: R, reason: str) -> None:
        """Let ``result`` say why it was not written although it succeeded (a log line is
        written either way)."""

    def _model(self) -> AsyncLLM:
        if self.llm is None:
            raise no_model_configured(f"{self.kind}()")
        return model_of(self.llm)

    # ----------------------------------------------------------------- the one path
    async def run(self, cache: ActionCache | None) -> R:
        __tracebackhide__ = True
        settings = self.settings
        if cache is None:
            if settings.cache_mode == "require":
                raise ConfigurationError(
                    "cache_mode='require' needs an action cache: pass cache_dir= (or set "
                    "STAGEHAND_PY_CACHE_DIR, or pytest --stagehand-cache-dir)."
                )
            return await self.ask(None, cached=False)
        key = self.key(cache)
        entry = cache.get(key)
        stale = None
        if entry is not None:
            try:
                result = await self.replay(entry)
            except Drift as drift:
                stale = self._stale(cache, key, entry, drift)
            except AskEveryRun as judged:
                if settings.cache_mode == "require":
                    cache.stats.record("miss")
                    raise self._miss_error(key, "uncompiled", str(judged)) from None
            else:
                self.mark(result, "hit", None)
                cache.stats.record("hit")
                return result
        elif settings.cache_mode == "require":
            cache.stats.record("miss")
            raise self._miss_error(key, "miss", "no entry is stored for it")
        result = await self.ask(stale, cached=True)
        writes = settings.cache_mode == "read-write"
        status: CacheStatus = "miss" if stale is None else "healed"
        if not self.succeeded(result):
            status = "miss"
            if stale is not None and writes:
                cache.remove(key)
        elif writes:
            skipped = await self._store(cache, key, result, stale)
            if skipped is not None:
                self.not_stored(result, skipped)
        self.mark(result, status, stale)
        cache.stats.record(status)
        return result

    def _stale(self, cache: ActionCache, key: CacheKey, entry: CacheEntry, drift: Drift) -> Stale:
        """The entry that did not hold; refused when the model may not be asked."""
        reason = self.variables.redact(str(drift))
        required = self.settings.cache_mode == "require"
        if required or not self.settings.self_heal:
            cache.stats.record("miss")
            why = "cache_mode='require'" if required else "self_heal=False"
            raise self._miss_error(key, "stale", f"{reason} ({why})") from None
        logger.info(
            "stagehand_py: cached %s no longer holds (%s); asking the model", self.kind, reason
        )
        return Stale(entry, reason)

    def keyed(self, cache: ActionCache, instruction: str) -> CacheKey:
        """The key of ``instruction`` on this page; a page URL showing a variable's value
        (``/orders?qty=3``) keys on its placeholder (``qty=<|QTY|>``), as the instruction does,
        so no entry holds it."""
        key = cache.key_for(
            instruction,
            self.page.url,
            self.variables.names,
            url_mode=self.settings.cache_url,
            kind=self.kind,
        )
        url = self.variables.redact(key.url)
        return key if url == key.url else replace(key, url=url)

    async def _store(
        self, cache: ActionCache, key: CacheKey, result: R, stale: Stale | None
    ) -> str | None:
        """Write ``result``'s entry (a healed one keeps what it replaced). A cache that cannot
        be written, or steps it cannot replay safely (a typed variable whose element had no
        fingerprint), must not fail a call that succeeded: returns why (redacted), also
        logged as a warning."""
        try:
            entry = await self.entry_for(key, result, stale)
            if entry is None:
                return None
            cache.put(entry, secret_values=self.variables.secret_values())
        except (CacheError, ValidationError) as exc:
            reason = first_line(exc) if isinstance(exc, CacheError) else _unsafe(exc)
            reason = self.variables.redact(reason)
            logger.warning("stagehand_py: %s not cached: %s", self.kind, reason)
            return reason
        return None

    def _miss_error(self, key: CacheKey, reason: str, detail: str) -> CacheMissError:
        return cache_miss_error(self.instruction, key, self.variables, reason, detail)


def _unsafe(exc: ValidationError) -> str:
    error = exc.errors(include_url=False, include_input=False)[0]
    where = ".".join(str(part) for part in error["loc"]) or "entry"
    return f"the steps cannot be replayed safely ({where}: {error['msg']})"


_FIXES = {
    "miss": "Record it with a run in cache_mode='read-write' (pytest "
    "--stagehand-cache-mode=read-write).",
    "stale": "Re-record it with a run in cache_mode='read-write' and self_heal=True (the "
    "defaults), which asks the model to redo the step.",
    "uncompiled": "Reword the statement so it names the text, value, count or state to check "
    "(then record it again in cache_mode='read-write'), or run this check where the model may "
    "be asked (cache_mode='read-only').",
}


def cache_miss_error(
    instruction: str, key: CacheKey, variables: Variables, reason: str, detail: str
) -> CacheMissError:
    shown = variables.redact(instruction)
    fix = _FIXES.get(reason, _FIXES["stale"])
    if reason == "uncompiled":
        detail = (
            "the statement could not be compiled into Playwright assertions when it was "
            f"recorded ({detail}), so only the model can judge it"
        )
    return CacheMissError(
        f"{key.kind}({shown!r}) on {variables.redact(key.url)}: the action cache cannot answer "
        f"(key {key.short}): {detail}. No model was called. {fix}",
        instruction=shown,
        key=key.digest,
        reason=reason,
    )
