"""observe() with the action cache in front of the model.

An observe() that found elements is stored like an act: one entry whose "actions" are the
found elements (method, arguments, every selector, frame path, the element's fingerprint).
The next observe() of the same instruction on the same page replays it with no model call
once every element is found again with a matching fingerprint; otherwise the model is asked
again and the entry rewritten (``cache_mode="require"`` and ``self_heal=False`` raise
:class:`~stagehand_py.CacheMissError` instead). An observe that found nothing is not stored.
"""

from __future__ import annotations

import logging
import time

from playwright.async_api import Page as AsyncPage
from pydantic import ValidationError

from ..._config import Settings
from ..._errors import CacheError, ConfigurationError, PageError
from ..._types import ObserveResult
from ..._variables import Variables
from ...cache import ActionCache, CachedAction, CacheEntry, CacheKey, CacheStatus
from ..browser.locate import locate_selectors
from ..browser.settle import settle
from ..llm.source import ModelSource, model_of
from ..observe.ask import ObserveOutcome, observe
from .act import cache_miss_error
from .fingerprint import fingerprint_of_locator, locate_fingerprinted

logger = logging.getLogger("stagehand_py")


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
    """observe() through the cache (``llm`` is called only when the model is needed).

    ``outcome`` is filled as the model work goes, so a caller still knows what a failed
    observe cost."""
    __tracebackhide__ = True
    if cache is None:
        if settings.cache_mode == "require":
            raise ConfigurationError(
                "cache_mode='require' needs an action cache: pass cache_dir= (or set "
                "STAGEHAND_PY_CACHE_DIR, or pytest --stagehand-cache-dir)."
            )
        return await observe(
            page,
            model_of(llm),
            instruction,
            variables=variables,
            settings=settings,
            outcome=outcome,
        )
    key = cache.key_for(
        instruction or "", page.url, variables.names, url_mode=settings.cache_url, kind="observe"
    )
    entry = cache.get(key)
    if entry is not None:
        replayed = await _replay(page, entry, settings)
        if isinstance(replayed, ObserveOutcome):
            cache.stats.record("hit")
            replayed.cache = "hit"
            return replayed
        if settings.cache_mode == "require" or not settings.self_heal:
            cache.stats.record("miss")
            why = "cache_mode='require'" if settings.cache_mode == "require" else "self_heal=False"
            raise cache_miss_error(
                instruction or "", key, variables, "stale", f"{replayed} ({why})"
            )
        logger.info("stagehand_py: cached observe no longer holds (%s); asking the model", replayed)
    elif settings.cache_mode == "require":
        cache.stats.record("miss")
        raise cache_miss_error(instruction or "", key, variables, "miss", "no entry is stored")
    outcome = await observe(
        page, model_of(llm), instruction, variables=variables, settings=settings, outcome=outcome
    )
    status: CacheStatus = "miss" if entry is None else "healed"
    outcome.cache = status
    cache.stats.record(status)
    if outcome.results and settings.cache_mode == "read-write":
        await _store(page, cache, key, outcome.results, variables, previous=entry)
    return outcome


async def _replay(page: AsyncPage, entry: CacheEntry, settings: Settings) -> ObserveOutcome | str:
    """The stored results, each element found again; or why one was not."""
    started = time.monotonic()
    await settle(page, timeout_ms=settings.settle_timeout_ms)
    results: list[ObserveResult] = []
    for action in entry.actions:
        try:
            _, selector = await locate_fingerprinted(
                page,
                action.frame,
                action.selectors,
                action.fingerprint,
                timeout_ms=settings.action_timeout_ms,
            )
        except PageError as exc:
            return f"'{action.description}': {str(exc).splitlines()[0]}"
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


async def _store(
    page: AsyncPage,
    cache: ActionCache,
    key: CacheKey,
    results: list[ObserveResult],
    variables: Variables,
    *,
    previous: CacheEntry | None,
) -> None:
    actions: list[CachedAction] = []
    for result in results:
        selectors = result.selectors or [result.selector]
        try:
            locator, _ = await locate_selectors(page, result.frame, selectors)
            fingerprint = await fingerprint_of_locator(locator, timeout_ms=1000)
        except PageError:
            return  # an element already gone cannot be confirmed on replay: store nothing
        actions.append(
            CachedAction(
                method=result.method,
                selectors=selectors,
                frame=result.frame,
                arguments=result.arguments,
                description=result.description,
                fingerprint=fingerprint,
            )
        )
    try:
        entry = (
            previous.with_actions(actions, reason="elements changed")
            if previous
            else CacheEntry.create(key, actions)
        )
        cache.put(entry, secret_values=variables.secret_values())
    except (CacheError, ValidationError) as exc:
        logger.warning(
            "stagehand_py: observe not cached: %s", variables.redact(str(exc).splitlines()[0])
        )
