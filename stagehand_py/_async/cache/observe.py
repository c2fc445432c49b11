"""observe() with the action cache in front of the model (the cache's one path is
:class:`~.cached.AsyncCachedCall`).

An observe() that found elements is stored like an act: one entry whose "actions" are the
found elements (method, arguments, every selector, frame path, the element's fingerprint).
The next observe() of the same instruction on the same page replays it with no model call
once every element is found again with a matching fingerprint; otherwise the model is asked
again and the entry rewritten (``cache_mode="require"`` and ``self_heal=False`` raise
:class:`~stagehand_py.CacheMissError` instead). An observe that found nothing is not stored.
"""

from __future__ import annotations

import time

from playwright.async_api import Page as AsyncPage

from ..._config import Settings
from ..._error_line import first_line
from ..._errors import PageError
from ..._types import ObserveResult
from ..._variables import Variables
from ...cache import ActionCache, CachedAction, CacheEntry
from ...cache._store import CacheStatus
from ..browser.locate import locate_selectors
from ..browser.settle import settle
from ..llm.source import ModelSource
from ..observe.ask import ObserveOutcome, observe
from .cached import AsyncCachedCall, Drift, Stale
from .fingerprint import fingerprint_of_locator, locate_cached


async def cached_observe(
    page: AsyncPage,
    llm: ModelSource,
    instruction: str | None,
    *,
    variables: Variables,
    settings: Settings,
    cache: ActionCache | None,
    outcome: ObserveOutcome | None = None,
) -> ObserveOutcome:
    """observe() through the cache (``llm`` is made only when the model is needed).

    ``outcome`` is filled as the model work goes, so a caller still knows what a failed
    observe cost."""
    __tracebackhide__ = True
    call = AsyncCachedObserve(page, llm, instruction or "", variables=variables, settings=settings)
    call.outcome = outcome
    return await call.run(cache)


class AsyncCachedObserve(AsyncCachedCall[ObserveOutcome]):
    """An observe() through the cache: its entry is the elements it found."""

    kind = "observe"
    outcome: ObserveOutcome | None = None  # the caller's, filled as the model work goes

    async def replay(self, entry: CacheEntry) -> ObserveOutcome:
        """The stored results, each element found again."""
        started = time.monotonic()
        await settle(self.page, timeout_ms=self.settings.settle_timeout_ms)
        results: list[ObserveResult] = []
        for action in entry.actions:
            try:
                _, selector = await locate_cached(
                    self.page,
                    action,
                    timeout_ms=self.settings.action_timeout_ms,
                    redact=self.variables.redact,
                )
            except PageError as exc:
                raise Drift(f"'{action.description}': {first_line(exc)}") from None
            results.append(
                ObserveResult(
                    selector=selector,
                    description=action.description,
                    method=action.method,
                    arguments=list(action.arguments),
                    selectors=list(action.selectors),
                    frame=list(action.frame),
                )
            )
        return ObserveOutcome(results=results, duration_s=time.monotonic() - started)

    async def ask(self, stale: Stale | None, *, cached: bool) -> ObserveOutcome:
        return await observe(
            self.page,
            self._model(),
            self.instruction,
            variables=self.variables,
            settings=self.settings,
            outcome=self.outcome,
        )

    async def entry_actions(self, result: ObserveOutcome) -> list[CachedAction]:
        """The found elements with their live fingerprints; none when one is already gone
        (it could not be confirmed on replay)."""
        actions: list[CachedAction] = []
        for found in result.results:
            selectors = found.selectors or [found.selector]
            try:
                locator, _ = await locate_selectors(self.page, found.frame, selectors)
                fingerprint = await fingerprint_of_locator(locator, timeout_ms=1000)
            except PageError:
                return []
            actions.append(
                CachedAction(
                    method=found.method,
                    selectors=selectors,
                    frame=found.frame,
                    arguments=found.arguments,
                    description=found.description,
                    fingerprint=fingerprint.redacted(self.variables.redact),
                )
            )
        return actions

    def mark(self, result: ObserveOutcome, status: CacheStatus, stale: Stale | None) -> None:
        result.cache = status
