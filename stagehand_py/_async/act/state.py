"""What one act() run holds: its state, its time budget, and the records it returns.

:class:`~.asking.ActAsking` adds the model requests, and :class:`~.loop.AsyncActRun` the loop.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import KW_ONLY, InitVar, dataclass
from typing import Any, Literal

from playwright.async_api import Page as AsyncPage

from ..._act_decision import DoAction, InvalidReply
from ..._config import Settings
from ..._deadline_clock import current_deadline
from ..._snapshot import Element
from ..._types import ActErrorCode, ActionRecord, ActResult, ObserveResult, Verification
from ..._usage import Usage
from ..._variables import Variables
from ...cache import ElementFingerprint
from ..browser.executor import Performed
from ..emergency import ActEmergency, Escalated
from ..llm.source import ModelSource

logger = logging.getLogger("stagehand_py")

# ActResult.confidence averages this many of the latest action attempts.
CONFIDENCE_WINDOW = 5


@dataclass
class ActStep:
    """An action as run, with the element it was run on (for the action cache)."""

    record: ActionRecord
    element: Element | None  # None when replayed without a snapshot
    arguments: list[str]  # with placeholders
    fingerprint: ElementFingerprint | None = None


class StopAct(Exception):
    """Ends a run early with a failure message and its code (AsyncActRun.run turns it into the
    failed ActResult; it never escapes act())."""

    def __init__(
        self, message: str, code: ActErrorCode, details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code: ActErrorCode = code
        self.details = details  # machine-readable facts of the stop (VLIST_NOT_REACHED's log)

    @property
    def timed_out(self) -> bool:
        return self.code == "TIMEOUT"


@dataclass(eq=False, repr=False)  # no repr: it would show the variables
class ActState:
    """State of one act(): the page in use, steps so far, usage, the deadline."""

    page: AsyncPage
    _llm_source: ModelSource | None
    instruction: str
    _: KW_ONLY
    variables: Variables
    settings: Settings
    prior_steps: InitVar[Sequence[ActStep]] = ()
    # The action cache stores each element's fingerprint, read live before acting with the
    # same recipe the replay uses.
    capture_fingerprints: bool = False

    def __post_init__(self, prior_steps: Sequence[ActStep]) -> None:
        self.steps: list[ActStep] = list(prior_steps)
        self.verifications: list[Verification] = []
        self.chunks_seen: list[int] = []
        self.usage = Usage()
        self.llm_calls = 0
        self.opened_pages: list[str] = []
        self._attempts: list[float | None] = []  # per action attempt: its confidence, 0 failed
        self._model_s = 0.0  # time spent waiting for the model
        self._settled = False
        self._started = time.monotonic()
        self._deadline = self._started + self.settings.timeout_s
        ambient = current_deadline()  # the public call's, counted from its start
        if ambient is not None:
            self._deadline = min(self._deadline, ambient.at)
        # Emergency mode (issue 18): the view the page is read in, the attempts it watches.
        self.emergency = ActEmergency(
            self.settings.emergency, self._llm_source, self.settings.snapshot
        )

    # ----------------------------------------------------------------- time budget
    def _remaining_s(self) -> float:
        return self._deadline - time.monotonic()

    def check_time(self, waiting_for: Literal["model", "page"] | None = None) -> None:
        if self._remaining_s() <= 0:
            raise StopAct(self._timeout_message(waiting_for), "TIMEOUT")

    def _timeout_message(self, waiting_for: Literal["model", "page"] | None) -> str:
        """Which part used the time up, and what to change."""
        spent = time.monotonic() - self._started
        model_s = self._model_s
        page_s = max(0.0, spent - model_s)
        if waiting_for is None:
            waiting_for = "model" if model_s > page_s else "page"
        head = (
            f"act() ran out of time after {self.settings.timeout_s:g} s "
            f"({len(self.steps)} action(s) taken; {model_s:.1f} s waiting for the model, "
            f"{page_s:.1f} s on the page)"
        )
        if waiting_for == "model":
            return (
                f"{head} while waiting for the model. Raise timeout_s, or make each answer "
                "quicker: a lower max_tokens, a faster model, or a shorter timeout on the "
                "model client so a stuck request fails sooner."
            )
        return (
            f"{head} while working on the page (settling, reading or acting on it). Raise "
            "timeout_s if the page is this slow, or lower settle_timeout_ms/action_timeout_ms "
            "so one slow step cannot use it all."
        )

    def cap_ms(self, ms: float) -> float:
        """A Playwright timeout that cannot carry the run past its deadline."""
        return max(1.0, min(ms, self._remaining_s() * 1000))

    def escalate_if_due(self, model: str) -> None:
        """Emergency mode (issue 18): when a trigger holds, switch to the fallback model (if
        any) and the DOM view, and raise :class:`Escalated` (the loop starts over)."""
        escalation = self.emergency.escalate(len(self.steps) + 1, model)
        if escalation is not None:
            if escalation.model_switched:
                self._llm_source = self.emergency.fallback
            raise Escalated(escalation)

    # ----------------------------------------------------------------- records
    def attempt_failed(self, decision: DoAction | InvalidReply) -> None:
        """An action attempt that could not run: it counts 0 in the confidence average."""
        self.emergency.attempt(ok=False)  # an unusable reply is a failure to emergency mode
        if isinstance(decision, InvalidReply) and (
            decision.call is None or decision.call.name != "doAction"
        ):
            return  # not an action attempt (no tool, another tool)
        self._attempts.append(0.0)

    def record_step(
        self,
        record: ActionRecord,
        element: Element | None,
        arguments: list[str],
        fingerprint: ElementFingerprint | None,
        confidence: float | None,
    ) -> None:
        self.steps.append(
            ActStep(record=record, element=element, arguments=arguments, fingerprint=fingerprint)
        )
        self._attempts.append(confidence)
        self.emergency.attempt(ok=True, confidence=confidence)
        logger.info("stagehand_py: %s", record.description)

    def _confidence(self) -> float | None:
        counted = [c for c in self._attempts[-CONFIDENCE_WINDOW:] if c is not None]
        return round(sum(counted) / len(counted), 4) if counted else None

    def observed_result(
        self, observed: ObserveResult, performed: Performed, user_facing: str | None
    ) -> ActResult:
        """The result of running an observe() result directly (no model call);
        ``user_facing``: the locator generated code uses (see ``ActionRecord``)."""
        safe_args = [self.variables.redact(a) for a in observed.arguments]
        record = ActionRecord(
            method=observed.method,
            selector=self.variables.redact(performed.selector),
            selectors=self.variables.without_secrets(observed.selectors or [observed.selector]),
            frame=list(observed.frame),
            arguments=safe_args,
            element=observed.element,
            description=self.variables.redact(observed.description),
            url=self.variables.redact(self.page.url),
            user_facing_selector=user_facing,
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
        self,
        success: bool,
        message: str,
        *,
        code: ActErrorCode | None = None,
        details: dict[str, Any] | None = None,
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
            details=details,
            confidence=self._confidence(),
            escalations=list(self.emergency.escalations),
            page=self.page,
        )
