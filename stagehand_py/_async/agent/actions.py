"""The agent's hands: one proposed action, run through the package's one executor.

An element action's element is found through act()'s checked locate (:func:`locate_checked`:
the element the model saw, by fingerprint, and in the accessibility-tree view the very node
the tree showed; a page that swapped it meanwhile gets no action), then run by the browser
room's executor (``perform``: the allow-list, label clicks, new-tab following, settling);
scrolling goes through its ``scroll``; reading through :func:`extract`. The agent adds only
what is not about an element: navigation, tabs and waiting. Variable values are substituted
here, right before the executor runs, and never stored. A failure becomes an ``error``
outcome for the model to read next step, never an exception.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator as AsyncLocator
from playwright.async_api import Page as AsyncPage

from ..._error_line import first_line
from ..._errors import ConfigurationError, ExtractError, LLMError, PageError
from ..._snapshot import Element
from ..._usage import Usage
from ..._variables import Variables
from ...agent._actions import (
    AgentAction,
    CloseTabAction,
    ElementAction,
    ElementActionBase,
    ExtractAction,
    FillAction,
    GoBackAction,
    NavigateAction,
    PressAction,
    ScrollAction,
    SelectOptionAction,
    SwitchTabAction,
    TypeAction,
    WaitAction,
    action_confidence,
    action_params,
    describe_action,
)
from ...agent._clock import RunClock, StepFailed, StepTimedOut
from ...agent._history import ActionOutcome, redacted
from ...agent._navigation import navigation_problem
from ...agent._settings import AgentSettings
from ..act.checked import ActionNotRun, locate_checked
from ..browser.executor import perform, scroll
from ..browser.secret_guard import known_frame, locator_refusal
from ..extract.read import ExtractOutcome, extract
from ..llm.base import AsyncLLM
from .domains import AllowedDomains, AllowedPlace, return_to, urls_now
from .observe import AsyncDownloadTracker, Observation, open_pages, same_page

_WAIT_SLICE_S = 0.1


@dataclass
class AsyncActionContext:
    """What running the actions of one step needs; ``page`` follows tab changes."""

    page: AsyncPage
    observation: Observation
    variables: Variables
    settings: AgentSettings
    clock: RunClock
    llm: AsyncLLM
    checkpoint: Callable[[], Awaitable[None]]
    usage: Usage = field(default_factory=Usage)
    settled: bool = True  # False when the page may still be moving after the last action
    downloads: AsyncDownloadTracker | None = None  # the run's, to wait for a link's download
    # allowed_domains and the page of the step's look (where a page that left them goes back).
    domains: AllowedDomains | None = None
    place: AllowedPlace | None = None


# How long a click on a download link waits for its download to start (server answer time).
_DOWNLOAD_START_MS = 5000


def _element_call(action: ElementAction) -> tuple[str, list[str]]:
    """The executor method and arguments (with placeholders) of an element action."""
    if isinstance(action, (FillAction, TypeAction)):
        return action.action, [action.text]
    if isinstance(action, SelectOptionAction):
        return "select_option", [action.option]
    if isinstance(action, PressAction):
        return "press", [action.key]
    return action.action, []  # click, check, uncheck, hover: no arguments


async def run_action(ctx: AsyncActionContext, action: AgentAction) -> ActionOutcome:
    """Run ``action``; an ``error`` outcome says what went wrong."""
    redact = ctx.variables.redact
    index = getattr(action, "index", None)
    line = ctx.observation.state.element_line(index) if isinstance(index, int) else None
    outcome = ActionOutcome(
        action=action.action,
        params=redacted(action_params(action), redact),
        description=redact(describe_action(action, line)),
        confidence=action_confidence(action),
    )
    before_page, before_url = ctx.page, ctx.page.url
    ctx.clock.check()
    if await _moved_outside(ctx, outcome):
        outcome.url = redact(ctx.page.url)
        return outcome
    try:
        await _dispatch(ctx, action, outcome)
    except (PageError, PlaywrightError) as exc:
        outcome.status, outcome.error = "error", redact(first_line(exc))
    except (ExtractError, LLMError, ConfigurationError) as exc:
        outcome.status, outcome.error = "error", redact(first_line(exc))
    except StepTimedOut:
        raise
    except StepFailed as exc:  # the model of an extract did not answer in time
        outcome.status, outcome.error = "error", redact(exc.message)
    except ActionNotRun as exc:  # the page replaced or changed the element the model chose
        outcome.status, outcome.error = "error", redact(exc.message)
    if outcome.ok:
        await _keep_to_allowed_domains(ctx, before_page, before_url, outcome)
    outcome.url = redact(ctx.page.url)
    return outcome


async def _dispatch(ctx: AsyncActionContext, action: AgentAction, outcome: ActionOutcome) -> None:
    if isinstance(action, ElementActionBase):
        await _element_action(ctx, action.index, _element_call(action), outcome)
    elif isinstance(action, ScrollAction):
        await _scroll(ctx, action, outcome)
    elif isinstance(action, NavigateAction):
        await _navigate(ctx, action, outcome)
    elif isinstance(action, GoBackAction):
        await _go_back(ctx, outcome)
    elif isinstance(action, (SwitchTabAction, CloseTabAction)):
        await _tab_action(ctx, action, outcome)
    elif isinstance(action, WaitAction):
        await _wait(ctx, action, outcome)
    elif isinstance(action, ExtractAction):
        await _extract(ctx, action, outcome)
    else:  # done is handled by the loop; nothing else passes validation
        outcome.status, outcome.error = "error", f"{action.action} cannot be run here"


async def _element_action(
    ctx: AsyncActionContext, index: int, call: tuple[str, list[str]], outcome: ActionOutcome
) -> None:
    element = ctx.observation.snapshot.element(index)
    method, args = call
    located = await _located(ctx, element)
    # A variable goes only into a plausible field on the origin the run started on (#13).
    refused = await locator_refusal(
        located[0],
        method,
        args,
        ctx.variables,
        timeout_ms=ctx.clock.cap_ms(2000),
        frame=known_frame(ctx.page, element.frame),
        selector=located[1],
    )
    if refused is not None:
        outcome.status, outcome.error = "error", refused
        return
    downloads_seen = await _download_link_clicked(ctx, located[0], element, method)
    performed = await perform(
        ctx.page,
        method=method,
        selectors=element.selectors,
        frame=element.frame,
        args=[ctx.variables.substitute(arg) for arg in args],  # values only from here on
        timeout_ms=ctx.clock.cap_ms(ctx.settings.action_timeout_ms),
        follow_new_tabs=True,
        settle_timeout_ms=ctx.clock.cap_ms(ctx.settings.settle_timeout_ms),
        located=located,
        tag=element.tag,
    )
    if downloads_seen is not None and ctx.downloads is not None:
        started = await ctx.downloads.wait_for_start(
            performed.page, downloads_seen, ctx.clock.cap_ms(_DOWNLOAD_START_MS)
        )
        if not started:
            outcome.note = "a download link: no download started"
    outcome.selector = ctx.variables.redact(performed.selector)
    outcome.selectors = [ctx.variables.redact(s) for s in element.selectors]
    outcome.frame = [ctx.variables.redact(s) for s in element.frame]
    if performed.opened:
        outcome.note = f"opened {len(performed.opened)} new tab(s)"
    if performed.via_label:
        outcome.note = "clicked through its label"
    ctx.page = performed.page
    ctx.settled = True


async def _located(ctx: AsyncActionContext, element: Element) -> tuple[AsyncLocator, str]:
    """The element the model saw, through act()'s checked locate (raises ActionNotRun when
    the page replaced or changed it since the look)."""
    return await locate_checked(
        ctx.page,
        element,
        ctx.observation.version,
        timeout_ms=lambda: ctx.clock.cap_ms(ctx.settings.action_timeout_ms),
        check_time=ctx.clock.check,
    )


async def _download_link_clicked(
    ctx: AsyncActionContext, locator: AsyncLocator, element: Element, method: str
) -> int | None:
    """For a click on an ``<a download>`` link: the downloads seen before it (the click
    returns before the download starts); None for any other action."""
    if method != "click" or element.tag != "a" or ctx.downloads is None:
        return None
    try:
        marked = await locator.get_attribute("download", timeout=ctx.clock.cap_ms(2000))
    except (PageError, PlaywrightError):
        return None  # perform() reports a missing element itself
    return ctx.downloads.started if marked is not None else None


async def _scroll(ctx: AsyncActionContext, action: ScrollAction, outcome: ActionOutcome) -> None:
    if action.index is None:
        locator = ctx.page.locator(":root")
    else:
        element = ctx.observation.snapshot.element(action.index)
        locator, selector = await _located(ctx, element)
        outcome.selector = ctx.variables.redact(selector)
        outcome.frame = [ctx.variables.redact(s) for s in element.frame]
    where = await scroll(
        locator,
        action.direction,
        pages=action.pages,
        timeout_ms=ctx.clock.cap_ms(ctx.settings.action_timeout_ms),
    )
    if where.moved:
        outcome.note = f"moved {where.after - where.before:+.0f} px to {where.after:.0f} of "
        outcome.note += f"{where.max:.0f}"
    elif where.max <= 0:
        outcome.note = "did not move: there is nothing to scroll"
    else:
        outcome.note = f"did not move: already at the {'top' if where.after <= 0 else 'end'}"
    ctx.settled = False


async def _navigate(
    ctx: AsyncActionContext, action: NavigateAction, outcome: ActionOutcome
) -> None:
    problem = navigation_problem(action.url, ctx.settings.allowed_domains)
    if problem is not None:  # checked before approval too; the page is never trusted
        outcome.status, outcome.error = "error", problem
        return
    response = await ctx.page.goto(
        action.url, wait_until="domcontentloaded", timeout=ctx.clock.cap_ms(30_000)
    )
    if response is not None and response.status >= 400:
        outcome.note = f"the server answered HTTP {response.status}"
    ctx.settled = False


async def _go_back(ctx: AsyncActionContext, outcome: ActionOutcome) -> None:
    before = ctx.page.url
    response = await ctx.page.go_back(
        wait_until="domcontentloaded", timeout=ctx.clock.cap_ms(30_000)
    )
    if response is None and ctx.page.url == before:
        outcome.status, outcome.error = "error", "there is no previous page in this tab"
    ctx.settled = False


async def _tab_action(
    ctx: AsyncActionContext, action: SwitchTabAction | CloseTabAction, outcome: ActionOutcome
) -> None:
    tabs = open_pages(ctx.page)
    if action.tab >= len(tabs):
        outcome.status, outcome.error = "error", f"there is no tab {action.tab} any more"
        return
    target = tabs[action.tab]
    if isinstance(action, SwitchTabAction):
        await target.bring_to_front()
        ctx.page = target
    else:
        if len(tabs) == 1:
            outcome.status, outcome.error = "error", "the only open tab cannot be closed"
            return
        remaining = [tab for tab in tabs if not same_page(tab, target)]
        closing_current = same_page(target, ctx.page)
        await target.close()
        if closing_current:
            ctx.page = remaining[-1]
            await ctx.page.bring_to_front()
    ctx.settled = False


async def _wait(ctx: AsyncActionContext, action: WaitAction, outcome: ActionOutcome) -> None:
    seconds = min(action.seconds, ctx.settings.max_wait_s, max(0.0, ctx.clock.left()))
    outcome.note = f"waited {seconds:g} s"
    waited = 0.0
    while waited < seconds:  # in slices, so pause/stop are honoured during a long wait
        await ctx.checkpoint()
        await asyncio.sleep(min(_WAIT_SLICE_S, seconds - waited))
        waited += _WAIT_SLICE_S
    ctx.settled = False


async def _extract(ctx: AsyncActionContext, action: ExtractAction, outcome: ActionOutcome) -> None:
    result = ExtractOutcome(value=None)  # filled as it goes: a failure still has its cost
    try:
        await extract(
            ctx.page,
            ctx.llm,
            ctx.variables.redact(action.instruction),
            action.schema_,
            max_retries=ctx.settings.max_reasks,
            redact=ctx.variables.redact,
            outcome=result,
        )
    finally:
        ctx.usage = ctx.usage + result.usage
    value: Any = result.value
    if action.schema_ is None and isinstance(value, dict) and set(value) == {"text"}:
        value = value["text"]
    outcome.extracted = redacted(value, ctx.variables.redact)
    size = len(value) if isinstance(value, str) else len(json.dumps(value, default=str))
    outcome.note = f"{size} characters extracted"


async def _moved_outside(ctx: AsyncActionContext, outcome: ActionOutcome) -> bool:
    """The page left ``allowed_domains`` since the look (a redirect that landed while the
    model thought): the action does not run there; the page goes back."""
    domains, place = ctx.domains, ctx.place
    if domains is None or place is None or not domains.limited:
        return False
    # page.url holds such a navigation only once Playwright's driver has delivered its event:
    # one round trip to the driver; and the page itself is asked where it is (urls_now).
    with contextlib.suppress(PlaywrightError):
        await ctx.page.wait_for_timeout(0)
    hosts = [domains.outside(url) for url in await urls_now(ctx.page)]
    host = next((h for h in hosts if h is not None), None)
    if host is None:
        return False
    ctx.page, undone = await return_to(ctx.page, place, ctx.clock)
    ctx.settled = False
    outcome.status = "error"
    outcome.error = ctx.variables.redact(
        f"the page moved to {host}, outside allowed_domains, before this action could run; {undone}"
    )
    return True


async def _keep_to_allowed_domains(
    ctx: AsyncActionContext, before_page: AsyncPage, before_url: str, outcome: ActionOutcome
) -> None:
    """A click may lead anywhere the page links to: outside ``allowed_domains`` is undone."""
    url = ctx.page.url
    if ctx.domains is None or url == before_url or ctx.domains.allows(url):
        return
    ctx.page, undone = await return_to(ctx.page, AllowedPlace(before_page, before_url), ctx.clock)
    outcome.status = "error"
    outcome.error = (
        f"it led to {ctx.variables.redact(url)}, which is outside allowed_domains; {undone}"
    )
    ctx.settled = False
