"""Plain Playwright code for what an act() or observe() did: no model, no stagehand_py.

:func:`playwright_code` turns recorded steps (``ActionRecord``s, ``ObserveResult``s, or
anything with ``method``, ``selector``, ``selectors``, ``frame`` and ``arguments``) into a
small Python function, sync or async::

    print(result.to_playwright_code())                 # ActResult / ObserveResult shortcut
    print(playwright_code(result.actions, style="async", variables="params"))

Variables are never values: ``<|EMAIL|>`` becomes ``os.environ["EMAIL"]`` (or a parameter
``email`` with ``variables="params"``). A step an act() recorded carries the user-facing
locator Playwright's own codegen picks for its element (``get_by_test_id``, ``get_by_role``,
``get_by_label``, ``get_by_placeholder``, ``get_by_text`` ...) when that locator found exactly
the element; the code uses it. Otherwise each step uses the most durable selector it holds:
those locators first, then an id, then a unique attribute, then text, and a positional XPath
only when nothing else exists. A selector that carries a placeholder is never used.

Pure functions, no browser: unit-tested in ``tests/test_codegen.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypedDict

from ._errors import ConfigurationError
from .codegen_locator import durability, internal_call, locator_expression, py_string
from .prompts.act import LOCATOR_CALLS

if TYPE_CHECKING:
    from typing_extensions import Unpack

Style = Literal["sync", "async"]
VariablesAs = Literal["env", "params"]

_PLACEHOLDER = re.compile(r"<\|([A-Za-z_][A-Za-z0-9_]*)\|>|%([A-Za-z_][A-Za-z0-9_]*)%")
_WHEEL_PIXELS = {"down": 600, "up": -600, "bottom": 100_000, "top": -100_000}


class Step(Protocol):
    """What a recorded step offers (``ActionRecord`` and ``ObserveResult`` both do)."""

    @property
    def method(self) -> str: ...
    @property
    def selector(self) -> str: ...
    @property
    def selectors(self) -> list[str]: ...
    @property
    def frame(self) -> list[str]: ...
    @property
    def arguments(self) -> list[str]: ...


def durable_selector(step: Step) -> str | None:
    """The step's user-facing selector (see :func:`user_facing_call`) when it has one, else its
    most durable selector; never one that holds a variable placeholder (None if none)."""
    # Optional: act() records carry it; observe results and agent steps do not.
    user_facing = getattr(step, "user_facing_selector", None)
    if isinstance(user_facing, str) and user_facing_call(user_facing) is not None:
        return user_facing
    return most_durable([*step.selectors, step.selector])


def user_facing_call(selector: str) -> str | None:
    """``get_by_*(...)`` for one user-facing Playwright selector (test id, role, label,
    placeholder, alt text, title, text, as ``get_by_*`` compile to), else None: a chain, a
    position, a regular expression or a placeholder is not one."""
    if ">>" in selector or _PLACEHOLDER.search(selector):
        return None
    return internal_call(selector)


def most_durable(selectors: Iterable[str]) -> str | None:
    """The most durable of ``selectors`` that holds no variable placeholder (None if none)."""
    candidates = [s for s in selectors if s and not _PLACEHOLDER.search(s)]
    if not candidates:
        return None
    # Stable: among equally durable selectors the recorded order (most exact first) wins.
    return min(candidates, key=durability)


def _variable_name(match: re.Match[str]) -> str:
    return (match.group(1) or match.group(2)).upper()


def argument_expression(argument: str, variables: VariablesAs) -> str:
    """A Python expression for an argument: literal text, with each placeholder a lookup."""
    parts: list[str] = []
    position = 0
    for match in _PLACEHOLDER.finditer(argument):
        if match.start() > position:
            parts.append(py_string(argument[position : match.start()]))
        name = _variable_name(match)
        parts.append(f"os.environ[{py_string(name)}]" if variables == "env" else name.lower())
        position = match.end()
    if position < len(argument) or not parts:
        parts.append(py_string(argument[position:]))
    return " + ".join(parts)


def variable_names(steps: Iterable[Step]) -> list[str]:
    """Upper-cased variable names the steps use, in order of first use."""
    return names_in(argument for step in steps for argument in step.arguments)


def names_in(texts: Iterable[str]) -> list[str]:
    """Upper-cased variable names the placeholders of ``texts`` name, in order of first use."""
    names: dict[str, None] = {}
    for text in texts:
        for match in _PLACEHOLDER.finditer(text):
            names.setdefault(_variable_name(match))
    return list(names)


def step_lines(step: Step, *, variables: VariablesAs = "env", wait: str = "") -> list[str]:
    """The statement(s) for one step; ``wait`` is ``"await "`` in async code."""
    selector = durable_selector(step)
    if selector is None:
        return [f"# {step.method}: every selector of this step holds a variable; redo it by hand"]
    target = locator_expression(selector, step.frame)
    args = [argument_expression(a, variables) for a in step.arguments]
    if step.method in LOCATOR_CALLS:
        return [f"{wait}{target}.{LOCATOR_CALLS[step.method]}({', '.join(args)})"]
    if step.method == "select_option":
        chosen = args[0] if len(args) == 1 else f"[{', '.join(args)}]"
        return [f"{wait}{target}.select_option({chosen})"]
    if step.method == "scroll":
        direction = step.arguments[0] if step.arguments else "down"
        pixels = _WHEEL_PIXELS.get(direction, 600)
        return [
            f"{wait}{target}.hover()  # scroll {direction} inside this element",
            f"{wait}page.mouse.wheel(0, {pixels})",
        ]
    return [f"# {step.method} is not a Playwright call this generator knows"]


class CodeOptions(TypedDict, total=False):
    """How a generated module looks (every writer takes these; see :func:`playwright_code`)."""

    style: Style
    variables: VariablesAs
    function_name: str
    url: str | None
    title: str


@dataclass(frozen=True)
class CodeShape:
    """:class:`CodeOptions` with their defaults, checked: what a writer builds its module by."""

    style: Style = "sync"
    variables: VariablesAs = "env"
    function_name: str = "run"
    url: str | None = None
    title: str = ""

    @classmethod
    def of(cls, options: CodeOptions) -> CodeShape:
        shape = cls(**options)
        check_code_options(shape.style, shape.variables, shape.function_name)
        return shape

    @property
    def wait(self) -> str:
        """What goes before a Playwright call: ``"await "`` in async code."""
        return "await " if self.style == "async" else ""

    def opening(self) -> list[str]:
        """The body's first lines: the ``page.goto`` of ``url`` when there is one."""
        return [] if self.url is None else [f"{self.wait}page.goto({py_string(self.url)})"]

    def module(self, body: list[str], names: Sequence[str], **extra: Any) -> str:
        """:func:`module_code` around ``body`` in this shape (``extra``: its other options)."""
        return module_code(
            body,
            names,
            style=self.style,
            variables=self.variables,
            function_name=self.function_name,
            title=self.title,
            **extra,
        )


def playwright_code(steps: Iterable[Step], **options: Unpack[CodeOptions]) -> str:
    """A Python module defining ``function_name(page, ...)`` that redoes ``steps``.

    ``style`` picks ``playwright.sync_api`` or ``async_api``; ``variables="env"`` reads each
    variable from ``os.environ``, ``"params"`` makes it a parameter of the function. ``url``
    adds a ``page.goto`` first; ``title`` becomes a comment (e.g. the instruction).
    """
    shape = CodeShape.of(options)
    recorded = list(steps)
    body = shape.opening()
    for step in recorded:
        body.extend(step_lines(step, variables=shape.variables, wait=shape.wait))
    return shape.module(body, variable_names(recorded))


def check_code_options(style: str, variables: str, function_name: str) -> None:
    """A :class:`ConfigurationError` for a style, variables mode or name that cannot be."""
    if style not in ("sync", "async"):
        raise ConfigurationError(f"style must be 'sync' or 'async', not {style!r}")
    if variables not in ("env", "params"):
        raise ConfigurationError(f"variables must be 'env' or 'params', not {variables!r}")
    if not function_name.isidentifier():
        raise ConfigurationError(f"function_name {function_name!r} is not a Python identifier")


def module_code(
    body: list[str],
    names: Sequence[str],
    *,
    style: Style,
    variables: VariablesAs,
    function_name: str,
    title: str,
    modules: Sequence[str] = (),
    playwright_names: Sequence[str] = ("Page",),
) -> str:
    """The module around ``body`` (the function's statements): imports (``os`` for
    variables read from the environment, the standard ``modules`` named, ``playwright_names``
    from Playwright), the signature with one parameter per variable name
    (``variables="params"``), a title comment."""
    if not body:
        body.append("pass  # nothing was done")
    params = "".join(f", {name.lower()}: str" for name in names) if variables == "params" else ""
    header: list[str] = []
    if title:
        header.append("# " + " ".join(title.split()))
    imported = sorted({*modules, *(["os"] if variables == "env" and names else [])})
    if imported:
        header.extend(f"import {module}" for module in imported)
        header.append("")
    header.append(f"from playwright.{style}_api import {', '.join(playwright_names)}")
    header.extend(["", ""])
    keyword = "async def" if style == "async" else "def"
    header.append(f"{keyword} {function_name}(page: Page{params}) -> None:")
    return "\n".join([*header, *("    " + line for line in body)]) + "\n"


class WritesPlaywrightCode:
    """Gives a result ``to_playwright_code()``: the result names the writer, its steps and the
    title (:meth:`_code_parts`), this class the one signature every result shares."""

    def _code_parts(self) -> tuple[Callable[..., str], Sequence[Any], str]:
        raise NotImplementedError

    def to_playwright_code(
        self,
        style: Style = "sync",
        *,
        variables: VariablesAs = "env",
        function_name: str = "run",
        url: str | None = None,
    ) -> str:
        """Plain Playwright Python that redoes what this result did, with no model.

        A module defining ``run(page)`` (``async def`` with ``style="async"``); variables are
        ``os.environ["NAME"]`` lookups, or parameters with ``variables="params"``; never
        values. Each step uses its most durable selector; an agent run keeps only its actions
        that succeeded. ``url`` adds a ``page.goto`` first. See :mod:`stagehand_py.codegen`
        (and :mod:`stagehand_py.codegen_agent` for an agent run).
        """
        write, steps, title = self._code_parts()
        return write(
            steps,
            style=style,
            variables=variables,
            function_name=function_name,
            url=url,
            title=title,
        )
