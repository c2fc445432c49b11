"""Run a check's compiled assertions with Playwright's own ``expect``, no model.

Each assertion's element is the first of its selectors that finds exactly one element (the
most durable first); when none does, the first selector as it is, so that Playwright's message
says what it found (nothing, or several). ``to_have_count`` and ``to_be_hidden`` take their
first selector as it is: it may rightly match many elements, or none. Variable placeholders
in expected values are substituted here, locally; what a failure says is redacted by the
caller.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator as AsyncLocator
from playwright.async_api import Page as AsyncPage
from playwright.async_api import expect

from ..._deadline_clock import Deadline
from ..._errors import PageError
from ..._variables import Variables
from ...check._assertions import (
    ASSERTION_KINDS,
    COUNT_KINDS,
    PAGE_KINDS,
    TEXT_KINDS,
    CheckAssertion,
)
from ...check._code import expect_line
from ..browser.locate import frame_scope, locate_selectors

# Kinds whose locator may rightly match no element, or many.
_AS_STORED = COUNT_KINDS | {"to_be_hidden"}


@dataclass(frozen=True)
class AssertionFailure:
    """The first assertion that did not pass: its number (1-based), its ``expect(...)``
    line, and Playwright's message (expected, actual, call log), not yet redacted."""

    number: int
    line: str
    message: str

    def describe(self) -> str:
        return f"assertion {self.number} `{self.line}` did not pass: {self.message}"

    def headline(self) -> str:
        """The first line of Playwright's message, for the cache's heal reason."""
        first = self.message.strip().splitlines()
        return f"assertion {self.number} `{self.line}`: {first[0] if first else 'failed'}"


async def first_failure(
    page: AsyncPage,
    assertions: Sequence[CheckAssertion],
    variables: Variables,
    *,
    timeout_ms: float,
    deadline: Deadline,
) -> AssertionFailure | None:
    """The first of ``assertions`` that does not pass within ``timeout_ms`` (capped by the
    call's ``deadline``), or None when all pass."""
    for number, assertion in enumerate(assertions, 1):
        try:
            await run_assertion(page, assertion, variables, deadline.cap_ms(timeout_ms))
        except AssertionError as failed:
            return AssertionFailure(number, expect_line(assertion), str(failed))
        except PlaywrightError as error:  # a selector the engine refuses, a frame that is gone
            return AssertionFailure(number, expect_line(assertion), error.message)
    return None


async def run_assertion(
    page: AsyncPage, assertion: CheckAssertion, variables: Variables, timeout_ms: float
) -> None:
    """One assertion through ``expect``; Playwright's ``AssertionError`` when it fails."""
    kind = assertion.kind
    expected = assertion.expected
    value = variables.substitute(expected) if isinstance(expected, str) else ""
    if kind in PAGE_KINDS:
        if kind == "to_have_url":
            await expect(page).to_have_url(re.compile(re.escape(value)), timeout=timeout_ms)
        else:
            await expect(page).to_have_title(value, timeout=timeout_ms)
        return
    target = expect(await _locator(page, assertion))
    # Each kind is the name of the LocatorAssertions method that runs it.
    if kind not in ASSERTION_KINDS:  # unreachable: checked when an assertion is made or loaded
        raise AssertionError(f"{kind} is not an assertion check() runs")
    run = getattr(target, kind)
    if kind in COUNT_KINDS:
        await run(int(expected or 0), timeout=timeout_ms)
    elif kind in TEXT_KINDS:
        await run(value, timeout=timeout_ms)
    else:
        await run(timeout=timeout_ms)


async def _locator(page: AsyncPage, assertion: CheckAssertion) -> AsyncLocator:
    if assertion.kind not in _AS_STORED and len(assertion.selectors) > 1:
        try:
            locator, _ = await locate_selectors(page, assertion.frame, assertion.selectors)
        except PageError:
            pass  # none finds exactly one: the first one tells Playwright's story
        else:
            return locator
    scope = await frame_scope(page, assertion.frame)
    return scope.locator(assertion.selectors[0])
