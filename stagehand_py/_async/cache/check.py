"""check() with the action cache in front of the model (the cache's one path is
:class:`~.cached.AsyncCachedCall`).

A check whose statement the model found true and compiled is stored as its assertions. The
next check of the same statement on the same page runs them with Playwright's ``expect`` and
no model call (hit). When one fails: under ``cache_mode="require"`` (or ``self_heal=False``)
the check fails with Playwright's own expected/actual message; otherwise the model looks
again. If it finds the statement false, :class:`~stagehand_py.CheckError` is raised and the
entry is kept (the assertions were right); if true, the statement is compiled again and the
entry healed, keeping what it held as its previous version. A statement that could not be
compiled is stored as the reason why: the model judges it on every run, and ``"require"``
raises :class:`~stagehand_py.CacheMissError` saying so. A check that failed is never written.
"""

from __future__ import annotations

from playwright.async_api import Page as AsyncPage

from ..._config import Settings
from ..._deadline_clock import Deadline
from ..._errors import CheckError
from ..._variables import Variables
from ...cache import ActionCache, CachedAction, CacheEntry, CacheKey
from ...cache._store import CacheStatus
from ...check._assertions import CheckAssertion
from ...check._result import CheckResult, CheckSpent, evidence_lines, failure_message
from ..check.compile import compile_check
from ..check.expect import first_failure
from ..check.judge import judge
from ..llm.source import ModelSource
from .cached import AskEveryRun, AsyncCachedCall, Drift, Stale

MAX_PLAYWRIGHT_CHARS = 2000  # Playwright's message ends with the page's aria snapshot


async def cached_check(
    page: AsyncPage,
    llm: ModelSource,
    statement: str,
    *,
    variables: Variables,
    settings: Settings,
    cache: ActionCache | None,
    spent: CheckSpent,
    deadline: Deadline,
) -> CheckResult:
    """check() through the cache (``llm`` is made only when the model is needed); ``spent``
    is filled as the model work goes, so a failed check still says what it cost."""
    __tracebackhide__ = True
    call = AsyncCachedCheck(page, llm, statement, variables=variables, settings=settings)
    call.spent, call.deadline = spent, deadline
    return await call.run(cache)


class AsyncCachedCheck(AsyncCachedCall[CheckResult]):
    """A check() through the cache: its entry is the compiled assertions."""

    kind = "check"
    spent: CheckSpent
    deadline: Deadline
    _marker: CacheEntry | None = None  # the stored "only the model can judge it" entry
    _replay_failure: str | None = None  # what the stored assertions found (redacted)

    async def replay(self, entry: CacheEntry) -> CheckResult:
        __tracebackhide__ = True
        if entry.uncompiled is not None:
            self._marker = entry
            raise AskEveryRun(entry.uncompiled)
        assertions = entry.assertions or []
        failure = await first_failure(
            self.page,
            assertions,
            self.variables,
            timeout_ms=self.settings.action_timeout_ms,
            deadline=self.deadline,
        )
        evidence = [a.description for a in assertions if a.description]
        if failure is None:
            reason = f"its {len(assertions)} compiled assertion(s) passed, with no model call"
            return self._result(True, reason, evidence, assertions=assertions)
        required = self.settings.cache_mode == "require"
        if required or not self.settings.self_heal:
            why = "cache_mode='require'" if required else "self_heal=False"
            said = self.variables.redact(failure.describe())
            reason = said[:MAX_PLAYWRIGHT_CHARS] + ("…" if len(said) > MAX_PLAYWRIGHT_CHARS else "")
            result = self._result(False, reason, evidence, assertions=assertions)
            result.cache = "hit"
            raise CheckError(
                f"check({result.statement!r}) failed ({why}, the model was not asked): {reason}",
                result,
            )
        self._replay_failure = self.variables.redact(failure.headline())
        raise Drift(self._replay_failure)

    async def ask(self, stale: Stale | None, *, cached: bool) -> CheckResult:
        __tracebackhide__ = True
        said = self.variables.redact(self.instruction)
        judgement = await judge(
            self.page,
            self._model(),
            said,
            variables=self.variables,
            settings=self.settings,
            deadline=self.deadline,
            spent=self.spent,
        )
        answer = judgement.answer
        if not answer.holds:
            result = self._result(False, answer.reason, judgement.evidence)
            replayed = self._replay_failure if stale is not None else None
            raise CheckError(failure_message(result, replay_failure=replayed), result)
        compiled = await compile_check(
            self.page,
            judgement.snapshot,
            answer,
            judgement.shown,
            said,
            self.variables,
            self.deadline,
        )
        return self._result(
            True,
            answer.reason,
            judgement.evidence,
            assertions=compiled.assertions,
            why_not=compiled.why_not,
        )

    async def entry_actions(self, result: CheckResult) -> list[CachedAction]:
        return []  # a check's entry holds assertions (entry_for)

    async def entry_for(
        self, key: CacheKey, result: CheckResult, stale: Stale | None
    ) -> CacheEntry | None:
        reason = stale.reason if stale is not None else ""
        if result.compiled:
            if stale is not None:
                return stale.entry.with_assertions(result.assertions, reason=reason)
            return CacheEntry.create(key, assertions=result.assertions)
        if self._marker is not None:
            return None  # it already says the model judges this statement
        why = result.why_not_compiled or "not compiled"
        if stale is not None:
            return stale.entry.with_assertions(None, uncompiled=why, reason=reason)
        return CacheEntry.create(key, uncompiled=why)

    def not_stored(self, result: CheckResult, reason: str) -> None:
        result.notes.append(f"Not cached: {reason}.")

    def mark(self, result: CheckResult, status: CacheStatus, stale: Stale | None) -> None:
        result.cache = status
        if stale is not None and status == "healed":
            result.notes.append(f"Cache entry healed ({stale.reason}).")

    def _result(
        self,
        passed: bool,
        reason: str,
        evidence: list[str],
        *,
        assertions: list[CheckAssertion] | None = None,
        why_not: str | None = None,
    ) -> CheckResult:
        spent = self.spent
        return CheckResult(
            statement=self.variables.redact(self.instruction),
            passed=passed,
            reason=reason,
            evidence=evidence_lines(evidence),
            compiled=bool(assertions),
            why_not_compiled=why_not,
            assertions=list(assertions or []),
            llm_calls=spent.llm_calls,
            usage=spent.usage,
            duration_s=spent.duration_s,
        )
