"""What each verb's outcome says in the session's history: one :class:`CallRecord` per call,
made by the call path (:meth:`AsyncCallPath._run <stagehand_py._async.calls.AsyncCallPath>`)
from the call and what its body returned."""

from __future__ import annotations

from .._history import CallRecord
from .._types import ActResult
from .calls import AsyncCall
from .extract.read import ExtractOutcome
from .observe.ask import ObserveOutcome


def act_record(call: AsyncCall, result: ActResult) -> CallRecord:
    return call.record(
        result,
        instruction=result.instruction,
        success=result.success,
        message=result.message,
        actions=result.actions,
        verifications=result.verifications,
        cache=result.cache,
    )


def extract_record(call: AsyncCall, outcome: ExtractOutcome) -> CallRecord:
    said = (
        "read with its compiled reads"
        if outcome.cache == "hit"
        else f"{outcome.chunks} chunk(s) read"
    )
    return call.record(outcome, success=True, message=said, cache=outcome.cache or "off")


def observe_record(call: AsyncCall, outcome: ObserveOutcome) -> CallRecord:
    found = [f"{r.description} ({r.method} {r.selector})" for r in outcome.results]
    return call.record(outcome, success=True, found=found, cache=outcome.cache)
