"""act() on an observe() result: its action run directly (no model call), refused when a
variable may not go into its element, healed through a normal act when the element is gone."""

from __future__ import annotations

import logging

from playwright.async_api import Page as AsyncPage

from ..._call_outcomes import refused_observed
from ..._config import Settings
from ..._error_line import first_line
from ..._errors import CacheMissError, ElementNotFoundError, PageError
from ..._types import ActResult, ObserveResult
from ..._variables import Variables
from ..browser.executor import perform
from ..browser.locate import locate_selectors
from ..browser.secret_guard import known_frame, locator_refusal
from ..browser.user_facing import user_facing_selector
from ..llm.source import ModelSource
from .loop import AsyncActRun

logger = logging.getLogger("stagehand_py")


async def act_observed(
    page: AsyncPage,
    observed: ObserveResult,
    values: Variables,
    settings: Settings,
    source: ModelSource,
) -> ActResult:
    run = AsyncActRun(page, None, observed.description, variables=values, settings=settings)
    try:
        located = await locate_selectors(
            page, observed.frame, observed.selectors or [observed.selector]
        )
        refused = await locator_refusal(
            located[0],
            observed.method,
            observed.arguments,
            values,
            frame=known_frame(page, observed.frame),
            selector=located[1],
        )
        if refused is not None:
            return refused_observed(page, observed, values, refused)
        user_facing = await user_facing_selector(located[0], values)
        performed = await perform(
            page,
            method=observed.method,
            selectors=observed.selectors or [observed.selector],
            frame=observed.frame,
            args=[values.substitute(a) for a in observed.arguments],
            timeout_ms=settings.action_timeout_ms,
            follow_new_tabs=settings.follow_new_tabs,
            settle_timeout_ms=settings.settle_timeout_ms,
            located=located,
        )
    except (ElementNotFoundError, PageError) as exc:
        reason = values.redact(first_line(exc))
        if settings.cache_mode == "require" or not settings.self_heal:
            why = "self_heal=False" if settings.self_heal else "cache_mode='require'"
            raise CacheMissError(
                f"act(observed {values.redact(observed.description)!r}): the element no "
                f"longer resolves ({reason}) and {why} forbids asking the model to find it.",
                instruction=values.redact(observed.description),
                key="",
                reason="stale",
            ) from None
        logger.info("stagehand_py: observed element is stale (%s); healing with act()", reason)
        healed = await AsyncActRun(
            page,
            source,
            instruction_for(observed),
            variables=values,
            settings=settings,
        ).run()
        healed.healed = True
        healed.message = f"The observed element no longer resolved ({reason}); healed: " + (
            healed.message
        )
        return healed
    return run.observed_result(observed, performed, user_facing)


def instruction_for(observed: ObserveResult) -> str:
    """An act() instruction that redoes what an observed result meant to do."""
    if observed.arguments:
        args = ", ".join(observed.arguments)
        return f"{observed.method} {args} on: {observed.description}"
    return f"{observed.method}: {observed.description}"
