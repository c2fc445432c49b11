"""The agent's thinking: one structured request per step, bounded in time, re-asked when the
answer cannot run; and the approver's verdict on it (:func:`decide`: both, for one step)."""

from __future__ import annotations

import functools
import inspect
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import KW_ONLY, dataclass
from typing import TYPE_CHECKING, TypeVar

from ..._error_line import first_line
from ..._errors import ConfigurationError, LLMError
from ..._usage import Usage
from ..._variables import Variables
from ...agent._actions import AgentOutput
from ...agent._approval import check_decision
from ...agent._checks import answer_problems
from ...agent._clock import RunCancelled, RunClock, RunTimedOut, StepFailed
from ...agent._conversation import MessageManager
from ...agent._history import StepRecord, redacted
from ...agent._prompts import reask_message, retry_message
from ...agent._settings import AgentSettings
from ...agent._state import AgentState, ApprovalDecision, Approve, Cancel, Retry, Skip
from ...llm._messages import RequestOptions
from ...llm._request_context import RequestContext, request_context
from .._deadline import DeadlineExceeded, call_with_deadline, run_blocking
from ..llm.accounting import ask_recorded
from ..llm.base import AsyncLLM, AsyncModelWrapper, ModelRequest
from ..llm.source import ModelSource, model_of
from .batch import not_run
from .observe import Observation

if TYPE_CHECKING:
    from .run import AsyncAgentRun

logger = logging.getLogger("stagehand_py")
R = TypeVar("R")


# What page.agent(approval=...) takes: a plain function, or (async API) a coroutine function.
ApprovalCallback = Callable[
    [int, AgentOutput, AgentState], ApprovalDecision | Awaitable[ApprovalDecision]
]


_AGENT_REQUEST = RequestOptions(kind="agent")


@dataclass(eq=False, repr=False)
class AsyncBoundedLLM(AsyncModelWrapper):
    """The run's model, each request cut off when the step, the run or ``llm_timeout_s`` runs
    out (whichever comes first) and told that time as ``options.timeout_s``. extract() inside
    the agent gets this one too, so its requests are bounded the same way."""

    source: ModelSource
    clock: RunClock
    llm_timeout_s: float
    _: KW_ONLY
    # The budget and temperature of the agent's own requests (the Stagehand's settings).
    base: RequestOptions | None = None

    def __post_init__(self) -> None:
        self.model = self.source.model if isinstance(self.source, AsyncLLM) else ""
        self._given_up = Usage()

    def _inner(self) -> AsyncLLM:
        if not isinstance(self.source, AsyncLLM):
            self.source = model_of(self.source)
            self.model = self.source.model
        return self.source

    def _limit(self, options: RequestOptions | None) -> tuple[float, RequestOptions]:
        limit = min(self.clock.left(), self.llm_timeout_s)
        if limit <= 0:
            self.clock.check()
            raise StepFailed("no time was left for a model request")
        base = options or self.base or _AGENT_REQUEST
        return limit, RequestOptions(
            kind=base.kind,
            max_tokens=base.max_tokens,
            temperature=base.temperature,
            timeout_s=limit,
        )

    async def _forward(self, request: ModelRequest[R]) -> R:
        """``request`` sent to the model within the time left, which it is told. A request
        given up at that time was sent: it is kept (:meth:`take_given_up`) for the step's
        record, since the signal that ends the step or the run carries no usage."""
        inner = self._inner()
        limit, bounded = self._limit(request.options)
        asked = time.monotonic()
        try:
            return await call_with_deadline(
                lambda: request.with_options(bounded).send(inner), limit
            )
        except DeadlineExceeded:
            waited = time.monotonic() - asked
            self._given_up = self._given_up + Usage(requests=1, wall_time_s=waited)
            self.clock.check()  # the run's or the step's deadline, when that is what passed
            raise StepFailed(
                f"the model did not answer within llm_timeout_s={self.llm_timeout_s:g} s"
            ) from None

    def take_given_up(self) -> Usage:
        """The requests given up at their time limit since the last call (then forgotten)."""
        given_up, self._given_up = self._given_up, Usage()
        return given_up


async def think(
    llm: AsyncBoundedLLM,
    messages: MessageManager,
    schema: type[AgentOutput],
    state: AgentState,
    record: StepRecord,
    *,
    settings: AgentSettings,
    variables: Variables,
) -> AgentOutput:
    """Ask for the step's actions; an answer that validates but cannot run here (an element
    not shown, an unknown variable, a domain not allowed) is re-asked with what is wrong."""
    problems: list[str] = []
    for attempt in range(settings.max_reasks + 1):
        request = messages.build()
        if attempt == 0:
            record.prompt_chars, record.prompt_tokens = request.chars, request.tokens
            record.cuts = list(request.cuts)
        if logger.isEnabledFor(logging.DEBUG):  # the whole conversation, already redacted
            logger.debug(
                "stagehand_py: agent request of step %d:\n%s", state.step, request.dump_text()
            )
        try:
            response = await ask_recorded(
                record,
                functools.partial(
                    llm.structured, request.messages, schema, max_retries=settings.max_reasks
                ),
            )
        except LLMError as exc:
            raise StepFailed(
                f"the model request failed: {variables.redact(first_line(exc))}"
            ) from None
        output = response.value
        problems = answer_problems(
            output, state, variables=variables, allowed_domains=settings.allowed_domains
        )
        if not problems:
            return output
        logger.info("stagehand_py: agent answer cannot run, re-asking: %s", problems[0])
        messages.add_turn("assistant", output.model_dump_json(by_alias=True))
        messages.add_turn("user", reask_message(problems))
    raise StepFailed(
        f"the model's answer could not be run after {settings.max_reasks + 1} tries: {problems[0]}"
    )


async def _settled(value: object) -> ApprovalDecision:
    if inspect.isawaitable(value):
        value = await value
    return check_decision(value)


async def ask_approval(
    approval: ApprovalCallback, output: AgentOutput, state: AgentState, clock: RunClock
) -> ApprovalDecision:
    """The approver's decision on every action of the step, before any of them runs.

    The approver is called in a worker thread waited on with the run's time left, and an
    ``async def`` approver's coroutine is then awaited on the run's own loop with what is left
    of it: whether it blocks (a console prompt nobody answers) or is slow, the run still ends
    at ``timeout_s``."""
    state.time_left_s = max(0.0, clock.run_left())
    try:
        raw = await run_blocking(
            functools.partial(_call_approver, approval, output, state), clock.run_left()
        )
        return await call_with_deadline(lambda: _settled(raw), clock.run_left())
    except DeadlineExceeded:
        raise RunTimedOut from None


def _call_approver(
    approval: ApprovalCallback, output: AgentOutput, state: AgentState
) -> ApprovalDecision | Awaitable[ApprovalDecision]:
    try:
        return approval(state.step, output, state)
    except Exception as exc:
        if type(exc).__module__ == "greenlet":  # Playwright's sync API, from this thread
            raise ConfigurationError(
                "The approval callback called Playwright's sync API. It runs in a worker "
                "thread (so that timeout_s can end a run whose approver blocks), where that "
                "API cannot be used: decide from the state it is given (its url, title, "
                "elements and, with use_vision=True, screenshot)."
            ) from None
        raise


async def decide(
    run: AsyncAgentRun, observation: Observation, record: StepRecord
) -> AgentOutput | None:
    """Think, then let the approver see the whole answer; ``None`` when it was skipped."""
    verdicts: list[str] = []
    while True:
        started = time.perf_counter()
        shown = frozenset(observation.state.elements)
        context = RequestContext(
            "agent", run._redact(run.task), observation.snapshot, (), shown, record.number
        )
        with request_context(context):  # for test fakes: what this request shows
            output = await think(
                run._llm,
                run.messages,
                run._schema,
                observation.state,
                record,
                settings=run.settings,
                variables=run.variables,
            )
        record.timings.think_s += time.perf_counter() - started
        record.output = redacted(output.model_dump(mode="json", by_alias=True), run._redact)
        record.actions = list(record.output["actions"])
        goal = output.next_goal or output.evaluation_previous_goal or "(no goal given)"
        logger.info("stagehand_py: agent step %d: %s", record.number, run._redact(goal))
        if run.approval is None:
            return output
        await run._checkpoint()
        started = time.perf_counter()
        decision = await ask_approval(run.approval, output, observation.state, run.clock)
        waited = time.perf_counter() - started
        record.timings.approval_s += waited
        run.clock.extend_step(waited)  # a human's time is not the step's
        if isinstance(decision, Retry):
            feedback = run._redact(decision.feedback)
            verdicts.append(f"retry: {feedback}")
            record.approval = "; ".join(verdicts)
            run.messages.add_turn("assistant", output.model_dump_json(by_alias=True))
            run.messages.add_turn("user", retry_message(feedback))
            continue
        if isinstance(decision, Approve):
            verdicts.append("approved")
        elif isinstance(decision, Skip):
            verdicts.append("skipped" + (f": {decision.reason}" if decision.reason else ""))
        elif isinstance(decision, Cancel):
            verdicts.append("cancelled")
        record.approval = "; ".join(verdicts)
        if isinstance(decision, Cancel):
            raise RunCancelled(
                "the approver cancelled the run"
                + (f" ({decision.reason})" if decision.reason else "")
            )
        if isinstance(decision, Skip):
            record.skipped = True
            record.results = [
                not_run(action, "skipped by the approver", observation.state, run._redact)
                for action in output.actions
            ]
            return None
        return output
