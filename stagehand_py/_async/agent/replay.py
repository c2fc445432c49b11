"""agent() through the action cache (the cache's one path is
:class:`~stagehand_py._async.cache.cached.AsyncCachedCall`).

A successful run whose every step was an element action (plus scrolling and waiting, which a
replay leaves out), and whose answer carries no data read from the page, is stored as one
entry keyed like act()'s: the task, the normalised start URL and the variable names. The next
run of the same task there replays those actions with no model call, each one located,
fingerprint-checked and secret-scope-checked as a cached act's step is (hit). At the first
step that no longer holds, the model takes over the rest of the task from the page as it is,
told which steps the replay already did; a success rewrites the entry ("healed": the steps
that held, then the model's), keeping the old one as its previous version.
``cache_mode="require"`` (or ``self_heal=False``) raises :class:`~stagehand_py.CacheMissError`
at that step instead; a run with no entry under ``"require"`` raises it before any request.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Protocol, TypeVar

from ..._errors import CacheError
from ..._types import CacheStatus as ResultCacheStatus
from ...agent._history import ActionOutcome, AgentResult, StepRecord
from ...agent._prompts import history_item
from ...cache import CachedAction, CacheEntry
from ...cache._store import CacheStatus
from ..cache.act import ReplayReach, replay_until_drift
from ..cache.cached import AsyncCachedCall, Drift, Stale
from .ending import Ending, agent_result, utc_now
from .flow import AsyncFlowKeepingRun

REPLAYED_NOTE = "replayed from the action cache"
# The agent's own name for the one argument of an element action (as a model-run step's
# params say it, so the run's record and its Playwright code read the same either way).
_ARGUMENT_PARAMS = {"fill": "text", "type": "text", "select_option": "option", "press": "key"}


class RunResult(Protocol):
    """What a whole run's result (an agent's, a workflow's) says of the cache."""

    success: bool
    cache: ResultCacheStatus
    cache_note: str
    not_cached: str | None


RunR = TypeVar("RunR", bound=RunResult)


class AsyncCachedRun(AsyncCachedCall[RunR]):
    """A whole run through the cache (an agent's, a workflow's): a successful one is stored,
    and its result's own fields say how the cache answered."""

    stored: ClassVar[str]  # what an entry holds, for the note on a stale one

    def succeeded(self, result: RunR) -> bool:
        return result.success

    def not_stored(self, result: RunR, reason: str) -> None:
        result.not_cached = reason

    def mark(self, result: RunR, status: CacheStatus, stale: Stale | None) -> None:
        result.cache = status
        if stale is not None:
            result.cache_note = f"the stored {self.stored} no longer held at {stale.reason}"


class AsyncCachedAgent(AsyncCachedRun[AgentResult]):
    """An agent() through the cache: its entry is the element actions the run took."""

    kind = "agent"
    stored = "run"
    make_run: Callable[[], AsyncFlowKeepingRun]  # the run the model would do, made once
    _run: AsyncFlowKeepingRun | None = None
    _held: list[CachedAction] | None = None  # the stored steps a drifted replay got through

    def agent_run(self, *, keeps_flow: bool = True) -> AsyncFlowKeepingRun:
        """The run (made on first use: its clock starts then, covering replay and model)."""
        if self._run is None:
            self._run = self.make_run()
            self._run.keeps_flow = keeps_flow
        return self._run

    async def replay(self, entry: CacheEntry) -> AgentResult:
        run = self.agent_run()
        reach = await replay_onto(run, entry.actions, self)
        if reach.drift is not None:
            self._held = entry.actions[: reach.held]
            run.messages.add_history(len(run.steps), _handover(run.steps, reach.drift))
            raise Drift(reach.drift)
        text = f"Replayed {reach.held} cached step(s) with no model call."
        return agent_result(run, Ending("done", True, text))

    async def ask(self, stale: Stale | None, *, cached: bool) -> AgentResult:
        return await self.agent_run(keeps_flow=cached).run()

    async def entry_actions(self, result: AgentResult) -> list[CachedAction]:
        run = self.agent_run()
        if result.data is not None:
            raise CacheError(
                "its answer carries data read from the page, which a replay cannot give"
            )
        if not run.flow_replayable:
            raise CacheError(
                f"the run needed more than element actions ({run.not_replayable}), which a "
                "replay cannot redo"
            )
        return [*(self._held or []), *run.flow]


async def replay_onto(
    run: AsyncFlowKeepingRun, actions: list[CachedAction], call: AsyncCachedCall[Any]
) -> ReplayReach:
    """Replay ``actions`` on the run's page within its time; the run moves to the page the
    replay reached and records the steps that held as one step of its own (no model call)."""
    started = utc_now()
    reach = await replay_until_drift(
        run.page,
        actions,
        variables=call.variables,
        settings=call.settings,
        seconds_left=run.clock.run_left(),
    )
    run.page = reach.page
    if reach.held:
        record = StepRecord(number=len(run.steps) + 1, started_at=started, ended_at=utc_now())
        record.url = call.variables.redact(reach.page.url)
        record.results = [replayed_outcome(action) for action in actions[: reach.held]]
        run.steps.append(record)
    return reach


def replayed_outcome(action: CachedAction) -> ActionOutcome:
    """A stored step that was replayed, as a run's record shows it (placeholders, no values)."""
    param = _ARGUMENT_PARAMS.get(action.method)
    return ActionOutcome(
        action=action.method,
        params={param: action.arguments[0]} if param and action.arguments else {},
        description=action.description,
        note=REPLAYED_NOTE,
        selector=action.selectors[0],
        selectors=list(action.selectors),
        frame=list(action.frame),
    )


def _handover(steps: list[StepRecord], drift: str) -> str:
    """What the model is told when it takes over from a replay: the steps it did, and where
    the stored run stopped holding."""
    done = history_item(steps[-1]) if steps else "No stored step held."
    return (
        f"{done}\nThese steps were replayed from a stored run of this task. The stored run "
        f"stopped holding at {drift}. Go on with the task from the page as it is now."
    )
