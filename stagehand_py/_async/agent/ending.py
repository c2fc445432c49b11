"""How an agent run ends: the forced last summary (after ``max_steps`` or ``max_failures``)
and the :class:`~stagehand_py.agent.AgentResult` built from the run's record."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError

from ..._error_line import first_line
from ..._errors import BudgetExceededError, ConfigurationError, StagehandError
from ..._usage import Usage
from ...agent._actions import FinalSummary
from ...agent._clock import RunTimedOut, StepFailed
from ...agent._history import ActionOutcome, AgentReason, AgentResult, StepRecord, redacted
from ...agent._prompts import summary_request
from ..llm.accounting import ask_recorded

if TYPE_CHECKING:
    from .run import AsyncAgentRun

logger = logging.getLogger("stagehand_py")


@dataclass
class Ending:
    """Why and how a run ended, before its result is built."""

    reason: AgentReason
    success: bool
    text: str
    data: Any = None


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


async def forced_summary(run: AsyncAgentRun, reason: AgentReason) -> Ending:
    """The forced last request after max_steps / max_failures: a summary, no actions."""
    run.clock.start_step()
    record = StepRecord(number=len(run.steps) + 1, started_at=utc_now(), summary=True)
    text, data = "", None
    try:
        await run._observe(record)
        run.messages.add_turn("user", summary_request(reason, run._steps_run))
        request = run.messages.build()
        record.prompt_chars, record.prompt_tokens = request.chars, request.tokens
        record.cuts = list(request.cuts)
        started = time.perf_counter()
        response = await ask_recorded(
            record,
            lambda: run._llm.structured(
                request.messages, FinalSummary, max_retries=run.settings.max_reasks
            ),
        )
        record.timings.think_s = time.perf_counter() - started
        record.output = redacted(response.value.model_dump(mode="json"), run._redact)
        text, data = (
            run._redact(response.value.text),
            redacted(response.value.data, run._redact),
        )
        record.results = [
            ActionOutcome(action="done", description="done success=False (forced summary)")
        ]
    except (StepFailed, RunTimedOut) as exc:
        record.error = run._redact(getattr(exc, "message", "the run's time ran out"))
    except (ConfigurationError, BudgetExceededError):
        raise
    except (StagehandError, PlaywrightError) as exc:
        record.error = run._redact(first_line(exc))
    finally:
        await run._finish(record)
    why = {
        "max_steps": f"max_steps={run.settings.max_steps} reached",
        "max_failures": f"{run.settings.max_failures} failed steps in a row",
    }[reason]
    if not text:
        last = next((s.error for s in reversed(run.steps) if s.error), None)
        text = f"Stopped after {run._steps_run} step(s): {why}; no summary ({record.error})."
        if last and last != record.error:
            text += f" Last error: {last}"
    return Ending(reason, False, text, data)


def agent_result(run: AsyncAgentRun, ending: Ending) -> AgentResult:
    result = AgentResult(
        task=run._redact(run.task),
        success=ending.success,
        final_text=run._redact(ending.text),
        data=ending.data,
        reason=ending.reason,
        steps=run.steps,
        model=run._llm.model,
        started_at=run._started_at,
        ended_at=utc_now(),
        duration_s=run.clock.elapsed(),
        downloads=[run._redact(path) for path in run._downloads.saved],
        conversation=(run.messages.last_request.dump() if run.messages.last_request else []),
        usage=sum((step.usage for step in run.steps), Usage()),
        page=run.page,
        escalations=list(run.emergency.escalations),
    )
    if run.prices is not None:
        result.cost = run.prices.cost(run._llm.model, result.usage)
    logger.info("stagehand_py: agent finished (%s): %s", result.reason, result.final_text)
    return result
