"""Checks on what users hand to the public API, so bad input fails early with a typed error
that says what to pass instead (rather than deep inside Playwright or the model loop)."""

from __future__ import annotations

import os
from pathlib import Path

from ._errors import ConfigurationError, PageError

_SCREENSHOT_SUFFIXES = (".png", ".jpg", ".jpeg")


def check_page_type(page: object, expected: type, sdk: str) -> None:
    """``page`` must be a Playwright ``Page`` of the API (sync or async) that ``sdk`` serves."""
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
    raise ConfigurationError(f"{sdk}.wrap() needs a {api} Page, got {got}. {hint}")


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
