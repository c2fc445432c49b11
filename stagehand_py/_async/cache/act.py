"""act() with the action cache in front of the model loop (the cache's one path is
:class:`~.cached.AsyncCachedCall`).

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

import time
from dataclasses import dataclass
from typing import Any

from playwright.async_api import Page as AsyncPage

from ..._config import Settings
from ..._errors import CacheError, PageError
from ..._trace_names import action_group_name
from ..._types import ActionRecord, ActResult
from ..._variables import Variables
from ...cache import ActionCache, CachedAction, CacheEntry
from ...cache._entry import has_placeholder
from ...cache._store import CacheStatus
from .._deadline import DeadlineExceeded, run_with_deadline
from ..act.loop import ActStep, AsyncActRun
from ..browser.executor import perform
from ..browser.locate import locate_selectors
from ..browser.secret_guard import known_frame, stored_fill_clearance
from ..browser.settle import settle
from ..browser.tracing import AsyncTraceGroup
from ..llm.source import ModelSource
from .cached import AsyncCachedCall, Drift, Stale
from .fingerprint import LocatedField, locate_cached_field


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
    act = AsyncCachedAct(page, llm, instruction, variables=variables, settings=settings)
    return await act.run(cache)


class AsyncCachedAct(AsyncCachedCall[ActResult]):
    """An act() through the cache: its entry is the steps it took."""

    kind = "act"
    _run: AsyncActRun | None = None  # the last run: its steps are what is stored

    async def replay(self, entry: CacheEntry) -> ActResult:
        started = time.monotonic()
        run = self._run = self._act_run(self.page)
        await replay_steps(run, entry.actions)
        return run.replayed_result(started)

    async def ask(self, stale: Stale | None, *, cached: bool) -> ActResult:
        replayed = self._run
        if stale is None or replayed is None:
            self._run = self._act_run(self.page, capture_fingerprints=cached)
        else:  # on from the page the replay reached, its steps kept as history
            self._run = self._act_run(
                replayed.page, prior_steps=replayed.steps, capture_fingerprints=True
            )
        return await self._run.run()

    def succeeded(self, result: ActResult) -> bool:
        return result.success

    async def entry_actions(self, result: ActResult) -> list[CachedAction]:
        """The steps, with placeholders where a variable's value showed (the fingerprint of a
        button "Ship to Al"); :class:`CacheError` when a step's element is found only by
        selectors that quote a value (a selector cannot be redacted and still work)."""
        steps = self._run.steps if self._run is not None else []
        actions = []
        for number, step in enumerate(steps, 1):
            selectors = step.record.selectors or [step.record.selector]
            if any(has_placeholder(selector) for selector in selectors):
                raise CacheError(
                    f"step {number}'s element is found only by selectors that quote the value "
                    "of a variable"
                )
            fingerprint = step.fingerprint
            actions.append(
                CachedAction(
                    method=step.record.method,
                    selectors=selectors,
                    frame=step.record.frame,
                    arguments=step.arguments,
                    description=step.record.description,
                    fingerprint=fingerprint and fingerprint.redacted(self.variables.redact),
                    user_facing_selector=step.record.user_facing_selector,
                )
            )
        return actions

    def not_stored(self, result: ActResult, reason: str) -> None:
        result.not_cached = reason
        result.notes.append(f"Not cached: {reason}.")

    def mark(self, result: ActResult, status: CacheStatus, stale: Stale | None) -> None:
        result.cache = status
        if stale is None:
            return
        if status == "healed":
            result.healed = True
            result.message = f"Cache entry healed ({stale.reason}). {result.message}"
            return
        writes = self.settings.cache_mode == "read-write"
        what = "removed" if writes else "kept: cache_mode='read-only'"
        result.message = f"{result.message} (stale cache entry {what}: {stale.reason})"

    def _act_run(self, page: AsyncPage, **options: Any) -> AsyncActRun:
        return AsyncActRun(
            page,
            self.llm,
            self.instruction,
            variables=self.variables,
            settings=self.settings,
            **options,
        )


async def replay_actions(
    page: AsyncPage, actions: list[CachedAction], *, variables: Variables, settings: Settings
) -> AsyncPage:
    """Replay stored ``actions`` with no model call (a workflow item's flow from the per-site
    history), each step located and fingerprint-checked as a cache hit is; returns the page
    the replay ended on. Raises :class:`PageError` naming the step that no longer holds."""
    run = AsyncActRun(page, None, "", variables=variables, settings=settings)
    try:
        await replay_steps(run, actions)
    except Drift as drift:
        raise PageError(variables.redact(str(drift))) from None
    return run.page


@dataclass(frozen=True)
class ReplayReach:
    """How far a replay of stored steps got: the page it ended on, how many steps held, and
    why the next one did not (redacted; None when every step held)."""

    page: AsyncPage
    held: int
    drift: str | None


async def replay_until_drift(
    page: AsyncPage,
    actions: list[CachedAction],
    *,
    variables: Variables,
    settings: Settings,
    seconds_left: float,
) -> ReplayReach:
    """Replay stored ``actions`` as a cache hit does (fingerprint and secret-scope checks, no
    model call) within ``seconds_left``; stops at the first step that no longer holds (an
    agent run or a workflow item hands the rest to the model from there)."""
    left_ms = max(1.0, seconds_left * 1000)  # a replay cannot outlast its run
    capped = settings.updated(
        action_timeout_ms=min(settings.action_timeout_ms, left_ms),
        settle_timeout_ms=min(settings.settle_timeout_ms, left_ms),
    )
    run = AsyncActRun(page, None, "", variables=variables, settings=capped)
    try:
        # Each step is bounded by the time left; so is the whole replay (a page that keeps
        # every step slow must not carry the run past its timeout_s).
        await run_with_deadline(
            lambda: replay_steps(run, actions), max(0.001, seconds_left), lambda: run.page
        )
    except Drift as drift:
        reason = str(drift)
    except DeadlineExceeded:
        reason = "the run's time ran out during the replay"
    else:
        return ReplayReach(run.page, len(run.steps), None)
    where = f"step {len(run.steps) + 1} of {len(actions)}"
    return ReplayReach(run.page, len(run.steps), variables.redact(f"{where}: {reason}"))


async def replay_steps(run: AsyncActRun, actions: list[CachedAction]) -> None:
    """Replay ``actions`` onto ``run`` (its steps and page follow), then let the page settle;
    :class:`Drift` at the first step that no longer holds."""
    variables, settings = run.variables, run.settings
    for action in actions:
        name = action_group_name(action.method, action.selectors[0], action.arguments)
        async with AsyncTraceGroup(run.page, f"cached {name}", variables.redact):
            run.steps.append(await _replay_step(run.page, action, variables, settings, run))
    await settle(run.page, timeout_ms=settings.settle_timeout_ms, quiet_ms=0)


async def _replay_step(
    page: AsyncPage,
    action: CachedAction,
    variables: Variables,
    settings: Settings,
    run: AsyncActRun,
) -> ActStep:
    # The element must match the stored fingerprint (checked by _locate) before any variable
    # value is substituted: a planted or outdated entry cannot aim a value at another element.
    typed = bool(variables.used_names(action.arguments))
    found = await _locate(page, action, settings, variables, read_field=typed)
    # ... and the field must be one the value may go into, on its own origin; a fingerprint
    # the file brings is no proof, so the live field must name the variable too. Where its
    # form's proof goes with the fill itself, the fill goes through the guarded locator.
    refused, act_through = await stored_fill_clearance(
        found.locator,
        action.method,
        action.arguments,
        variables,
        frame=known_frame(page, action.frame),
        selector=found.selector,
        read=found.facts,
    )
    if refused is not None:
        raise Drift(f"step '{action.description}': {refused}")
    located = act_through, found.selector
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
        unproven = (
            " (or its form was not proven to send to this page's origin)"
            if act_through is not found.locator
            else ""
        )
        raise Drift(f"step '{action.description}': {exc}{unproven}") from None
    run.page = performed.page
    run.opened_pages.extend(p.url for p in performed.opened)
    # Stored when the step was recorded; kept unless it now quotes a value of this call's.
    user_facing = variables.without_secrets(filter(None, [action.user_facing_selector]))
    record = ActionRecord(
        method=action.method,
        selector=variables.redact(performed.selector),
        selectors=variables.without_secrets(action.selectors),
        frame=list(action.frame),
        arguments=list(action.arguments),
        description=action.description,
        url=variables.redact(page.url),
        user_facing_selector=user_facing[0] if user_facing else None,
    )
    return ActStep(
        record=record,
        element=None,
        arguments=list(action.arguments),
        fingerprint=action.fingerprint,
    )


async def _locate(
    page: AsyncPage,
    action: CachedAction,
    settings: Settings,
    variables: Variables,
    *,
    read_field: bool,
) -> LocatedField:
    """The step's element, confirmed by fingerprint; once more after a settle if missing
    (the previous step may still be re-rendering the page). ``read_field``: bring what the
    secret scope check reads of the field, in the same round trip where that can be done."""
    for attempt in range(2):
        try:
            # Skips a selector that now lands on a different element for the next one.
            return await locate_cached_field(
                page,
                action,
                timeout_ms=settings.action_timeout_ms,
                redact=variables.redact,
                read_field=read_field,
            )
        except PageError as exc:
            if attempt == 1:
                raise Drift(f"step '{action.description}': {exc}") from None
            await settle(page, timeout_ms=settings.settle_timeout_ms)
    raise AssertionError("unreachable")
