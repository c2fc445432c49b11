"""The results and errors of public calls that ended before their work did (pure).

A deadline that ends a call outside the act loop (a cache replay, an observed action, an
extract or observe), a variable refused for an observed action, and a call that needs the
model under ``cache_mode='require'`` are reported here, with every string redacted.
"""

from __future__ import annotations

from typing import Any

from ._config import Settings
from ._errors import CacheMissError, StagehandTimeoutError
from ._types import ActResult, ObserveResult
from ._variables import Variables

# Why each call that always needs the model has no cached answer, and what to do instead.
_NOT_CACHED = {
    "extract": "an extract() without a schema, or limited by selector=, is not cached (only "
    "a schema's fields compile into reads). Pass a schema, or use cache_mode='read-only' where "
    "this extract() runs.",
    "workflow": "with replay=False a workflow reads no stored run (the checklist and each "
    "item's steps ask the model). Leave replay on (the default) and record the workflow once "
    "in cache_mode='read-write', or use cache_mode='read-only' where it runs.",
}


def out_of_time(call: str, seconds: float, note: str) -> StagehandTimeoutError:
    return StagehandTimeoutError(
        f"{call}() ran out of time after {seconds:g} s. "
        + (f"{note} " if note else "")
        + "Raise timeout_s if the page or the model is slow."
    )


def timed_out_act(
    page: Any,
    action: str | ObserveResult,
    values: Variables,
    settings: Settings,
    note: str,
) -> ActResult:
    """The result of an act the deadline ended outside the act loop (replay, observed)."""
    instruction = action.description if isinstance(action, ObserveResult) else action
    message = f"act() ran out of time after {settings.timeout_s:g} s. " + (
        f"{note} " if note else ""
    )
    return ActResult(
        success=False,
        message=values.redact(message + "Raise timeout_s if the page is slow."),
        instruction=values.redact(instruction),
        duration_s=settings.timeout_s,
        timed_out=True,
        code="TIMEOUT",
        page=page,
    )


def refused_observed(
    page: Any, observed: ObserveResult, values: Variables, reason: str
) -> ActResult:
    """An observed action whose variable may not go into its element: nothing was run."""
    return ActResult(
        success=False,
        message=values.redact(f"The observed action was not run. {reason}"),
        instruction=values.redact(observed.description),
        page=page,
    )


def needs_the_model(call: str, instruction: str) -> CacheMissError:
    """A ``call`` (extract, a workflow with ``replay=False``) refused by
    ``cache_mode='require'``, which never calls the model; ``instruction`` is redacted
    already."""
    return CacheMissError(
        f"{call}({instruction!r}) needs the model, and cache_mode='require' never calls it: "
        + _NOT_CACHED[call],
        instruction=instruction,
        key="",
        reason="miss",
    )
