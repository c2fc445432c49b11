"""act()'s hands: the actions of one model reply, each checked against what the model saw
(:mod:`.checked`), run through the one executor and recorded.

The batch (:func:`~.batch.run_batch`) stops at the first action that cannot run, after an
action that navigated or opened a tab, or after the one the model marked as completing the
goal. When the first action cannot run, the reply is re-asked (or, when its element was
replaced, the page looked at again); a later one becomes a note for the next prompt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from playwright.async_api import Locator as AsyncLocator
from playwright.async_api import Page as AsyncPage

from ..._act_decision import Decision, DoAction, InvalidReply
from ..._errors import PageError
from ..._snapshot import Element, Snapshot
from ..._types import ActionRecord
from ...aria._ladder import readable_ladder
from ...cache import ElementFingerprint
from ...codegen import user_facing_call
from ...prompts.act import describe_step
from ..browser.executor import Performed, perform
from ..browser.secret_guard import known_frame, locator_refusal
from ..browser.settle import PageVersion
from ..browser.tracing import action_name
from ..browser.user_facing import user_facing_selector
from ..cache.fingerprint import fingerprint_of_locator
from .batch import run_batch
from .checked import ActionNotRun, ElementReplaced, by_ref, locate_checked
from .state import ActState


class ActionFailed(ActionNotRun):
    """The page refused the action (covered element, wrong kind of element...)."""


@dataclass
class BatchOutcome:
    """What a batch did. ``ran == 0`` with ``failure`` set: its first action could not run."""

    ran: int = 0
    completed: bool = False
    notes: list[str] = field(default_factory=list)
    failure: str = ""
    replaced: bool = False  # the failure is a replaced element: look again, do not re-ask
    version: PageVersion | None = None  # the page's version once the last action settled


async def act_batch(
    run: ActState,
    snapshot: Snapshot,
    decisions: list[Decision],
    version: PageVersion | None = None,
) -> BatchOutcome:
    """Run ``decisions`` (the first is a :class:`DoAction`) in order, as far as they hold.
    ``version``: the page's version read just before ``snapshot`` was taken (None: unknown,
    so the snapshot's ``aria-ref`` ids are never trusted)."""
    hands = _ActHands(run, snapshot, len(decisions), version)
    await run_batch(hands, decisions)
    return hands.outcome


class _ActHands:
    """act()'s side of the batch runner (see :class:`~.batch.AsyncHands`)."""

    def __init__(
        self, run: ActState, snapshot: Snapshot, total: int, version: PageVersion | None
    ) -> None:
        self.run_state = run
        self.redact = run.variables.redact
        self.snapshot = snapshot
        self.version = version
        self.outcome = BatchOutcome()
        self._total = total  # actions in the reply
        self._performed: Performed | None = None

    @property
    def page(self) -> AsyncPage:
        return self.run_state.page

    def name(self, decision: Decision) -> str:
        assert isinstance(decision, DoAction)  # ready() lets no other decision run
        return action_name(self.snapshot, decision, self.redact)

    async def ready(self, position: int, decision: Decision) -> bool:
        if not isinstance(decision, DoAction):
            if isinstance(decision, InvalidReply):
                self.run_state.attempt_failed(decision)
                self.outcome.notes.append(f"{_label(position)} was not run: {decision.error}")
            return False  # a skipSection/targetNotFound after actions has nothing left to say
        return len(self.run_state.steps) < self.run_state.settings.max_steps

    async def run(self, position: int, decision: Decision) -> bool:
        assert isinstance(decision, DoAction)
        outcome = self.outcome
        try:
            self._performed = await act_on(self.run_state, self.snapshot, decision, self.version)
        except ActionNotRun as problem:
            self.run_state.attempt_failed(decision)
            if outcome.ran == 0:
                outcome.failure = problem.message
                outcome.replaced = isinstance(problem, ElementReplaced)
            else:
                outcome.notes.append(
                    f"{_label(position)} ({decision.method} on element {decision.element}) "
                    f"was not run: {problem.message}"
                )
            return False
        outcome.ran += 1
        outcome.completed = decision.completed
        outcome.version = self._performed.after
        return True

    async def go_on(self, position: int, decision: Decision) -> bool:
        assert isinstance(decision, DoAction) and self._performed is not None
        if decision.completed:
            return False
        if self._performed.navigated:
            self.outcome.notes.append(
                f"The page changed to {self.redact(self.page.url)} after {_label(position)}; "
                f"the {self._rest(position)} action(s) after it were not run."
            )
            self.outcome.version = None
            return False
        return True

    def stopped(self, decisions: Sequence[Decision], error: BaseException | None) -> None:
        """Nothing to record: what was not run is in the notes already."""

    def _rest(self, position: int) -> int:
        return self._total - position - 1


def _label(position: int) -> str:
    return f"action {position + 1} of your last reply"


async def act_on(
    run: ActState, snapshot: Snapshot, decision: DoAction, version: PageVersion | None = None
) -> Performed:
    """Check, run and record one action (``version``: see :func:`act_batch`)."""
    element = snapshot.element(decision.element)
    located = await by_ref(run.page, element, version)
    via_ref = located is not None
    if located is None:
        located = await _locate_checked(run, snapshot, decision.element)
    # A variable goes only into a plausible field on its own origin; the refusal goes back
    # to the model like any action the page refused (hardening #13).
    refused = await locator_refusal(
        located[0],
        decision.method,
        decision.args,
        run.variables,
        timeout_ms=run.cap_ms(run.settings.action_timeout_ms),
        frame=known_frame(run.page, element.frame),
        selector=located[1],
    )
    if refused is not None:
        raise ActionFailed(refused)
    values = [run.variables.substitute(arg) for arg in decision.args]
    safe_args = [run.variables.redact(arg) for arg in decision.args]
    drag_target = None
    if decision.target is not None:
        drag_target = await _locate_checked(run, snapshot, decision.target, version)
        # Stored as the target's selector, so a cached step can find it again.
        values = safe_args = [drag_target[1]]
    fingerprint = await _live_fingerprint(run, located[0]) if run.capture_fingerprints else None
    user_facing = await _user_facing(run, element, located, via_ref)
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
    _record(run, snapshot, decision, performed, safe_args, fingerprint, user_facing)
    return performed


def _record(
    run: ActState,
    snapshot: Snapshot,
    decision: DoAction,
    performed: Performed,
    safe_args: list[str],
    fingerprint: ElementFingerprint | None,
    user_facing: str | None,
) -> None:
    """The step's record (redacted), kept on the run; the run follows the page it ended on."""
    element = snapshot.element(decision.element)
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
        user_facing_selector=user_facing,
    )
    run.record_step(record, element, safe_args, fingerprint, decision.confidence)
    if performed.opened:
        run.opened_pages.extend(p.url for p in performed.opened)
    run.page = performed.page


async def _locate_checked(
    run: ActState, snapshot: Snapshot, index: int, version: PageVersion | None = None
) -> tuple[AsyncLocator, str]:
    return await locate_checked(
        run.page,
        snapshot.element(index),
        version,
        timeout_ms=lambda: run.cap_ms(run.settings.action_timeout_ms),
        check_time=run.check_time,
    )


async def _user_facing(
    run: ActState, element: Element, located: tuple[AsyncLocator, str], via_ref: bool
) -> str | None:
    """The user-facing locator generated code will use, read before the action changes the
    page. Not looked for when the aria view's ladder holds one and the tree is still current
    (found through ``aria-ref``): its rungs were checked to find exactly the element."""
    if via_ref and any(user_facing_call(s) is not None for s in element.selectors):
        return None
    return await user_facing_selector(located[0], run.variables)


async def _live_fingerprint(run: ActState, locator: AsyncLocator) -> ElementFingerprint | None:
    """The fingerprint the action cache stores, read live with the replay's recipe."""
    try:
        return await fingerprint_of_locator(locator, timeout_ms=run.cap_ms(1000))
    except PageError:
        return None  # perform() reports the real problem
