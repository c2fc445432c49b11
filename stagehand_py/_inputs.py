"""Checks on what users hand to the public API, so bad input fails early with a typed error
that says what to pass instead (rather than deep inside Playwright or the model loop)."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ._errors import ConfigurationError, PageError
from ._types import ObserveResult
from .prompts.act import ALLOWED_METHODS

if TYPE_CHECKING:
    from ._variables import Variables

_SCREENSHOT_SUFFIXES = (".png", ".jpg", ".jpeg")


def check_page_type(page: object, expected: type, sdk: str, call: str = "wrap") -> None:
    """``page`` must be a Playwright ``Page`` of the API (sync or async) that ``sdk`` serves
    (checked by ``sdk.wrap()`` and by ``sdk.act/extract/observe(page, ...)``)."""
    if isinstance(page, expected):
        return
    api = "playwright.async_api" if "async_api" in expected.__module__ else "playwright.sync_api"
    kind = type(page)
    got = f"{kind.__module__.split('._')[0]}.{kind.__qualname__}"
    if kind.__module__.startswith("playwright.") and kind.__name__ == "Page":
        hint = (
            "Use Stagehand for pages from playwright.sync_api and AsyncStagehand for pages "
            "from playwright.async_api."
        )
    elif kind.__module__.startswith("playwright."):
        hint = "Pass the page itself (for example context.new_page() or pytest-playwright's page)."
    else:
        hint = "Pass the page you get from browser.new_page() or context.new_page()."
    raise ConfigurationError(f"{sdk}.{call}() needs a {api} Page, got {got}. {hint}")


def check_open(page: object, call: str) -> None:
    """A closed page cannot be read or acted on: say so before trying."""
    is_closed = getattr(page, "is_closed", None)
    if callable(is_closed) and is_closed():
        raise PageError(
            f"{call}() was called on a page that is closed. Open a new page "
            "(context.new_page()) and wrap it."
        )


def check_instruction(call: str, instruction: object, *, required: bool) -> None:
    """Instructions are strings; act() also needs a non-blank one."""
    if instruction is None and not required:
        return
    if not isinstance(instruction, str):
        raise ConfigurationError(
            f"{call}() takes its instruction as a string, not {type(instruction).__name__}."
        )
    if required and not instruction.strip():
        raise ConfigurationError(
            f"{call}() needs an instruction saying what to do, e.g. "
            f"page.{call}('click the Sign in button'); it was blank."
        )


def check_screenshot_path(path: str | os.PathLike[str]) -> None:
    """Chromium picks the format from the suffix; a directory or another suffix cannot work."""
    target = Path(path)
    if target.is_dir():
        raise ConfigurationError(
            f"annotated_screenshot() was given the directory {str(target)!r}; give a file "
            "path such as 'debug/page.png'."
        )
    if target.suffix.lower() not in _SCREENSHOT_SUFFIXES:
        raise ConfigurationError(
            f"annotated_screenshot() writes PNG or JPEG files: {str(target)!r} should end in "
            ".png, .jpg or .jpeg."
        )


def check_action(action: object) -> None:
    """act() takes an instruction or an ObserveResult (from observe())."""
    if isinstance(action, ObserveResult):
        return
    if not isinstance(action, str):
        raise ConfigurationError(
            f"act() takes its instruction as a string, not {type(action).__name__} (or an "
            "ObserveResult from observe()). To act on a Playwright locator, call its own "
            "methods (locator.click()); to act on a page, pass it to Stagehand.act(page, ...)."
        )
    check_instruction("act", action, required=True)


def check_placeholders(call: str, text: str, variables: Variables) -> None:
    """Every ``<|NAME|>`` / ``%name%`` the user wrote must be a variable they gave."""
    unknown = variables.unknown_placeholders(text)
    if unknown:
        given = ", ".join(variables.placeholders) or "none"
        raise ConfigurationError(
            f"{call}() refers to undefined variable(s) "
            f"{', '.join(f'<|{n}|>' for n in dict.fromkeys(unknown))} (given: {given}). "
            "Pass them in variables={...}, or write the text without placeholders."
        )


def check_observed(observed: ObserveResult, variables: Variables) -> None:
    """An ObserveResult handed to act() must name an allowed method with its arguments."""
    if observed.method not in ALLOWED_METHODS:
        raise ConfigurationError(
            f"ObserveResult.method {observed.method!r} is not one act() can run; use one of: "
            f"{', '.join(ALLOWED_METHODS)}."
        )
    low, high = ALLOWED_METHODS[observed.method]
    count = len(observed.arguments)
    if not low <= count <= high:
        wanted = f"{low}" if low == high else f"{low} to {high}"
        raise ConfigurationError(
            f"ObserveResult(method={observed.method!r}) needs {wanted} argument(s), got "
            f"{count}. Set arguments=[...] (e.g. the text to fill, or the key to press)."
        )
    for argument in observed.arguments:
        if not isinstance(argument, str):
            raise ConfigurationError(
                f"ObserveResult arguments must be strings, not {type(argument).__name__}."
            )
        check_placeholders("act", argument, variables)


def check_schema(schema: Any) -> None:
    """extract() needs a model *class* with fields, a JSON-schema dict, or None."""
    if schema is BaseModel:
        raise ConfigurationError(
            "extract(schema=BaseModel) names pydantic's base class, which has no fields to "
            "fill. Pass your own subclass, e.g. class Product(BaseModel): name: str."
        )
    if isinstance(schema, BaseModel):
        raise ConfigurationError(
            f"extract() was given an instance of {type(schema).__name__}; pass the class "
            f"itself (schema={type(schema).__name__})."
        )


MAX_CACHE_KEY_CHARS = 200


def check_cache_key(cache_key: object) -> str | None:
    """extract(cache_key=...): None, or a short non-blank name for a template of pages."""
    if cache_key is None:
        return None
    if not isinstance(cache_key, str) or not cache_key.strip():
        raise ConfigurationError(
            "extract(cache_key=...) must be a non-empty string naming the template of pages "
            f"that share one cache entry (e.g. 'product-page'), not {type(cache_key).__name__}."
        )
    if len(cache_key) > MAX_CACHE_KEY_CHARS:
        raise ConfigurationError(
            f"extract(cache_key=...) is {len(cache_key)} characters; keep it under "
            f"{MAX_CACHE_KEY_CHARS} (a name for a template, not a page)."
        )
    return " ".join(cache_key.split())


def check_timeout(call: str, timeout_s: object) -> float | None:
    """``timeout_s`` is None (the settings' default) or a positive number of seconds."""
    if timeout_s is None:
        return None
    if (
        isinstance(timeout_s, bool)
        or not isinstance(timeout_s, (int, float))
        or not _finite(timeout_s)
        or timeout_s <= 0
    ):
        raise ConfigurationError(
            f"{call}(timeout_s=...) must be a positive number of seconds, got {_shown(timeout_s)}."
        )
    return float(timeout_s)


def _finite(number: float) -> bool:
    try:
        return math.isfinite(number)
    except OverflowError:  # an int too large for a float
        return False


def _shown(value: object) -> str:
    """``repr(value)``, or what it is when it has too many digits to print."""
    try:
        return repr(value)
    except ValueError:  # an int over Python's 4,300-digit limit
        return "an integer too long to print"


def refuse_playwright_timeout(call: str, options: Mapping[str, object]) -> None:
    """Playwright's ``timeout=`` counts milliseconds; every call here takes ``timeout_s=`` in
    seconds. Taking one for the other would be off a thousandfold, so it is refused by name."""
    if "timeout" not in options:
        return
    given = options["timeout"]
    example = "timeout_s=30"
    if isinstance(given, (int, float)) and not isinstance(given, bool) and 0 < given < math.inf:
        example = f"timeout_s={given / 1000:g}"
    raise ConfigurationError(
        f"{call}() takes no timeout=: did you mean timeout_s (seconds)? Playwright's timeout= "
        f"counts milliseconds; pass {example}."
    )
