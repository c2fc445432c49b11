"""act() with the action cache in front of the model loop.

Hit: replay the stored steps (selectors in order, fingerprint confirmed, then variables
substituted) with no model call. A step that no longer holds hands over to the model loop from
the page as it is now, with the replayed steps as history; success rewrites the entry
("healed", keeping the replaced steps as its previous version), failure removes it. Miss: the
model loop; only a successful act is written.

``Settings.cache_mode`` narrows this: ``"read-only"`` replays and heals but never writes or
removes; ``"require"`` never calls the model: a miss or a stale step is a
:class:`~stagehand_py.CacheMissError`. ``self_heal=False`` makes a stale step that error too.
"""

from __future__ import annotations

import logging
import time

from playwright.async_api import Locator as AsyncLocator
from playwright.async_api import Page as AsyncPage
from pydantic import ValidationError

from ..._config import Settings
from ..._errors import CacheError, CacheMissError, ConfigurationError, PageError
from ..._trace_names import action_group_name
from ..._types import ActionRecord, ActResult
from ..._variables import Variables
from ...cache import ActionCache, CachedAction, CacheEntry, CacheKey
from ..act.loop import ActStep, AsyncActRun
from ..browser.executor import perform
from ..browser.locate import locate_selectors
from ..browser.secret_guard import locator_refusal
from ..browser.settle import settle
from ..browser.tracing import AsyncTraceGroup
from ..llm.source import ModelSource
from .fingerprint import locate_fingerprinted

logger = logging.getLogger("stagehand_py")


class _StepDrifted(Exception):
    """A cached step no longer applies to the page."""


async def cached_act(
    page: AsyncPage,
    llm: ModelSource | None,
    instruction: str,
    *,
    variables: Variables,
    settings: Settings,
    cache: ActionCache | None,
) -> ActResult:
    __tracebackhide__ = True
    if cache is None:
        if settings.cache_mode == "require":
            raise ConfigurationError(
                "cache_mode='require' needs an action cache: pass cache_dir= (or set "
                "STAGEHAND_PY_CACHE_DIR, or pytest --stagehand-cache-dir)."
            )
        return await AsyncActRun(
            page, llm, instruction, variables=variables, settings=settings
        ).run()
    key = cache.key_for(instruction, page.url, variables.names, url_mode=settings.cache_url)
    entry = cache.get(key)
    if entry is None:
        if settings.cache_mode == "require":
            cache.stats.record("miss")
            raise cache_miss_error(instruction, key, variables, "miss", "no entry is stored for it")
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
        if result.success and settings.cache_mode == "read-write":
            _store(cache, key, run.steps, variables)
        cache.stats.record("miss")
        return result
    return await _replay_or_heal(page, llm, instruction, entry, variables, settings, cache)


async def _replay_or_heal(
    page: AsyncPage,
    llm: ModelSource | None,
    instruction: str,
    entry: CacheEntry,
    variables: Variables,
    settings: Settings,
    cache: ActionCache,
) -> ActResult:
    __tracebackhide__ = True
    started = time.monotonic()
    run = AsyncActRun(page, llm, instruction, variables=variables, settings=settings)
    try:
        for action in entry.actions:
            name = action_group_name(action.method, action.selectors[0], action.arguments)
            async with AsyncTraceGroup(run.page, f"cached {name}", variables.redact):
                run.steps.append(await _replay_step(run.page, action, variables, settings, run))
    except _StepDrifted as drift:
        reason = variables.redact(str(drift))
        if settings.cache_mode == "require" or not settings.self_heal:
            cache.stats.record("miss")
            why = "cache_mode='require'" if settings.cache_mode == "require" else "self_heal=False"
            raise cache_miss_error(
                instruction, entry.cache_key, variables, "stale", f"{reason} ({why})"
            ) from None
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
        writes = settings.cache_mode == "read-write"
        if healed.success:
            if writes:
                _store(cache, entry.cache_key, healing.steps, variables, previous=entry, why=reason)
            healed.cache = "healed"
            healed.healed = True
            healed.message = f"Cache entry healed ({reason}). {healed.message}"
            cache.stats.record("healed")
        else:
            if writes:
                cache.remove(entry.cache_key)
            healed.cache = "miss"
            what = "removed" if writes else "kept: cache_mode='read-only'"
            healed.message = f"{healed.message} (stale cache entry {what}: {reason})"
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
    # The element must match the stored fingerprint (checked by _locate) before any variable
    # value is substituted: a planted or outdated entry cannot aim a value at another element.
    located = await _locate(page, action, settings)
    # ... and the field must be one the value may go into, on its own origin (hardening #13).
    refused = await locator_refusal(located[0], action.method, action.arguments, variables)
    if refused is not None:
        raise _StepDrifted(f"step '{action.description}': {refused}")
    values = [variables.substitute(a) for a in action.arguments]
    try:
        # drag_to stores its drop target's selector as the argument: it must still find
        # exactly one element, in the same frame, or the step no longer holds.
        drag_target = (
            await locate_selectors(page, action.frame, action.arguments[:1])
            if action.method == "drag_to"
            else None
        )
        performed = await perform(
            page,
            method=action.method,
            selectors=action.selectors,
            frame=action.frame,
            args=values,
            timeout_ms=settings.action_timeout_ms,
            follow_new_tabs=settings.follow_new_tabs,
            settle_timeout_ms=settings.settle_timeout_ms,
            # A replay knows its next element: no settling between steps (the next lookup
            # settles and retries if the page is still changing); the act settles at the end.
            settle_after=False,
            located=located,
            tag=action.fingerprint.tag if action.fingerprint else None,
            drag_target=drag_target,
        )
    except PageError as exc:
        raise _StepDrifted(f"step '{action.description}': {exc}") from None
    run.page = performed.page
    run.opened_pages.extend(p.url for p in performed.opened)
    record = ActionRecord(
        method=action.method,
        selector=variables.redact(performed.selector),
        selectors=variables.without_secrets(action.selectors),
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
    why: str = "",
) -> None:
    if not steps:
        return  # nothing to replay: an empty entry would make the next act a no-op
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
        entry = (
            previous.with_actions(actions, reason=why)
            if previous
            else CacheEntry.create(key, actions)
        )
        cache.put(entry, secret_values=variables.secret_values())
    except (CacheError, ValidationError) as exc:
        # A cache that cannot be written (or steps it cannot replay safely, such as a typed
        # variable whose element had no fingerprint) must not fail an act that succeeded.
        reason = str(exc).splitlines()[0] if isinstance(exc, CacheError) else _first_error(exc)
        logger.warning("stagehand_py: action not cached: %s", variables.redact(reason))


def _first_error(exc: ValidationError) -> str:
    error = exc.errors(include_url=False, include_input=False)[0]
    where = ".".join(str(part) for part in error["loc"]) or "entry"
    return f"the steps cannot be replayed safely ({where}: {error['msg']})"


def cache_miss_error(
    instruction: str, key: CacheKey, variables: Variables, reason: str, detail: str
) -> CacheMissError:
    shown = variables.redact(instruction)
    kind = "observe" if key.kind == "observe" else "act"
    fix = (
        "Record it with a run in cache_mode='read-write' (pytest "
        "--stagehand-cache-mode=read-write)."
        if reason == "miss"
        else "Re-record it with a run in cache_mode='read-write' and self_heal=True (the "
        "defaults), which asks the model to redo the step."
    )
    return CacheMissError(
        f"{kind}({shown!r}) on {variables.redact(key.url)}: the action cache cannot answer "
        f"(key {key.short}): {detail}. No model was called. {fix}",
        instruction=shown,
        key=key.digest,
        reason=reason,
    )


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
