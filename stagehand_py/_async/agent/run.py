"""The agent loop: observe -> think -> (approve) -> act -> post-process -> finalize, per step.

One run is an :class:`AsyncAgentRun`. Each step looks at the page (the same snapshot act()
uses), asks the model for 1 to ``max_actions_per_step`` actions in one structured request,
lets the approver see every one of them before any runs, runs them in order through the one
executor (stopping the batch when the page changed under it), saves downloads, and records the
step whatever happened. The run ends on ``done``; after ``max_steps`` steps or ``max_failures``
failed steps in a row (with a last request for a summary); at ``timeout_s``; or when cancelled.
Nothing raises for a task not reached: the reason is on the result (``AgentResult``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as AsyncPage

from ..._config import SnapshotMode
from ..._emergency import EmergencySettings, Escalation, changes_anything
from ..._error_line import first_line
from ..._errors import BudgetExceededError, ConfigurationError, StagehandError
from ..._trace_names import step_group_name
from ..._usage import Usage, estimate_tokens
from ..._variables import Variables
from ...agent._actions import META_FIELDS, AgentOutput, DoneAction, output_model
from ...agent._clock import RunCancelled, RunClock, RunEnded, RunTimedOut, StepFailed
from ...agent._controls import POLL_S, AgentControls
from ...agent._conversation import MessageManager, TokenCounter
from ...agent._history import ActionOutcome, AgentReason, AgentResult, StepRecord, redacted
from ...agent._prompts import (
    SYSTEM_PROMPT,
    history_item,
    state_message,
)
from ...agent._settings import AgentSettings
from ...llm._messages import ImagePart, RequestOptions
from ...llm._usage import PriceTable
from .._deadline import DeadlineExceeded, run_with_deadline
from ..browser.tracing import AsyncTraceGroup
from ..emergency import AsyncEmergency
from ..llm.source import ModelSource
from .actions import AsyncActionContext
from .batch import run_actions
from .domains import AllowedDomains, AllowedPlace, return_to
from .ending import (
    Ending,
    agent_result,
    forced_summary,
    keep_extracted,
    record_cut_off,
    utc_now,
)
from .observe import AsyncDownloadTracker, Observation, observe
from .think import ApprovalCallback, AsyncBoundedLLM, decide

logger = logging.getLogger("stagehand_py")


class AsyncAgentRun:
    """State of one agent run: the tab in use, the conversation, the steps, the clock.

    With ``emergency`` settings, the run escalates when a trigger holds: the ``fallback``
    model answers (when there is one) and the page is read as DOM, for the rest of the run.
    ``now`` is the clock emergency mode measures a stall with (tests give their own).
    """

    SYSTEM_TEMPLATE = SYSTEM_PROMPT

    def __init__(
        self,
        page: AsyncPage,
        llm: ModelSource,
        task: str,
        *,
        variables: Variables,
        settings: AgentSettings,
        approval: ApprovalCallback | None = None,
        controls: AgentControls | None = None,
        prices: PriceTable | None = None,
        count_tokens: TokenCounter | None = None,
        options: RequestOptions | None = None,
        emergency: EmergencySettings | None = None,
        fallback: ModelSource | None = None,
        fallback_name: str = "",
        now: Callable[[], float] | None = None,
    ) -> None:
        self.page = page
        self.task = task
        self.variables = variables
        self._redact = variables.redact
        self.settings = settings
        self.approval = approval
        self.controls = controls
        self.prices = prices
        self.clock = RunClock(settings.timeout_s, settings.step_timeout_s)
        primary = AsyncBoundedLLM(llm, self.clock, settings.llm_timeout_s, base=options)
        backup = None
        if fallback is not None:
            backup = AsyncBoundedLLM(fallback, self.clock, settings.llm_timeout_s, base=options)
            backup.model = backup.model or fallback_name
        view = settings.snapshot or "dom"
        self.settings = settings.updated(snapshot=view)
        self.emergency = AsyncEmergency(emergency, primary, backup, view, now)
        self._schema = output_model(settings.max_actions_per_step)
        self.messages = MessageManager(
            task,
            redact=variables.redact,
            placeholders=variables.placeholders,
            max_actions=settings.max_actions_per_step,
            max_wait_s=settings.max_wait_s,
            max_input_tokens=settings.max_input_tokens,
            max_history_items=settings.max_history_items,
            count_tokens=count_tokens or estimate_tokens,
            image_tokens=settings.image_tokens,
            system_template=self.SYSTEM_TEMPLATE,
        )
        self.steps: list[StepRecord] = []
        self._domains = AllowedDomains(settings.allowed_domains, page.url)
        self._place = AllowedPlace(page, page.url)  # the last page allowed_domains allowed
        self._downloads = AsyncDownloadTracker(settings.downloads_dir)
        self._new_downloads: list[str] = []
        self._memory: list[str] = []
        self._failures = 0
        self._steps_run = 0
        self._settled = False
        self._started_at = utc_now()
        self._in_flight: StepRecord | None = None  # the step under way (or the summary's)

    @property
    def snapshot_mode(self) -> SnapshotMode:
        """The view each step reads (emergency mode may switch it to the DOM)."""
        return self.settings.snapshot or "dom"

    @property
    def _llm(self) -> AsyncBoundedLLM:
        """The model answering now: the primary one, or the fallback after an escalation."""
        return self.emergency.llm

    # ----------------------------------------------------------------- the run
    async def run(self) -> AgentResult:
        """Run to an ending; never raises for an unreached task (see ``result.reason``)."""
        self._downloads.attach(self.page)
        try:
            # The run's own deadline, held over page-side calls that cannot time out (a page
            # that holds its main thread, a driver busy with a huge action): the run ends at
            # timeout_s whatever it waits for, then the page is probed and stopped if busy.
            ending = await run_with_deadline(self._loop, self.clock.run_left(), lambda: self.page)
        except DeadlineExceeded as late:
            self._cut_off(late)
            note = f"{late.note} " if late.note else ""
            ending = Ending(
                "timeout",
                False,
                f"Ran out of time: timeout_s={self.settings.timeout_s:g} s passed after "
                f"{self._steps_run} step(s). {note}Raise timeout_s, or split the task.",
            )
        finally:
            self._downloads.detach()
        return self._result(ending)

    def _cut_off(self, late: DeadlineExceeded) -> None:
        """The deadline stopped the run inside a step: that step is recorded all the same,
        with what ended it and the model request it was waiting for (that one was sent)."""
        record = self._in_flight
        if record is not None:
            record_cut_off(self.steps, record)
            if late.waiting_for_model:
                # Counted where it was asked: the step's request count and cost catch up.
                self._add_usage(record, Usage())

    async def _loop(self) -> Ending:
        try:
            while True:
                await self._checkpoint()
                if self._steps_run >= self.settings.max_steps:
                    return await self._summary("max_steps")
                if self._failures >= self.settings.max_failures and not self.emergency.pending():
                    self.escalate_now(self._steps_run + 1)  # one that switches nothing, recorded
                    return await self._summary("max_failures")
                name = step_group_name(self._steps_run + 1, "")
                async with AsyncTraceGroup(self.page, name, self._redact):
                    ending = await self._step()
                if ending is not None:
                    return ending
        except RunTimedOut:
            return Ending(
                "timeout",
                False,
                f"Ran out of time: timeout_s={self.settings.timeout_s:g} s passed after "
                f"{self._steps_run} step(s). Raise timeout_s, or split the task.",
            )
        except RunCancelled as cancelled:
            return Ending("cancelled", False, f"Cancelled: {cancelled.message}.")
        except RunEnded as ended:
            return Ending("failed", False, f"The run could not go on: {ended.message}.")

    async def _checkpoint(self) -> None:
        """Between phases and actions: hold while paused, end when stopped or out of time."""
        self.clock.check_run()
        controls = self.controls
        if controls is None:
            return
        if controls.paused and not controls.stopped:
            held_from = time.monotonic()
            controls._enter_hold()
            try:
                while controls.paused and not controls.stopped:
                    self.clock.check_run()
                    await asyncio.sleep(POLL_S)
            finally:
                controls._leave_hold()
                self.clock.extend_step(time.monotonic() - held_from)
        if controls.stopped:
            raise RunCancelled("stopped by AgentControls.stop()")

    # ----------------------------------------------------------------- one step
    async def _step(self) -> Ending | None:
        self._steps_run += 1
        self.clock.start_step()
        record = self._in_flight = StepRecord(number=len(self.steps) + 1, started_at=utc_now())
        ending: Ending | None = None
        try:
            observation = await self._observe(record)
            output = await decide(self, observation, record)
            if output is not None and output.done is not None:
                ending = await self._finished(output.done, record)
            elif output is not None:
                await self._act(output, observation, record)
        except StepFailed as failed:
            record.error = self.variables.redact(failed.message)
        except ConfigurationError:
            raise  # the caller's mistake (e.g. an approver's return value): say so
        except BudgetExceededError:
            raise  # a spending cap ends the run: no step after it could ask the model
        except (StagehandError, PlaywrightError) as exc:
            record.error = self.variables.redact(first_line(exc))
        except RunTimedOut:
            record.error = "the run's timeout_s ran out during this step"
            raise
        finally:
            await self._finish(record)
        self._in_flight = None
        return ending

    async def _observe(self, record: StepRecord) -> Observation:
        """Look at the page; when an emergency trigger holds, escalate and look again."""
        observation = await self._look(record)
        self.emergency.observed(observation.state)
        escalation = self.escalate_now(record.number)
        if escalation is None or not changes_anything(escalation):
            return observation
        self._failures = 0  # the fallback gets its own max_failures
        if escalation.view_after == self.settings.snapshot:
            return observation
        self.settings = self.settings.updated(snapshot=escalation.view_after)
        return await self._look(record)

    def escalate_now(self, number: int) -> Escalation | None:
        """Escalate when a trigger holds, and record it (one that can switch nothing too)."""
        escalation = self.emergency.escalate(number)
        if escalation is not None:
            self._escalated(escalation)
        return escalation

    def _escalated(self, escalation: Escalation) -> None:
        """Called after each escalation (a workflow records it on its item)."""

    async def _look(self, record: StepRecord) -> Observation:
        started = time.perf_counter()
        observation = await observe(
            self.page,
            step=record.number,
            settings=self.settings,
            variables=self.variables,
            clock=self.clock,
            settle_first=not self._settled,
            downloads=self._new_downloads,
            mode=self.snapshot_mode,
        )
        self._new_downloads = []
        self._settled = True
        self.page = observation.page
        state = observation.state
        record.url, record.title, record.tabs = state.url, state.title, state.tabs
        record.timings.observe_s = time.perf_counter() - started
        await self._keep_to_allowed_domains(observation.snapshot.url)
        record.screenshot = state.screenshot
        images = [ImagePart(data=state.screenshot)] if state.screenshot else []
        previous = self.steps[-1] if self.steps else None
        text = state_message(state, previous, self._memory)
        self.messages.set_state(record.number, text, images)
        return observation

    async def _keep_to_allowed_domains(self, url: str) -> None:
        """The page a look shows must be within ``allowed_domains`` (a meta refresh or a
        script may have moved it since the last step): else it goes back, and the step fails
        before the model sees that page."""
        host = self._domains.outside(url)
        if host is None:
            self._place = AllowedPlace(self.page, url)
            return
        self.page, undone = await return_to(self.page, self._place, self.clock)
        self._settled = False
        raise StepFailed(f"the page moved to {host}, outside allowed_domains; {undone}")

    async def _finished(self, done: DoneAction, record: StepRecord) -> Ending | None:
        """The model answered ``done``: the run ends (a workflow item checks it first)."""
        return self._done(done, record)

    def _done(self, done: DoneAction, record: StepRecord) -> Ending:
        text = self._redact(done.text)
        params = done.model_dump(mode="json", exclude={"action", *META_FIELDS})
        record.results = [
            ActionOutcome(
                action="done",
                params=redacted(params, self._redact),
                description=f"done success={done.success}",
                confidence=done.confidence,
            )
        ]
        data = redacted(done.data, self._redact)
        return Ending("done" if done.success else "failed", done.success, text, data)

    async def _act(self, output: AgentOutput, observation: Observation, record: StepRecord) -> None:
        started = time.perf_counter()
        context = AsyncActionContext(
            page=self.page,
            observation=observation,
            variables=self.variables,
            settings=self.settings,
            clock=self.clock,
            llm=self._llm,
            checkpoint=self._checkpoint,
            downloads=self._downloads,
            domains=self._domains,
            place=self._place,
        )
        try:
            await run_actions(context, output.actions, record)
        finally:
            self.page = context.page
            self._settled = context.settled
            record.usage = record.usage + context.usage
            record.timings.act_s = time.perf_counter() - started

    # ----------------------------------------------------------------- bookkeeping
    async def _finish(self, record: StepRecord) -> None:
        """Post-process and finalize: downloads, memory, failure count, history, the record.
        The step is recorded first: whatever happens next (the deadline cuts a download's
        saving short), it is in the run's steps."""
        started = time.perf_counter()
        self.steps.append(record)
        try:
            if self.clock.run_left() > 0:  # past the deadline, nothing more is waited for
                saved = await self._downloads.save_pending()
                record.downloads = [self._redact(path) for path in saved]
                self._new_downloads.extend(record.downloads)
        finally:
            self._close(record, started)

    def _close(self, record: StepRecord, started: float) -> None:
        """The step's bookkeeping, on the run's side only (nothing here waits)."""
        keep_extracted(record, self._memory)
        if record.failed:
            self._failures += 1
        elif not record.skipped:
            self._failures = 0
        self.emergency.step_ended(record)
        given_up = self.emergency.primary.take_given_up()
        if self.emergency.fallback is not None:
            given_up = given_up + self.emergency.fallback.take_given_up()
        self._add_usage(record, given_up)
        self.messages.add_history(record.number, history_item(record))
        record.ended_at = utc_now()
        record.timings.post_s = time.perf_counter() - started
        if record.error:
            logger.info("stagehand_py: agent step %d failed: %s", record.number, record.error)

    def _add_usage(self, record: StepRecord, usage: Usage) -> None:
        record.usage = record.usage + usage
        record.model_requests = record.usage.requests
        if self.prices is not None:
            record.cost = self.prices.cost(self._llm.model, record.usage)

    async def _summary(self, reason: AgentReason) -> Ending:
        """The forced last request after max_steps / max_failures: a summary, no actions."""
        return await forced_summary(self, reason)

    def _result(self, ending: Ending) -> AgentResult:
        return agent_result(self, ending)
