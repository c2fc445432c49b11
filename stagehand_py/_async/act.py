"""The act() loop: settle, serialize, ask for one action per section, run it, verify.

One run is an :class:`AsyncActRun`. The model sees one chunk of the page at a time (nearest to
the scroll position first) and either acts on one of its numbered elements (``doAction``) or
passes (``skipSection``). Unusable replies go back to the model as tool errors a bounded
number of times. When the model says the goal is reached, a separate structured request on a
fresh snapshot (``verify_act_completion``) decides. Every string that leaves for the model or
the result is redacted of variable values first.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from playwright.async_api import Page as AsyncPage

from .._act_decision import DoAction, InvalidReply, SkipSection, decide
from .._config import Settings
from .._errors import ActErrorCode, ConfigurationError, PageError
from .._types import ActionRecord, ActResult, ObserveResult, Verification
from .._variables import Variables
from ..cache import ElementFingerprint
from ..dom import Element, Snapshot
from ..llm._messages import ChatResponse, Message, RequestOptions
from ..llm._usage import Usage
from ..prompts.act import (
    ACT_TOOLS,
    VerifyAnswer,
    build_act_messages,
    build_verify_messages,
    describe_step,
)
from ._deadline import DeadlineExceeded, call_with_deadline, run_with_deadline
from .cache_fingerprint import fingerprint_of_locator
from .executor import Performed, perform
from .inspect import take_snapshot
from .llm.base import AsyncLLM
from .locate import locate_selectors
from .secret_guard import secret_refusal
from .settle import settle

logger = logging.getLogger("stagehand_py")


@dataclass
class ActStep:
    """An action as run, with the element it was run on (for the action cache)."""

    record: ActionRecord
    element: Element | None  # None when replayed without a snapshot
    arguments: list[str]  # with placeholders
    fingerprint: ElementFingerprint | None = None


# A model, a function that creates one when first needed, or none (replays only).
LLMSource = AsyncLLM | Callable[[], AsyncLLM] | None


class _Stop(Exception):
    """Ends a run early with a failure message and its code (never escapes this module)."""

    def __init__(self, message: str, code: ActErrorCode) -> None:
        super().__init__(message)
        self.message = message
        self.code: ActErrorCode = code

    @property
    def timed_out(self) -> bool:
        return self.code == "TIMEOUT"


class AsyncActRun:
    """State of one act(): the page in use, steps so far, usage, the deadline."""

    def __init__(
        self,
        page: AsyncPage,
        llm: LLMSource,
        instruction: str,
        *,
        variables: Variables,
        settings: Settings,
        prior_steps: Sequence[ActStep] = (),
        capture_fingerprints: bool = False,
    ) -> None:
        self.page = page
        self._llm_source = llm
        self.instruction = instruction
        self.variables = variables
        self.settings = settings
        self.steps: list[ActStep] = list(prior_steps)
        # The action cache stores each element's fingerprint, read live before acting with
        # the same recipe the replay uses.
        self.capture_fingerprints = capture_fingerprints
        self.verifications: list[Verification] = []
        self.chunks_seen: list[int] = []
        self.usage = Usage()
        self.llm_calls = 0
        self.opened_pages: list[str] = []
        self._settled = False
        self._started = time.monotonic()
        self._deadline = self._started + settings.timeout_s

    # ----------------------------------------------------------------- time budget
    def _remaining_s(self) -> float:
        return self._deadline - time.monotonic()

    def _check_time(self) -> None:
        if self._remaining_s() <= 0:
            raise _Stop(self._timeout_message(), "TIMEOUT")

    def _timeout_message(self) -> str:
        return (
            f"act() ran out of time after {self.settings.timeout_s:g} s "
            f"({len(self.steps)} action(s) taken). Raise timeout_s if the page is slow."
        )

    def _cap_ms(self, ms: float) -> float:
        """A Playwright timeout that cannot carry the run past its deadline."""
        return max(1.0, min(ms, self._remaining_s() * 1000))

    # ----------------------------------------------------------------- model calls
    @property
    def _llm(self) -> AsyncLLM:
        """The model, created on first need (a cache replay or an observed action needs none)."""
        source = self._llm_source
        if source is None:
            raise ConfigurationError("This act needs a model, and none is configured.")
        if not isinstance(source, AsyncLLM):
            source = self._llm_source = source()
        return source

    async def _chat(self, messages: list[Message]) -> ChatResponse:
        self._check_time()
        try:
            response = await call_with_deadline(
                lambda: self._llm.chat(
                    messages,
                    ACT_TOOLS,
                    tool_choice="required",
                    options=RequestOptions(kind="act", timeout_s=self._remaining_s()),
                ),
                self._remaining_s(),
            )
        except DeadlineExceeded:
            raise _Stop(self._timeout_message(), "TIMEOUT") from None
        self.llm_calls += 1
        self.usage = self.usage + response.usage
        return response

    async def _verify(self, snapshot: Snapshot) -> Verification:
        text = self.variables.redact(snapshot.render_all())
        if len(text) > self.settings.max_prompt_chars:
            text = text[: self.settings.max_prompt_chars] + "\n(page text cut here)"
        messages = build_verify_messages(self.instruction, steps=self._step_lines(), page_text=text)
        self._check_time()
        try:
            answer = await call_with_deadline(
                lambda: self._llm.structured(
                    messages,
                    VerifyAnswer,
                    max_retries=1,
                    options=RequestOptions(kind="verify", timeout_s=self._remaining_s()),
                ),
                self._remaining_s(),
            )
        except DeadlineExceeded:
            raise _Stop(self._timeout_message(), "TIMEOUT") from None
        self.llm_calls += 1
        self.usage = self.usage + answer.usage
        verification = Verification(
            completed=answer.value.completed, reason=self.variables.redact(answer.value.reason)
        )
        self.verifications.append(verification)
        logger.info(
            "stagehand_py: verify %s: %s",
            "done" if verification.completed else "not yet",
            verification.reason,
        )
        return verification

    # ----------------------------------------------------------------- the loop
    def _step_lines(self) -> list[str]:
        return [self.variables.redact(s.record.description) for s in self.steps]

    async def _snapshot(self) -> Snapshot:
        # perform() settles after every action; only the first look needs its own wait.
        if not self._settled:
            await settle(self.page, timeout_ms=self._cap_ms(self.settings.settle_timeout_ms))
            self._settled = True
        return await take_snapshot(self.page)

    async def run(self) -> ActResult:
        """Run to success or a clear failure; never raises for an unreached goal."""
        try:
            # The deadline also ends page-side calls that have no timeout (hardening #13).
            message = await run_with_deadline(self._loop, self._remaining_s(), lambda: self.page)
            return self._result(True, message)
        except _Stop as stop:
            logger.info("stagehand_py: act failed: %s", stop.message)
            return self._result(False, stop.message, code=stop.code)
        except DeadlineExceeded as late:
            message = f"{self._timeout_message()} {late.note}".strip()
            logger.info("stagehand_py: act failed: %s", message)
            return self._result(False, message, code="TIMEOUT")

    async def _loop(self) -> str:
        seen: set[int] = set()
        while True:
            self._check_time()
            snapshot = await self._snapshot()
            order = [c for c in snapshot.chunk_order() if c not in seen]
            if not order:
                return await self._all_sections_refused(snapshot)
            chunk = order[0]
            seen.add(chunk)
            self.chunks_seen.append(chunk)
            decision = await self._turn(snapshot, chunk, len(seen))
            if isinstance(decision, SkipSection):
                continue
            seen.clear()  # the page may have changed: every section is new again
            if decision.completed:
                if not self.settings.verify:
                    return f"Done in {len(self.steps)} action(s) (not verified: verify=False)."
                verification = await self._verify(await self._snapshot())
                if verification.completed:
                    return f"Done in {len(self.steps)} action(s): {verification.reason}".strip()
            if len(self.steps) >= self.settings.max_steps:
                raise _Stop(
                    f"Stopped after max_steps={self.settings.max_steps} action(s) without "
                    "reaching the goal. Raise max_steps or split the instruction.",
                    "MAX_STEPS",
                )

    async def _all_sections_refused(self, snapshot: Snapshot) -> str:
        described = f"{len(snapshot.chunks)} section(s) of {snapshot.url}"
        if self.steps:
            # The model may have finished without saying so: let the verifier decide.
            verification = await self._verify(snapshot)
            if verification.completed:
                return f"Done in {len(self.steps)} action(s): {verification.reason}".strip()
            raise _Stop(
                f"After {len(self.steps)} action(s), no section of the page offered a next step "
                f"(looked at {described}); the verifier says: {verification.reason}",
                "GOAL_NOT_REACHED",
            )
        if not snapshot.elements:
            raise _Stop(
                f"{snapshot.url} shows nothing to act on (no visible text or controls). It may "
                "still be loading or be blank, or its content may be out of the serializer's "
                "reach (canvas, closed shadow roots, cross-origin frames).",
                "PAGE_EMPTY",
            )
        raise _Stop(
            f"No element matching the instruction was found: the model skipped all {described}. "
            "Check the instruction, or that the page shows what it needs.",
            "ALL_SECTIONS_SKIPPED",
        )

    async def _turn(
        self, snapshot: Snapshot, chunk: int, section_number: int
    ) -> DoAction | SkipSection:
        """One section: ask, re-ask on unusable replies, run the chosen action."""
        shown = snapshot.chunks[self._chunk_position(snapshot, chunk)].element_indexes
        messages = build_act_messages(
            self.instruction,
            steps=self._step_lines(),
            section_text=self.variables.redact(snapshot.render_chunk(chunk)),
            section_number=section_number,
            section_count=len(snapshot.chunks),
            variable_names=self.variables.names,
            url=self.variables.redact(snapshot.url),
        )
        problems: list[str] = []
        for _ in range(self.settings.max_reasks + 1):
            response = await self._chat(messages)
            decision = decide(response, set(shown))
            if isinstance(decision, DoAction):
                unknown = self.variables.unknown_placeholders(" ".join(decision.args))
                if unknown:
                    decision = InvalidReply(
                        f"Unknown variable(s) {', '.join(unknown)}. Available: "
                        f"{', '.join(self.variables.placeholders) or 'none'}.",
                        decision.call,
                    )
            if isinstance(decision, SkipSection):
                return decision
            if isinstance(decision, DoAction):
                try:
                    await self._act(snapshot, decision)
                    return decision
                except _ActionFailed as failed:
                    decision = InvalidReply(
                        f"{decision.method} on element {decision.element} failed: "
                        f"{failed.message}. Choose another element or method, or skipSection.",
                        decision.call,
                    )
            problems.append(decision.error)
            logger.info("stagehand_py: unusable reply, re-asking: %s", decision.error)
            messages = [*messages, *_feedback(decision, self.variables)]
        raise _Stop(
            f"The model gave no usable action after {self.settings.max_reasks + 1} tries. "
            f"Last problem: {self.variables.redact(problems[-1])}",
            "NO_USABLE_REPLY",
        )

    @staticmethod
    def _chunk_position(snapshot: Snapshot, chunk: int) -> int:
        for position, candidate in enumerate(snapshot.chunks):
            if candidate.index == chunk:
                return position
        raise PageError(f"Chunk {chunk} is not in the snapshot.")

    async def _act(self, snapshot: Snapshot, decision: DoAction) -> None:
        element = snapshot.element(decision.element)
        values = [self.variables.substitute(arg) for arg in decision.args]
        fingerprint = await self._fingerprint(element) if self.capture_fingerprints else None
        safe_args = [self.variables.redact(arg) for arg in decision.args]
        # A variable goes only into a plausible field on its own origin (hardening #13).
        refused = await secret_refusal(
            self.page, element, decision.method, decision.args, self.variables
        )
        if refused is not None:
            raise _ActionFailed(refused)
        try:
            performed = await perform(
                self.page,
                method=decision.method,
                selectors=element.selectors,
                frame=element.frame,
                args=values,
                timeout_ms=self._cap_ms(self.settings.action_timeout_ms),
                follow_new_tabs=self.settings.follow_new_tabs,
                settle_timeout_ms=self._cap_ms(self.settings.settle_timeout_ms),
                tag=element.tag,
            )
        except PageError as exc:
            # The page refused (covered element, detached node...): tell the model next turn.
            self._check_time()
            raise _ActionFailed(self.variables.redact(str(exc))) from None
        line = snapshot.render_element(decision.element)
        description = describe_step(
            decision.method, safe_args, self.variables.redact(decision.step), line
        )
        record = ActionRecord(
            method=decision.method,
            selector=self.variables.redact(performed.selector),
            selectors=[s for s in element.selectors if not self.variables.contains_secret(s)],
            frame=list(element.frame),
            arguments=safe_args,
            element=decision.element,
            description=self.variables.redact(description),
            reason=self.variables.redact(decision.why),
            url=self.variables.redact(self.page.url),
        )
        self.steps.append(
            ActStep(record=record, element=element, arguments=safe_args, fingerprint=fingerprint)
        )
        logger.info("stagehand_py: %s", record.description)
        if performed.opened:
            self.opened_pages.extend(p.url for p in performed.opened)
        self.page = performed.page

    async def _fingerprint(self, element: Element) -> ElementFingerprint | None:
        try:
            locator, _ = await locate_selectors(self.page, element.frame, element.selectors)
            return await fingerprint_of_locator(locator, timeout_ms=self._cap_ms(1000))
        except PageError:
            return None  # perform() reports the real problem

    def observed_result(self, observed: ObserveResult, performed: Performed) -> ActResult:
        """The result of running an observe() result directly (no model call)."""
        safe_args = [self.variables.redact(a) for a in observed.arguments]
        record = ActionRecord(
            method=observed.method,
            selector=performed.selector,
            selectors=[
                s
                for s in observed.selectors or [observed.selector]
                if not self.variables.contains_secret(s)
            ],
            frame=list(observed.frame),
            arguments=safe_args,
            element=observed.element,
            description=self.variables.redact(observed.description),
            url=self.variables.redact(self.page.url),
        )
        self.steps.append(ActStep(record=record, element=None, arguments=safe_args))
        self.opened_pages.extend(p.url for p in performed.opened)
        self.page = performed.page
        return self._result(True, "Ran the observed action without a model call.")

    def replayed_result(self, started: float) -> ActResult:
        """The result of a cache replay in which every step held (no model call)."""
        self._started = started
        result = self._result(True, f"Replayed {len(self.steps)} cached action(s).")
        result.cache = "hit"
        return result

    def _result(
        self, success: bool, message: str, *, code: ActErrorCode | None = None
    ) -> ActResult:
        return ActResult(
            success=success,
            message=self.variables.redact(message),
            instruction=self.variables.redact(self.instruction),
            actions=[s.record for s in self.steps],
            verifications=self.verifications,
            chunks_seen=self.chunks_seen,
            llm_calls=self.llm_calls,
            usage=self.usage,
            duration_s=time.monotonic() - self._started,
            opened_pages=[self.variables.redact(u) for u in self.opened_pages],
            timed_out=code == "TIMEOUT",
            code=code,
            page=self.page,
        )


class _ActionFailed(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _feedback(decision: InvalidReply, variables: Variables) -> list[Message]:
    """Messages that show the model its unusable reply and what was wrong with it."""
    error = variables.redact(decision.error)
    if decision.call is None:
        return [
            Message(role="assistant", content=variables.redact(decision.text)),
            Message(role="user", content=error),
        ]
    return [
        Message(role="assistant", tool_calls=[decision.call]),
        Message(role="tool", tool_call_id=decision.call.id, content=error, is_error=True),
    ]
