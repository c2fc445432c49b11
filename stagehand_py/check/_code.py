"""Plain Playwright code for a compiled check: one ``expect(...)`` line per assertion.

The same generator as an act's (:mod:`stagehand_py.codegen`): each assertion's locator is its
first selector, the most durable one (the compiler puts user-facing locators first where they
find exactly the element: ``get_by_test_id``, ``get_by_role``, ``get_by_label``,
``get_by_text``), and a variable is read from ``os.environ`` (or a parameter), never written
out::

    expect(page.get_by_test_id("total")).to_have_text("42.00 EUR")
    expect(page).to_have_url(re.compile(re.escape("/order/done")))

Pure functions, no browser.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..codegen import (
    CodeOptions,
    CodeShape,
    VariablesAs,
    argument_expression,
    names_in,
)
from ..codegen_locator import locator_expression
from ._assertions import COUNT_KINDS, PAGE_KINDS, CheckAssertion

if TYPE_CHECKING:
    from typing_extensions import Unpack


def expect_target(assertion: CheckAssertion) -> str:
    """What ``expect(...)`` is given: ``page``, or the assertion's locator."""
    if assertion.kind in PAGE_KINDS:
        return "page"
    # The compiler orders the selectors: user-facing ones that find exactly the element first.
    return locator_expression(assertion.selectors[0], assertion.frame)


def expected_expression(assertion: CheckAssertion, variables: VariablesAs = "env") -> str:
    """The argument of the expect method ('' for a state)."""
    expected = assertion.expected
    if expected is None:
        return ""
    if assertion.kind in COUNT_KINDS:
        return str(int(expected))
    text = argument_expression(str(expected), variables)
    if assertion.kind == "to_have_url":  # the URL contains it (another port, another host)
        return f"re.compile(re.escape({text}))"
    return text


def expect_line(
    assertion: CheckAssertion, *, variables: VariablesAs = "env", wait: str = ""
) -> str:
    """``expect(target).kind(expected)``; ``wait`` is ``"await "`` in async code."""
    argument = expected_expression(assertion, variables)
    return f"{wait}expect({expect_target(assertion)}).{assertion.kind}({argument})"


def check_code(assertions: Iterable[CheckAssertion], **options: Unpack[CodeOptions]) -> str:
    """A Python module defining ``function_name(page, ...)`` that makes the check's
    assertions with Playwright's ``expect`` (see :func:`stagehand_py.codegen.playwright_code`
    for ``style``, ``variables``, ``url`` and ``title``)."""
    shape = CodeShape.of(options)
    compiled = list(assertions)
    body = shape.opening()
    body.extend(expect_line(a, variables=shape.variables, wait=shape.wait) for a in compiled)
    if not compiled:
        body.append("pass  # not compiled: the model judges this statement on every run")
    return shape.module(
        body,
        names_in(str(a.expected) for a in compiled if a.expected is not None),
        modules=["re"] if any(a.kind == "to_have_url" for a in compiled) else [],
        playwright_names=("Page", "expect"),
    )
