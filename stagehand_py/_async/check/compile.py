"""Compile the model's proposed assertions into ones a replay can trust, or say why not.

Every part of the model's answer is checked: the kind against the allow-list, the element
number against the elements shown, the expected value against the kind. The element's
locators come from the page, never from the model: its own selectors (DOM: XPaths; aria: the
locator ladder) and, in the DOM view, the user-facing ones Playwright's codegen prefers
(test id, role and name, placeholder, text), each kept only when it finds exactly that element
now. They are ordered most durable first; a text assertion's locator does not quote the text
it checks (when another exists), and a presence check needs a locator that says which element
it means, not only where it stands. Then the set must not be weaker than the statement
(:func:`~stagehand_py.check._strength.weaker_than`) and must pass on the page now, through
Playwright's ``expect``. Anything short of that: not compiled, with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator as AsyncLocator
from playwright.async_api import Page as AsyncPage

from ..._deadline_clock import Deadline
from ..._errors import PageError
from ..._snapshot import Element, Snapshot
from ..._variables import Variables
from ...aria._ladder import placeholder_rung, role_rung, testid_rung, text_rung
from ...cache._entry import has_placeholder
from ...check._assertions import (
    ASSERTION_KINDS,
    COUNT_KINDS,
    MAX_ASSERTIONS,
    MAX_SELECTORS,
    PAGE_KINDS,
    PRESENCE_KINDS,
    TEXT_KINDS,
    WHOLE_PAGE_KINDS,
    WHOLE_PAGE_SELECTOR,
    CheckAssertion,
    assertion_problem,
    expected_problem,
)
from ...check._result import evidence_lines
from ...check._strength import weaker_than
from ...codegen_locator import durability
from ...prompts.check import CheckAnswer, ProposedAssertion
from ..browser.locate import frame_scope, locate_selectors
from .expect import first_failure

# The statement holds now (the model just said so): a sound assertion passes at once.
VERIFY_TIMEOUT_MS = 1000.0
POSITIONAL = 6  # durability from which a selector says only where an element stands
MAX_TEXT_RUNG_CHARS = 80
_IMPLICIT_ROLES = {f"h{level}": "heading" for level in range(1, 7)} | {"button": "button"}
_NAMED_BY_TEXT = frozenset({"heading", "button", "link"})
_NO_TEXT_RUNG = frozenset({"input", "select", "textarea", "#text", "option"})
_UNCOUNTABLE_ROLES = frozenset({"", "text", "generic", "none", "presentation"})
_ITEM_ROLES = {"li": "listitem", "tr": "row", "option": "option", "article": "article"}
_LAST_STEP = re.compile(r"^(xpath=/.*)\[\d+\]$")
# A count written as text: ASCII digits only ("²" is a digit int() refuses), and short (int()
# refuses thousands of digits).
_COUNT_TEXT = re.compile(r"[0-9]{1,9}")
_MAX_NUMBER_BITS = 256  # a number as text: str() refuses an int of thousands of digits


@dataclass(frozen=True)
class Compiled:
    """The assertions a check stores (empty when not compiled, ``why_not`` saying why)."""

    assertions: list[CheckAssertion]
    why_not: str | None = None


async def compile_check(
    page: AsyncPage,
    snapshot: Snapshot,
    answer: CheckAnswer,
    shown: frozenset[int],
    statement: str,
    variables: Variables,
    deadline: Deadline,
) -> Compiled:
    """``answer``'s assertions, checked (see the module docstring); ``statement`` is the
    redacted one the model saw."""
    if not answer.compilable or not answer.assertions:
        said = answer.why_not or "the model gave no assertions"
        return Compiled([], variables.redact(said.strip() or "the model gave no reason"))
    if len(answer.assertions) > MAX_ASSERTIONS:
        return Compiled([], f"more than {MAX_ASSERTIONS} assertions were proposed")
    built: list[CheckAssertion] = []
    for number, proposed in enumerate(answer.assertions, 1):
        made = await _assertion(page, snapshot, proposed, shown, variables)
        if isinstance(made, str):
            return Compiled([], variables.redact(f"assertion {number}: {made}"))
        built.append(made)
    weaker = weaker_than(statement, built)
    if weaker is not None:
        return Compiled([], f"the assertions would be weaker than the statement: {weaker}")
    failure = await first_failure(
        page, built, variables, timeout_ms=VERIFY_TIMEOUT_MS, deadline=deadline
    )
    if failure is not None:
        return Compiled([], variables.redact(f"{failure.headline()} (on the page as it is now)"))
    return Compiled(built)


def _expected(kind: str, raw: str | int | None) -> str | int | None:
    """The model's expected value in the type ``kind`` takes (a count written as text, a
    number as text); a state takes none."""
    if kind in COUNT_KINDS and isinstance(raw, str) and _COUNT_TEXT.fullmatch(raw.strip()):
        return int(raw.strip())
    if kind in TEXT_KINDS and isinstance(raw, int) and raw.bit_length() <= _MAX_NUMBER_BITS:
        return str(raw)
    if kind not in TEXT_KINDS | COUNT_KINDS:
        return None
    return raw


async def _assertion(
    page: AsyncPage,
    snapshot: Snapshot,
    proposed: ProposedAssertion,
    shown: frozenset[int],
    variables: Variables,
) -> CheckAssertion | str:
    kind = proposed.kind.strip()
    if kind not in ASSERTION_KINDS:
        return f"{kind!r} is not an assertion check() runs ({', '.join(ASSERTION_KINDS)})"
    expected = _expected(kind, proposed.expected)
    if isinstance(expected, str):  # a value the model wrote out is kept as its placeholder
        expected = variables.redact(expected)
    problem = expected_problem(kind, expected)  # before it is looked for on the page
    if problem is not None:
        return problem
    if isinstance(expected, str) and variables.unknown_placeholders(expected):
        return "its expected value names a variable that was not given"
    selectors: list[str] = []
    frame: list[str] = []
    description = ""
    if kind in WHOLE_PAGE_KINDS and proposed.element is None:
        selectors, description = [WHOLE_PAGE_SELECTOR], "the whole page"
    elif kind not in PAGE_KINDS:
        if proposed.element is None or proposed.element not in shown:
            return f"{kind} needs one of the elements shown, got {proposed.element}"
        element = snapshot.element(proposed.element)
        located = await _selectors(page, element, kind, expected, variables)
        if isinstance(located, str):
            return located
        selectors, frame = located, list(element.frame)
        line = snapshot.render_element(element.index, redact=variables.redact)
        description = evidence_lines([line])[0]
    problem = assertion_problem(kind, selectors, frame, expected)
    if problem is not None:
        return problem
    return CheckAssertion(
        kind=kind, selectors=selectors, frame=frame, expected=expected, description=description
    )


async def _selectors(
    page: AsyncPage,
    element: Element,
    kind: str,
    expected: str | int | None,
    variables: Variables,
) -> list[str] | str:
    """The element's locators for an assertion of ``kind``, best first, or why there is none."""
    own = [s for s in variables.without_secrets(element.selectors) if not has_placeholder(s)]
    try:
        base, _ = await locate_selectors(page, element.frame, own)
    except PageError:
        return f"element {element.index} is no longer on the page as it was shown"
    if kind in COUNT_KINDS:
        return await _count_selectors(page, element, own, expected)
    candidates = own + [s for s in _user_facing(element, variables) if s not in own]
    ranked = sorted(
        [s for s in candidates if await _finds_only(page, element.frame, s, base)],
        key=durability,
    )
    if kind in TEXT_KINDS and isinstance(expected, str) and expected.strip():
        quoted = " ".join(expected.lower().split())
        ranked = [s for s in ranked if quoted not in " ".join(s.lower().split())] or ranked
    if kind in PRESENCE_KINDS:
        ranked = [s for s in ranked if durability(s) < POSITIONAL]
        if not ranked:
            return (
                f"element {element.index} has no locator but its place on the page: a "
                f"{kind} check on it would pass for whatever stands there"
            )
    return ranked[:MAX_SELECTORS]


def _user_facing(element: Element, variables: Variables) -> list[str]:
    """User-facing locators for ``element`` beyond its own: its role alone (the one button
    of a page, which a text assertion can use without quoting the text it checks); in the DOM
    view (the aria view's ladder has these already) test id, role and name, placeholder, text.
    """
    role = element.role or _IMPLICIT_ROLES.get(element.tag, "")
    alone = [f"internal:role={role}"] if role not in _UNCOUNTABLE_ROLES else []
    if element.view != "dom":
        return alone
    rungs: list[str] = []
    attributes = element.attributes
    if attributes.get("data-testid"):
        rungs.append(testid_rung(attributes["data-testid"]).selector)
    name = " ".join((element.name or (element.text if role in _NAMED_BY_TEXT else "")).split())
    if role and name:
        rungs.append(role_rung(role, name).selector)
    rungs += alone
    if attributes.get("placeholder"):
        rungs.append(placeholder_rung(attributes["placeholder"]).selector)
    text = " ".join(element.text.split())
    if element.tag not in _NO_TEXT_RUNG and 0 < len(text) <= MAX_TEXT_RUNG_CHARS:
        rungs.append(text_rung(text).selector)
    return [r for r in variables.without_secrets(rungs) if not has_placeholder(r)]


async def _finds_only(
    page: AsyncPage, frame: Sequence[str], selector: str, base: AsyncLocator
) -> bool:
    """True when ``selector`` finds exactly one element, the one ``base`` found."""
    locator = (await frame_scope(page, frame)).locator(selector)
    try:
        return await locator.count() == 1 and await locator.and_(base).count() == 1
    except PlaywrightError:  # a selector the engine refuses, or a frame that is gone
        return False


async def _count_selectors(
    page: AsyncPage, element: Element, own: Sequence[str], expected: str | int | None
) -> list[str] | str:
    """Locators for "elements like this one" that find ``expected`` elements now: the
    element's role on the whole page (``get_by_role("listitem")``, as a person would write
    it), then its positional path without its last step (its siblings of the same tag)."""
    candidates: list[str] = []
    role = element.role or _ITEM_ROLES.get(element.tag, "")
    if role not in _UNCOUNTABLE_ROLES:
        candidates.append(f"internal:role={role}")
    candidates += [m.group(1) for s in own if (m := _LAST_STEP.match(s))]
    scope = await frame_scope(page, element.frame)
    found: list[str] = []
    for selector in dict.fromkeys(candidates):
        try:
            if await scope.locator(selector).count() == expected:
                found.append(selector)
        except PlaywrightError:
            continue
    if not found:
        return f"no locator for elements like element {element.index} finds {expected} now"
    return found
