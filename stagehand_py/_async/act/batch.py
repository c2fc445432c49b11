"""Running the actions of one model reply (a batch), each checked against what the model saw.

Before each action its element is looked up by the snapshot's selectors and confirmed by
fingerprint (the cache's machinery): a selector that now lands on another element is passed
over, and when no selector finds the element the model saw, it is not acted on (the loop looks
again). In the accessibility-tree view, while the page has not changed since the snapshot, the
snapshot's ``aria-ref`` finds the element instead (records still keep the ladder). The batch
stops at the first action that cannot run, after an action that navigated or opened a tab, or
after the one the model marked as completing the goal.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator as AsyncLocator

from ..._act_decision import Decision, DoAction, InvalidReply
from ..._errors import ElementNotFoundError, PageError
from ..._snapshot import Element, Snapshot
from ..._types import ActionRecord
from ...aria._ladder import readable_ladder
from ...cache import ElementFingerprint
from ...cache._fingerprint import fingerprint_from_element
from ...prompts.act import describe_step
from ..aria.checks import same_node
from ..browser.executor import Performed, perform
from ..browser.locate import frame_scope
from ..browser.secret_guard import locator_refusal
from ..browser.settle import PageVersion, page_version
from ..browser.tracing import AsyncTraceGroup, action_name
from ..cache.fingerprint import fingerprint_of_locator, locate_fingerprinted
from .state import ActState

logger = logging.getLogger("stagehand_py")


class ActionFailed(Exception):
    """The page refused the action (covered element, wrong kind of element...)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ElementReplaced(Exception):
    """The element the model chose is no longer on the page as it saw it."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass
class BatchOutcome:
    """What a batch did. ``ran == 0`` with ``failure`` set: its first action could not run."""

    ran: int = 0
    completed: bool = False
    notes: list[str] = field(default_factory=list)
    failure: str = ""
    replaced: bool = False  # the failure is a replaced element: look again, do not re-ask
    version: PageVersion | None = None  # the page's version once the last action settled


async def run_batch(
    run: ActState,
    snapshot: Snapshot,
    decisions: list[Decision],
    version: PageVersion | None = None,
) -> BatchOutcome:
    """Run ``decisions`` (the first is a :class:`DoAction`) in order, as far as they hold.
    ``version``: the page's version read just before ``snapshot`` was taken (None: unknown,
    so the snapshot's ``aria-ref`` ids are never trusted)."""
    outcome = BatchOutcome()
    redact = run.variables.redact
    for position, decision in enumerate(decisions):
        label = f"action {position + 1} of your last reply"
        if not isinstance(decision, DoAction):
            if isinstance(decision, InvalidReply):
                run.attempt_failed(decision)
                outcome.notes.append(f"{label} was not run: {decision.error}")
            break  # a skipSection/targetNotFound after actions has nothing left to say
        if len(run.steps) >= run.settings.max_steps:
            break
        try:
            async with AsyncTraceGroup(run.page, action_name(snapshot, decision, redact), redact):
                performed = await act_on(run, snapshot, decision, version)
        except (ElementReplaced, ActionFailed) as problem:
            run.attempt_failed(decision)
            if outcome.ran == 0:
                outcome.failure = problem.message
                outcome.replaced = isinstance(problem, ElementReplaced)
                return outcome
            outcome.notes.append(
                f"{label} ({decision.method} on element {decision.element}) "
                f"was not run: {problem.message}"
            )
            break
        outcome.ran += 1
        outcome.completed = decision.completed
        outcome.version = performed.after
        rest = len(decisions) - position - 1
        if decision.completed or not rest:
            break
        if performed.navigated:
            outcome.notes.append(
                f"The page changed to {run.variables.redact(run.page.url)} after {label}; the "
                f"{rest} action(s) after it were not run."
            )
            outcome.version = None
            break
    return outcome


async def by_ref(
    run: ActState, element: Element, version: PageVersion | None
) -> tuple[AsyncLocator, str] | None:
    """An accessibility-tree element through its ``aria-ref`` while the snapshot is current
    (the page's version unchanged since it was taken): ``(locator, top ladder rung)``, the
    rung being what records and the cache keep. None when the ref cannot be trusted."""
    if element.view != "aria" or not element.ref or not element.selectors or version is None:
        return None
    if await page_version(run.page) != version:
        return None
    scope = await frame_scope(run.page, element.frame)
    locator = scope.locator(f"aria-ref={element.ref}")
    try:
        if await locator.count() != 1:
            return None
    except PlaywrightError:  # a ref from an older snapshot, or a frame that is gone
        return None
    logger.debug("stagehand_py: element %d located through aria-ref", element.index)
    return locator, element.selectors[0]


async def locate_checked(
    run: ActState, element: Element, version: PageVersion | None = None
) -> tuple[AsyncLocator, str]:
    """The element through its ``aria-ref`` while the snapshot taken at ``version`` is current
    (see :func:`by_ref`), else through its selectors, confirmed to be the one the model saw."""
    located = await by_ref(run, element, version)
    if located is not None:
        return located
    # A bare text node has no element of its own to compare with: its selectors are enough.
    # An accessibility-tree element's attributes are the tree's (not the DOM's): it is
    # compared by its role and accessible name instead (same_node, below).
    fingerprint = (
        None
        if element.tag == "#text" or element.view == "aria"
        else fingerprint_from_element(element)
    )
    if fingerprint is not None and not fingerprint.identifiable:
        # Nothing to compare (a text-less, attribute-less icon): the stored selectors, tried
        # in order, are all that can find it; "cannot tell" must not read as "replaced".
        fingerprint = None
    replaced = ElementReplaced(
        f"element {element.index} is no longer on the page as you saw it (the page replaced "
        "or removed it)"
    )
    try:
        located = await locate_fingerprinted(
            run.page,
            element.frame,
            element.selectors,
            fingerprint,
            timeout_ms=run.cap_ms(run.settings.action_timeout_ms),
        )
    except ElementNotFoundError:
        run.check_time()
        raise replaced from None
    # The page changed since the tree was read (else by_ref had found it): a lower rung may
    # find a re-rendered element; it must still be the node the model saw.
    if element.view == "aria" and not await same_node(
        located[0], element, timeout_ms=run.cap_ms(run.settings.action_timeout_ms)
    ):
        run.check_time()
        raise replaced
    return located


async def act_on(
    run: ActState, snapshot: Snapshot, decision: DoAction, version: PageVersion | None = None
) -> Performed:
    """Check, run and record one action (``version``: see :func:`run_batch`)."""
    element = snapshot.element(decision.element)
    located = await by_ref(run, element, version)
    via_ref = located is not None
    if located is None:
        located = await locate_checked(run, element)
    # A variable goes only into a plausible field on its own origin; the refusal goes back
    # to the model like any action the page refused (hardening #13).
    refused = await locator_refusal(
        located[0],
        decision.method,
        decision.args,
        run.variables,
        timeout_ms=run.cap_ms(run.settings.action_timeout_ms),
    )
    if refused is not None:
        raise ActionFailed(refused)
    values = [run.variables.substitute(arg) for arg in decision.args]
    safe_args = [run.variables.redact(arg) for arg in decision.args]
    drag_target = None
    if decision.target is not None:
        drag_target = await locate_checked(run, snapshot.element(decision.target), version)
        # Stored as the target's selector, so a cached step can find it again.
        values = safe_args = [drag_target[1]]
    fingerprint = await _live_fingerprint(run, located[0]) if run.capture_fingerprints else None
    try:
        performed = await perform(
            run.page,
            method=decision.method,
            selectors=element.selectors,
            frame=element.frame,
            args=values,
            timeout_ms=run.cap_ms(run.settings.action_timeout_ms),
            follow_new_tabs=run.settings.follow_new_tabs,
            settle_timeout_ms=run.cap_ms(run.settings.settle_timeout_ms),
            located=located,
            tag=element.tag,
            drag_target=drag_target,
        )
    except PageError as exc:
        run.check_time()
        raise ActionFailed(run.variables.redact(str(exc))) from None
    performed = replace(performed, via_ref=via_ref)
    line = snapshot.render_element(decision.element, redact=run.variables.redact)
    if decision.target is not None:
        line += " onto " + snapshot.render_element(decision.target, redact=run.variables.redact)
    shown_args = [] if decision.target is not None else safe_args
    description = describe_step(
        decision.method, shown_args, run.variables.redact(decision.step), line
    )
    kept = run.variables.without_secrets(element.selectors)
    record = ActionRecord(
        method=decision.method,
        selector=run.variables.redact(performed.selector),
        # A selector quoting the page's echo of a value cannot be redacted and still work.
        selectors=kept,
        frame=list(element.frame),
        arguments=safe_args,
        element=decision.element,
        description=run.variables.redact(description),
        reason=run.variables.redact(decision.why),
        url=run.variables.redact(run.page.url),
        confidence=decision.confidence,
        ladder=readable_ladder(element.view, kept, element.frame),
    )
    run.record_step(record, element, safe_args, fingerprint, decision.confidence)
    if performed.opened:
        run.opened_pages.extend(p.url for p in performed.opened)
    run.page = performed.page
    return performed


async def _live_fingerprint(run: ActState, locator: AsyncLocator) -> ElementFingerprint | None:
    """The fingerprint the action cache stores, read live with the replay's recipe."""
    try:
        return await fingerprint_of_locator(locator, timeout_ms=run.cap_ms(1000))
    except PageError:
        return None  # perform() reports the real problem
