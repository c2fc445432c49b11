"""Plain Playwright code for a saved agent run: what its successful actions did, in order.

``agent_playwright_code(result)`` (or ``AgentResult.to_playwright_code()``) reads the run's
history (``result.steps[*].results``): element actions become locator calls through the same
selector choice as act()'s code (:mod:`stagehand_py.codegen`), navigation becomes
``page.goto`` / ``page.go_back``, scrolling a wheel, waiting ``wait_for_timeout``, a tab
switch a reassignment of ``page``. Actions that failed or never ran are left out; ``extract``
and ``done`` become comments (their answers are data, not page actions). Variables are
``os.environ[...]`` lookups or parameters, never values: the history holds placeholders only.

Pure functions, no browser.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from .codegen import (
    CodeOptions,
    CodeShape,
    VariablesAs,
    argument_expression,
    step_lines,
    variable_names,
)
from .codegen_locator import py_string

if TYPE_CHECKING:
    from typing_extensions import Unpack

# Agent action -> (act method, the parameter holding its one argument).
_ELEMENT_ACTIONS: dict[str, tuple[str, str | None]] = {
    "click": ("click", None),
    "fill": ("fill", "text"),
    "type": ("type", "text"),
    "select_option": ("select_option", "option"),
    "check": ("check", None),
    "uncheck": ("uncheck", None),
    "press": ("press", "key"),
    "hover": ("hover", None),
}
_WHEEL = {"down": 1, "up": -1, "bottom": 100, "top": -100}
_PAGE_PIXELS = 600


class Outcome(Protocol):
    """What an agent step's action record offers (``agent.ActionOutcome``)."""

    @property
    def action(self) -> str: ...
    @property
    def params(self) -> dict[str, Any]: ...
    @property
    def status(self) -> str: ...
    @property
    def selector(self) -> str | None: ...
    @property
    def selectors(self) -> list[str]: ...
    @property
    def frame(self) -> list[str]: ...


@dataclass
class _Step:
    """An element action in the shape :func:`codegen.step_lines` reads."""

    method: str
    selector: str
    selectors: list[str] = field(default_factory=list)
    frame: list[str] = field(default_factory=list)
    arguments: list[str] = field(default_factory=list)


def _element_step(outcome: Outcome) -> _Step | None:
    argument: str | None
    if outcome.action == "scroll":
        method, argument = "scroll", str(outcome.params.get("direction", "down"))
    elif outcome.action in _ELEMENT_ACTIONS:
        method, key = _ELEMENT_ACTIONS[outcome.action]
        argument = None if key is None else str(outcome.params.get(key, ""))
    else:
        return None
    if not outcome.selector and not outcome.selectors:
        return None
    return _Step(
        method=method,
        selector=outcome.selector or "",
        selectors=list(outcome.selectors),
        frame=list(outcome.frame),
        arguments=[] if argument is None else [argument],
    )


def outcome_lines(outcome: Outcome, *, variables: VariablesAs, wait: str) -> list[str]:
    """The statements for one successful agent action."""
    params = outcome.params
    step = _element_step(outcome)
    if step is not None:
        return step_lines(step, variables=variables, wait=wait)
    action = outcome.action
    if action == "scroll":  # the page itself
        pages = float(params.get("pages", 1.0))
        pixels = int(_WHEEL.get(str(params.get("direction", "down")), 1) * pages * _PAGE_PIXELS)
        return [f"{wait}page.mouse.wheel(0, {pixels})"]
    if action == "navigate":
        return [f"{wait}page.goto({argument_expression(str(params.get('url', '')), variables)})"]
    if action == "go_back":
        return [f"{wait}page.go_back()"]
    if action == "wait":
        return [f"{wait}page.wait_for_timeout({int(float(params.get('seconds', 1)) * 1000)})"]
    if action == "switch_tab":
        tab = int(params.get("tab", 0))
        return [f"page = page.context.pages[{tab}]", f"{wait}page.bring_to_front()"]
    if action == "close_tab":
        tab = int(params.get("tab", 0))
        return [f"{wait}page.context.pages[{tab}].close()", "page = page.context.pages[-1]"]
    if action == "extract":
        return [f"# extract {py_string(str(params.get('instruction', '')))}: read the page here"]
    if action == "done":
        return []
    return [f"# {action}: not a Playwright call this generator knows"]


def _element_steps(outcomes: Iterable[Outcome]) -> list[_Step]:
    """The element actions of ``outcomes``, as codegen steps."""
    return [s for s in (_element_step(o) for o in outcomes) if s is not None]


def agent_playwright_code(outcomes: Sequence[Outcome], **options: Unpack[CodeOptions]) -> str:
    """A module defining ``function_name(page, ...)`` that redoes the successful ``outcomes``
    (every step's ``results`` in order; failed and skipped actions are left out)."""
    shape = CodeShape.of(options)
    done = [o for o in outcomes if o.status == "ok"]
    body = shape.opening()
    for outcome in done:
        body.extend(outcome_lines(outcome, variables=shape.variables, wait=shape.wait))
    # The arguments the code reads: element actions' and navigations' (comments read none).
    carriers = _element_steps(done)
    for outcome in done:
        if outcome.action == "navigate":
            carriers.append(_Step("goto", "", arguments=[str(outcome.params.get("url", ""))]))
    return shape.module(body, variable_names(carriers))
