"""check() on the one call path: its argument checks, its body and its record.

``stagehand.check(page, ...)`` and ``page.check(...)`` meet in ``_check``. The call is traced,
recorded in the history, priced, bounded by its ``timeout_s`` and redacted like every verb's
(``calls.py``); the body runs the check through the action cache (``cache/check.py``).
"""

from __future__ import annotations

import functools

from playwright.async_api import Page as AsyncPage

from ..._config import Settings
from ..._errors import ConfigurationError
from ..._history import CallRecord
from ..._inputs import check_placeholders
from ...check._result import CheckResult, CheckSpent
from ..cache.check import cached_check
from ..calls import AsyncCall, AsyncCallPath, ModelSource, check_options
from ..options import CheckOptions


class AsyncCheckCalls(AsyncCallPath):
    """The check() verb of :class:`~stagehand_py.AsyncStagehand` (its public face is
    ``AsyncStagehand.check`` and ``AsyncStagehandPage.check``)."""

    async def _check(self, page: AsyncPage, statement: str, options: CheckOptions) -> CheckResult:
        __tracebackhide__ = True
        check_options("check", options, CheckOptions.__optional_keys__)
        _check_statement(statement)
        call, settings, source = self._start_reading("check", page, statement, options)
        check_placeholders("check", statement, call.values)
        body = functools.partial(self._check_body, call, settings, source)
        return await self._run(call, body, _check_record)

    async def _check_body(
        self, call: AsyncCall, settings: Settings, source: ModelSource
    ) -> CheckResult:
        __tracebackhide__ = True
        call.spent = spent = CheckSpent()  # a failed check still says what it cost
        ready = await call.model_if_any(source)
        result = await call.in_time(
            functools.partial(
                cached_check,
                call.page,
                ready,
                call.instruction or "",
                variables=call.values,
                settings=settings,
                cache=self.cache,
                spent=spent,
                deadline=call.deadline,
            )
        )
        return result


def _check_record(call: AsyncCall, result: CheckResult) -> CallRecord:
    return call.record(result, success=result.passed, message=result.reason, cache=result.cache)


def _check_statement(statement: object) -> None:
    """A statement is a non-blank string (act's instruction check would ask for an action)."""
    if not isinstance(statement, str):
        raise ConfigurationError(
            f"check() takes its statement as a string, not {type(statement).__name__}."
        )
    if not statement.strip():
        raise ConfigurationError(
            "check() needs a statement about the page, e.g. "
            "page.check('the cart shows 2 items'); it was blank."
        )
