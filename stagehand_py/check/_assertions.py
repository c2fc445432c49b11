"""The compiled form of a check(): allow-listed Playwright assertions on located elements.

A :class:`CheckAssertion` is what the cache stores for a check and what a replay runs with
Playwright's own ``expect``: one kind from a closed set (:data:`ASSERTION_KINDS`), the
element's selectors (most durable first) and frame path, and the expected value with
variable placeholders (``<|NAME|>``), never values. Validated when an entry is loaded, like a
cached act step: a kind off the allow-list, an expected value of the wrong type, a selector on
a page-level assertion or a placeholder in a selector makes the entry unusable.
"""

from __future__ import annotations

import re
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

AssertionKind = Literal[
    "to_be_visible",
    "to_be_hidden",
    "to_have_text",
    "to_contain_text",
    "not_to_contain_text",
    "to_have_value",
    "to_be_checked",
    "not_to_be_checked",
    "to_be_enabled",
    "to_be_disabled",
    "to_have_count",
    "to_have_url",
    "to_have_title",
]
"""Every assertion a compiled check may hold (Playwright ``expect`` methods)."""
ASSERTION_KINDS: tuple[str, ...] = get_args(AssertionKind)

PAGE_KINDS = frozenset({"to_have_url", "to_have_title"})
"""Assertions on the page itself: no element."""
TEXT_KINDS = frozenset(
    {
        "to_have_text",
        "to_contain_text",
        "not_to_contain_text",
        "to_have_value",
        "to_have_url",
        "to_have_title",
    }
)
"""Assertions whose expected value is text (placeholders allowed)."""
COUNT_KINDS = frozenset({"to_have_count"})
"""Assertions whose expected value is a whole number (the locator matches that many)."""
PRESENCE_KINDS = frozenset({"to_be_visible", "to_be_hidden"})
"""Assertions that say only that an element is there: its locator must say which one."""
WHOLE_PAGE_KINDS = frozenset({"to_contain_text", "not_to_contain_text"})
"""Text assertions that may name no element: they read the whole page's text."""
NEGATIVE_KINDS = frozenset(
    {"to_be_hidden", "not_to_contain_text", "not_to_be_checked", "to_be_enabled", "to_be_disabled"}
)
"""Assertions that can carry a statement's negation ("no error is shown", "not disabled")."""

KIND_HELP: dict[str, str] = {
    "to_be_visible": "the element is visible (expected: null)",
    "to_be_hidden": "the element is hidden or absent (expected: null)",
    "to_have_text": "the element's whole text equals expected",
    "to_contain_text": "the element's text contains expected (no element: the page's text)",
    "not_to_contain_text": "the element's text does not contain expected (no element: the page)",
    "to_have_value": "the input's current value equals expected",
    "to_be_checked": "the checkbox or radio is checked (expected: null)",
    "not_to_be_checked": "the checkbox or radio is not checked (expected: null)",
    "to_be_enabled": "the control is enabled (expected: null)",
    "to_be_disabled": "the control is disabled (expected: null)",
    "to_have_count": "elements like this one (element: any one of them) number expected",
    "to_have_url": "the page URL contains expected (a path such as /cart/done; element: null)",
    "to_have_title": "the page title equals expected (element: null)",
}

WHOLE_PAGE_SELECTOR = "css=body"
"""The locator of a text assertion on the whole page."""
MAX_ASSERTIONS = 10
"""More assertions than one statement needs; a longer list is not one we compiled."""
MAX_SELECTORS = 20
MAX_FRAMES = 10
MAX_TEXT_CHARS = 2_000
MAX_COUNT = 1_000_000
"""More elements than a page holds: a larger count is no count the model read."""
_PLACEHOLDER = re.compile(r"<\|[A-Za-z_][A-Za-z0-9_]*\|>|%[A-Za-z_][A-Za-z0-9_]*%")


class CheckAssertion(BaseModel):
    """One compiled assertion of a check, replayable with Playwright's ``expect`` and no model.

    ``selectors`` are the element's locators, most durable first (a replay uses the first that
    finds exactly one element; for ``to_have_count`` and ``to_be_hidden`` the first as it is);
    ``expected`` holds placeholders, never a variable's value; ``description`` is the element's
    line as the model saw it (redacted), for people reading the cache.
    """

    model_config = ConfigDict(extra="forbid")

    kind: str = Field(description="a Playwright expect method on check()'s allow-list")
    selectors: list[str] = Field(default_factory=list, max_length=MAX_SELECTORS)
    frame: list[str] = Field(default_factory=list, max_length=MAX_FRAMES)
    expected: str | int | None = None
    description: str = Field(default="", max_length=MAX_TEXT_CHARS)

    @field_validator("expected", mode="before")
    @classmethod
    def _no_bool(cls, value: Any) -> Any:
        if isinstance(value, bool):  # JSON true would otherwise pass as the number 1
            raise ValueError("expected is text, a whole number or null, not true/false")
        return value

    @field_validator("selectors", "frame")
    @classmethod
    def _bounded(cls, texts: list[str]) -> list[str]:
        if any(len(text) > MAX_TEXT_CHARS for text in texts):
            raise ValueError(f"a selector longer than {MAX_TEXT_CHARS} characters")
        if any(_PLACEHOLDER.search(text) for text in texts):
            raise ValueError("a selector cannot hold a variable placeholder")
        return texts

    @model_validator(mode="after")
    def _checkable(self) -> CheckAssertion:
        problem = assertion_problem(self.kind, self.selectors, self.frame, self.expected)
        if problem is not None:
            raise ValueError(problem)
        return self

    @property
    def uses_variables(self) -> bool:
        return isinstance(self.expected, str) and bool(_PLACEHOLDER.search(self.expected))


def assertion_problem(
    kind: str, selectors: list[str], frame: list[str], expected: object
) -> str | None:
    """Why an assertion of ``kind`` on these selectors with ``expected`` cannot be run, or
    None (shared by the load-time validation and the compiler's check of the model's answer)."""
    if kind not in ASSERTION_KINDS:
        return f"{kind!r} is not on check()'s allow-list ({', '.join(ASSERTION_KINDS)})"
    if kind in PAGE_KINDS:
        if selectors or frame:
            return f"{kind} is about the page: it takes no element"
    elif not any(selector.strip() for selector in selectors):
        return f"{kind} needs an element and has no selector"
    return expected_problem(kind, expected)


def expected_problem(kind: str, expected: object) -> str | None:
    """Why ``expected`` is no value for an assertion of ``kind`` (on the allow-list), or None."""
    if kind in TEXT_KINDS:
        if not isinstance(expected, str):
            return f"{kind} expects text, got {type(expected).__name__}"
        if len(expected) > MAX_TEXT_CHARS:
            return f"{kind}: the expected text is longer than {MAX_TEXT_CHARS} characters"
        if kind not in ("to_have_value", "to_have_text") and not expected.strip():
            return f"{kind} needs a non-empty expected text"
    elif kind in COUNT_KINDS:
        if (
            isinstance(expected, bool)
            or not isinstance(expected, int)
            or not 0 <= expected <= MAX_COUNT
        ):
            return f"{kind} expects a whole number of elements (0 to {MAX_COUNT})"
    elif expected is not None:
        return f"{kind} takes no expected value"
    return None
