"""act() with the action cache in front of the model loop.

Hit: replay the stored steps (selectors in order, fingerprint confirmed, variables
substituted) with no model call. A step that no longer holds hands over to the model loop from
the page as it is now, with the replayed steps as history; success rewrites the entry
("healed"), failure removes it. Miss: the model loop; only a successful act is written.
"""

from __future__ import annotations

import logging
import time

from playwright.async_api import Locator as AsyncLocator
from playwright.async_api import Page as AsyncPage

from .._config import Settings
from .._errors import CacheError, PageError
from .._types import ActionRecord, ActResult
from .._variables import Variables
from ..cache import ActionCache, CachedAction, CacheEntry, CacheKey
from .act import ActStep, AsyncActRun, LLMSource
from .cache_fingerprint import locate_fingerprinted
from .executor import perform
from .settle import settle

logger = logging.getLogger("stagehand_py")


class _StepDrifted(Exception):
    """A cached step no longer applies to the page."""


async def cached_act(
    page: AsyncPage,
    llm: LLMSource,
    instruction: str,
    *,
    variables: Variables,
    settings: Settings,
    cache: ActionCache | None,
) -> ActResult:
    if cache is None:
        return await AsyncActRun(
            page, llm, instruction, variables=variables, settings=settings
        ).run()
    key = cache.key_for(instruction, page.url, variables.names)
    entry = cache.get(key)
    if entry is None:
        run = AsyncActRun(
            page,
            llm,
            instruction,
            variables=variables,
            settings=settings,
            capture_fingerprints=True,
        )
        result = await run.run()
        result.cache = "miss"
        if result.success:
            _store(cache, key, run.steps, variables)
        cache.stats.record("miss")
        return result
    return await _replay_or_heal(page, llm, instruction, entry, variables, settings, cache)


async def _replay_or_heal(
    page: AsyncPage,
    llm: LLMSource,
    instruction: str,
    entry: CacheEntry,
    variables: Variables,
    settings: Settings,
    cache: ActionCache,
) -> ActResult:
    started = time.monotonic()
    run = AsyncActRun(page, llm, instruction, variables=variables, settings=settings)
    try:
        for action in entry.actions:
            run.steps.append(await _replay_step(run.page, action, variables, settings, run))
    except _StepDrifted as drift:
        reason = variables.redact(str(drift))
        logger.info("stagehand_py: cached step no longer holds (%s); asking the model", reason)
        healing = AsyncActRun(
            run.page,
            llm,
            instruction,
            variables=variables,
            settings=settings,
            prior_steps=run.steps,
            capture_fingerprints=True,
        )
        healed = await healing.run()
        if healed.success:
            _store(cache, entry.cache_key, healing.steps, variables, previous=entry)
            healed.cache = "healed"
            healed.healed = True
            healed.message = f"Cache entry healed ({reason}). {healed.message}"
            cache.stats.record("healed")
        else:
            cache.remove(entry.cache_key)
            healed.cache = "miss"
            healed.message = f"{healed.message} (stale cache entry removed: {reason})"
            cache.stats.record("miss")
        return healed
    await settle(run.page, timeout_ms=settings.settle_timeout_ms, quiet_ms=0)
    result = run.replayed_result(started)
    cache.stats.record("hit")
    return result


async def _replay_step(
    page: AsyncPage,
    action: CachedAction,
    variables: Variables,
    settings: Settings,
    run: AsyncActRun,
) -> ActStep:
    located = await _locate(page, action, settings)
    try:
        performed = await perform(
            page,
            method=action.method,
            selectors=action.selectors,
            frame=action.frame,
            args=[variables.substitute(a) for a in action.arguments],
            timeout_ms=settings.action_timeout_ms,
            follow_new_tabs=settings.follow_new_tabs,
            settle_timeout_ms=settings.settle_timeout_ms,
            # A replay knows its next element: no settling between steps (the next lookup
            # settles and retries if the page is still changing); the act settles at the end.
            settle_after=False,
            located=located,
            tag=action.fingerprint.tag if action.fingerprint else None,
        )
    except PageError as exc:
        raise _StepDrifted(f"step '{action.description}': {exc}") from None
    run.page = performed.page
    run.opened_pages.extend(p.url for p in performed.opened)
    record = ActionRecord(
        method=action.method,
        selector=performed.selector,
        selectors=list(action.selectors),
        frame=list(action.frame),
        arguments=list(action.arguments),
        description=action.description,
        url=variables.redact(page.url),
    )
    return ActStep(
        record=record,
        element=None,
        arguments=list(action.arguments),
        fingerprint=action.fingerprint,
    )


async def _locate(
    page: AsyncPage, action: CachedAction, settings: Settings
) -> tuple[AsyncLocator, str]:
    """The step's element, confirmed by fingerprint; once more after a settle if missing
    (the previous step may still be re-rendering the page)."""
    for attempt in range(2):
        try:
            # Skips a selector that now lands on a different element for the next one.
            return await locate_fingerprinted(
                page,
                action.frame,
                action.selectors,
                action.fingerprint,
                timeout_ms=settings.action_timeout_ms,
            )
        except PageError as exc:
            if attempt == 1:
                raise _StepDrifted(f"step '{action.description}': {exc}") from None
            await settle(page, timeout_ms=settings.settle_timeout_ms)
    raise AssertionError("unreachable")


def _store(
    cache: ActionCache,
    key: CacheKey,
    steps: list[ActStep],
    variables: Variables,
    *,
    previous: CacheEntry | None = None,
) -> None:
    actions = [
        CachedAction(
            method=step.record.method,
            selectors=step.record.selectors or [step.record.selector],
            frame=step.record.frame,
            arguments=step.arguments,
            description=step.record.description,
            fingerprint=step.fingerprint,
        )
        for step in steps
    ]
    try:
        entry = previous.with_actions(actions) if previous else CacheEntry.create(key, actions)
        cache.put(entry, secret_values=variables.secret_values())
    except CacheError as exc:
        # A cache that cannot be written must not fail an act that succeeded.
        logger.warning("stagehand_py: action not cached: %s", variables.redact(str(exc)))


async def replay_actions(
    page: AsyncPage, actions: list[CachedAction], *, variables: Variables, settings: Settings
) -> AsyncPage:
    """Replay stored ``actions`` with no model call (a workflow item's flow from the per-site
    history), each step located and fingerprint-checked as a cache hit is; returns the page
    the replay ended on. Raises :class:`PageError` naming the step that no longer holds."""
    run = AsyncActRun(page, None, "", variables=variables, settings=settings)
    try:
        for action in actions:
            run.steps.append(await _replay_step(run.page, action, variables, settings, run))
    except _StepDrifted as drift:
        raise PageError(variables.redact(str(drift))) from None
    await settle(run.page, timeout_ms=settings.settle_timeout_ms, quiet_ms=0)
    return run.page
