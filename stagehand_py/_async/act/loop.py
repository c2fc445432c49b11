"""The act() loop: settle, serialize, ask for actions on part of the page, run them, verify.

One run is an :class:`AsyncActRun`. The model sees the page's chunks nearest to the scroll
position first, packed into one prompt up to ``max_section_chars``, and answers with one or
more ``doAction`` calls (run in order, each checked against what it saw: see
:mod:`.hands`), ``skipSection`` (show the next part) or ``targetNotFound`` (stop). The
snapshot is reused across skipped parts while the page's change counter stays the same; a
part the page changed after it was shown is offered again. Unusable replies go back to the
model as tool errors a bounded number of times. When the model says the goal is reached, a
separate structured request on a fresh snapshot (``verify_act_completion``) decides. Every
string that leaves for the model or the result is redacted of variable values first.

``Settings.snapshot`` picks the view (``"dom"`` or ``"aria"``); both give the same numbered,
chunked :class:`Snapshot`, so this one loop serves both. Only elements with a selector are
offered; an action whose element was re-rendered is retried once on the fresh snapshot without
a model call; a canvas target ends with CANVAS_UNSUPPORTED; when every part was skipped,
scrollable lists are searched (:mod:`.vlist`, before or after any action) before giving up.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from ..._act_decision import (
    Decision,
    DoAction,
    InvalidReply,
    SkipSection,
    TargetNotFound,
    decide_all,
)
from ..._act_targets import canvas_choice, canvas_message, offered, refused, same_element
from ..._sections import SectionTracker, first_group
from ..._snapshot import Snapshot
from ..._types import ActResult, Verification
from ..._variables import Variables
from ...llm._messages import Message
from ...llm._request_context import RequestContext, request_context
from ...prompts.act import build_act_messages
from .._deadline import DeadlineExceeded, run_with_deadline
from ..browser.inspect import take_snapshot
from ..browser.settle import PageVersion, page_version, settle
from .asking import ActAsking
from .hands import BatchOutcome, act_batch
from .state import ActStep, StopAct
from .vlist import AsyncListWalk

logger = logging.getLogger("stagehand_py")

__all__ = ["ActStep", "AsyncActRun"]


@dataclass
class _Look:
    """A snapshot, the page's version read just before it, and its rendered chunks.

    ``redact`` sees every raw page string before the rendering shapes it (collapses, caps,
    escapes), so a secret the page echoes is found however the page wrote it."""

    snapshot: Snapshot
    version: PageVersion | None
    redact: Callable[[str], str]
    _rendered: dict[int, str] = field(default_factory=dict)

    def content(self, chunk: int) -> str:
        if chunk not in self._rendered:
            self._rendered[chunk] = self.snapshot.render_chunk(chunk, redact=self.redact)
        return self._rendered[chunk]


@dataclass
class _TurnResult:
    kind: Literal["skip", "acted", "replaced"]
    batch: BatchOutcome | None = None
    note: str = ""
    look: _Look | None = None  # "replaced": the fresh look the retry already took


class AsyncActRun(ActAsking):
    """One act(): settle, look, ask, run, verify (state and records in :class:`ActState`)."""

    _lists: AsyncListWalk  # the virtualised-list search of the run (see .act_vlist)

    # ----------------------------------------------------------------- looking at the page
    async def _settle(self) -> PageVersion | None:
        return await settle(self.page, timeout_ms=self.cap_ms(self.settings.settle_timeout_ms))

    async def _look(self, version: PageVersion | None = None) -> _Look:
        """A fresh snapshot. The run's first look settles the page first; later ones follow a
        settle that already ran and read ``version`` (else it is read here), always before the
        snapshot, so a change in between makes the look out of date, never falsely current."""
        if not self._settled:
            version = await self._settle()
            self._settled = True
        if version is None:
            version = await page_version(self.page)
        snapshot = await take_snapshot(self.page, mode=self.emergency.view)
        return _Look(snapshot, version, self.variables.redact)

    async def _still_current(self, look: _Look) -> bool:
        """True while the DOM has not changed since ``look`` was taken."""
        return look.version is not None and await page_version(self.page) == look.version

    # ----------------------------------------------------------------- the loop
    async def run(self) -> ActResult:
        """Run to success or a clear failure; never raises for an unreached goal."""
        try:
            # The deadline also ends page-side calls that have no timeout (hardening #13);
            # emergency mode may start the loop over, within the same deadline.
            message = await run_with_deadline(
                functools.partial(self.emergency.run_loop, self._loop),
                self._remaining_s(),
                lambda: self.page,
            )
            return self._result(True, message)
        except StopAct as stop:
            logger.info("stagehand_py: act failed: %s", stop.message)
            return self._result(False, stop.message, code=stop.code, details=stop.details)
        except DeadlineExceeded as late:
            # An abandoned model request was counted where it was asked (ask_counted).
            message = self._timeout_message("model" if late.waiting_for_model else "page")
            message = f"{message} {late.note}".strip()
            logger.info("stagehand_py: act failed: %s", message)
            return self._result(False, message, code="TIMEOUT")

    async def _loop(self) -> str:
        sections = SectionTracker()
        look: _Look | None = None
        next_version: PageVersion | None = None  # read by the settle that preceded a new look
        notes: list[str] = []
        replaced_looks = 0
        lists = self._lists = AsyncListWalk(self)
        verdict: Verification | None = None  # the verifier's, once every part was skipped
        while True:
            self.check_time()
            if look is None:
                look = await self._look(next_version)
            elif not await self._still_current(look):
                look = await self._look(await self._settle())
            new = sections.new_chunks(look.snapshot.chunk_order(), look.content)
            if not new:
                # Before giving up, let the page settle once more: a menu or a message that
                # appeared meanwhile makes its section new again.
                version = await self._settle()
                if version is None or version != look.version:
                    look = await self._look(version)
                    new = sections.new_chunks(look.snapshot.chunk_order(), look.content)
                if not new and self.steps and verdict is None:
                    # After an action the goal may be reached already: ask before searching.
                    verdict = await self._verify(look.snapshot)
                    if verdict.completed:
                        return f"Done in {len(self.steps)} action(s): {verdict.reason}".strip()
                if not new and await lists.step():
                    # A virtualised list scrolled: show what came into view (same loop).
                    sections.scrolled()
                    look, next_version = None, await self._settle()
                    continue
                if not new:
                    return await self._all_sections_refused(look.snapshot, verdict)
            group = first_group(look.snapshot, new, self.settings.max_section_chars)
            sections.mark_shown(group, look.content)
            self.chunks_seen.extend(group)
            turn = await self._turn(look, group, unseen_after=len(new) - len(group), notes=notes)
            notes, next_version = [], None
            if turn.kind == "skip":
                continue
            look = None
            if turn.kind == "replaced":
                replaced_looks += 1
                if replaced_looks > self.settings.max_reasks:
                    raise StopAct(
                        f"The page kept replacing the element the model chose before it could "
                        f"be used ({turn.note}); looked again {replaced_looks - 1} time(s). Let "
                        "the page finish updating before act(), or raise max_reasks.",
                        "ELEMENT_REPLACED",
                    )
                sections.forget(group)
                notes = [f"Your last choice was not run: {turn.note}. Here is the page again."]
                look = turn.look
                if look is None:
                    next_version = await self._settle()
                continue
            batch = turn.batch
            assert batch is not None
            lists.found()
            # The page changed: a later list search starts over (every container again).
            lists = self._lists = AsyncListWalk(self)
            verdict = None
            replaced_looks = 0
            sections.reset()
            notes, next_version = batch.notes, batch.version
            if batch.completed:
                if not self.settings.verify:
                    return f"Done in {len(self.steps)} action(s) (not verified: verify=False)."
                look = await self._look(next_version)
                verification = await self._verify(look.snapshot)
                if verification.completed:
                    return f"Done in {len(self.steps)} action(s): {verification.reason}".strip()
            if len(self.steps) >= self.settings.max_steps:
                raise StopAct(
                    f"Stopped after max_steps={self.settings.max_steps} action(s) without "
                    "reaching the goal. Raise max_steps or split the instruction.",
                    "MAX_STEPS",
                )

    async def _all_sections_refused(
        self, snapshot: Snapshot, verification: Verification | None = None
    ) -> str:
        """End the run when every part was skipped (``verification``: the verifier's answer
        already given for this page, after an action)."""
        described = f"{len(snapshot.chunks)} section(s) of {snapshot.url}"
        if self.steps:
            # The model may have finished without saying so: let the verifier decide.
            if verification is None:
                verification = await self._verify(snapshot)
            if verification.completed:
                return f"Done in {len(self.steps)} action(s): {verification.reason}".strip()
            not_reached = self._lists.not_reached()
            if not_reached is not None:
                raise not_reached
            raise StopAct(
                f"After {len(self.steps)} action(s), no section of the page offered a next step "
                f"(looked at {described}); the verifier says: {verification.reason}",
                "GOAL_NOT_REACHED",
            )
        not_reached = self._lists.not_reached()
        if not_reached is not None:
            raise not_reached
        if not snapshot.elements:
            raise StopAct(
                f"{snapshot.url} shows nothing to act on (no visible text or controls). It may "
                "still be loading or be blank, or its content may be out of the serializer's "
                "reach (canvas, closed shadow roots).",
                "PAGE_EMPTY",
            )
        raise StopAct(
            f"No element matching the instruction was found: the model skipped all {described}. "
            "Check the instruction, or that the page shows what it needs.",
            "ALL_SECTIONS_SKIPPED",
        )

    async def _turn(
        self, look: _Look, group: list[int], *, unseen_after: int, notes: Sequence[str]
    ) -> _TurnResult:
        """One prompt: ask, re-ask on unusable replies, run the chosen actions."""
        snapshot = look.snapshot
        in_order = sorted(group)  # the model reads the part shown top to bottom
        # Only enabled elements with a selector are offered (pre-check: a ladder with no
        # unique rung); picking one of the others is re-asked with the reason.
        shown, not_offered = offered(snapshot, group), refused(snapshot, group)
        messages = build_act_messages(
            self._said,  # a variable's value written into the instruction stays a placeholder
            steps=self._step_lines(),
            section_text=self.variables.redact("\n".join(look.content(c) for c in in_order)),
            section_number=snapshot.chunk_order().index(group[0]) + 1,
            section_count=len(snapshot.chunks),
            variable_names=self.variables.names,
            url=self.variables.redact(snapshot.url),
            sections_shown=len(group),
            unseen_after=unseen_after,
            notes=[self.variables.redact(n) for n in notes],
        )
        problems: list[str] = []
        for attempt in range(1, self.settings.max_reasks + 2):
            context = RequestContext(
                "act",
                self._said,
                snapshot,
                tuple(in_order),
                frozenset(shown),
                len(self.steps),
                attempt,
            )
            with request_context(context):  # for test fakes: what this request shows
                response = await self._chat(messages)
            decisions = [self._check_variables(d) for d in decide_all(response, shown, not_offered)]
            first = decisions[0]
            if isinstance(first, SkipSection):
                return _TurnResult("skip")
            if isinstance(first, TargetNotFound):
                raise StopAct(
                    f"The model found no target for the goal on {snapshot.url}: "
                    f"{first.reason or 'no reason given'}",
                    "TARGET_NOT_FOUND",
                )
            if isinstance(first, DoAction):
                canvas = canvas_choice(snapshot, decisions)
                if canvas is not None:
                    raise StopAct(canvas_message(canvas, snapshot.url), "CANVAS_UNSUPPORTED")
                batch = await act_batch(self, snapshot, decisions, look.version)
                if batch.ran:
                    return _TurnResult("acted", batch)
                if batch.replaced:
                    retried, fresh = await self._retry_without_model(snapshot, decisions)
                    if retried is not None:
                        return _TurnResult("acted", retried)
                    return _TurnResult("replaced", note=batch.failure, look=fresh)
                decisions[0] = first = InvalidReply(
                    f"{first.method} on element {first.element} failed: {batch.failure}. "
                    "Choose another element or method, or skipSection.",
                    first.call,
                )
            else:
                self.attempt_failed(first)
            problems.append(first.error)
            logger.info("stagehand_py: unusable reply, re-asking: %s", first.error)
            messages = [*messages, *_feedback(decisions, self.variables)]
        # Failures may trigger emergency mode: the fallback's turn.
        self.escalate_if_due((await self._model()).model)
        raise StopAct(
            f"The model gave no usable action after {self.settings.max_reasks + 1} tries. "
            f"Last problem: {self.variables.redact(problems[-1])}",
            "NO_USABLE_REPLY",
        )

    async def _retry_without_model(
        self, seen: Snapshot, decisions: list[Decision]
    ) -> tuple[BatchOutcome | None, _Look]:
        """The chosen element no longer resolved (counted as a failed attempt): look again
        and, when every element of the reply is found again unchanged, run the reply on the
        fresh snapshot without asking the model. ``(None, look)`` when that cannot be done:
        the model is then shown ``look``."""
        look = await self._look(await self._settle())
        retargeted: list[Decision] = []
        for decision in decisions:
            if not isinstance(decision, DoAction):
                break
            element = same_element(seen.element(decision.element), look.snapshot)
            target = decision.target
            if target is not None:
                target = same_element(seen.element(target), look.snapshot)
                if target is None:
                    return None, look
            if element is None:
                return None, look
            retargeted.append(replace(decision, element=element, target=target))
        logger.info("stagehand_py: chosen element re-rendered; retrying without the model")
        batch = await act_batch(self, look.snapshot, retargeted, look.version)
        return (batch, look) if batch.ran else (None, look)

    def _check_variables(self, decision: Decision) -> Decision:
        """A placeholder the user did not define is refused (never typed in literally)."""
        if not isinstance(decision, DoAction):
            return decision
        unknown = self.variables.unknown_placeholders(" ".join(decision.args))
        if not unknown:
            return decision
        return InvalidReply(
            f"Unknown variable(s) {', '.join(unknown)}. Available: "
            f"{', '.join(self.variables.placeholders) or 'none'}.",
            decision.call,
            confidence=decision.confidence,
        )


def _feedback(decisions: list[Decision], variables: Variables) -> list[Message]:
    """Messages that show the model its unusable reply and what was wrong with it: the first
    decision's error, and for every other call of the reply that it was not run."""
    first = decisions[0]
    assert isinstance(first, InvalidReply)
    error = variables.redact(first.error)
    if first.call is None:
        return [
            Message(role="assistant", content=variables.redact(first.text)),
            Message(role="user", content=error),
        ]
    calls = [d.call for d in decisions if d.call is not None]
    answers = [Message(role="tool", tool_call_id=first.call.id, content=error, is_error=True)]
    answers += [
        Message(
            role="tool",
            tool_call_id=call.id,
            content="Not run: the first call of this reply could not be used.",
            is_error=True,
        )
        for call in calls[1:]
    ]
    return [Message(role="assistant", tool_calls=calls), *answers]
