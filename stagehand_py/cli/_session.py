"""What every page command shares: a Chromium, a configured Stagehand and an open page."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import sync_playwright

from .._config import Settings
from .._errors import ConfigurationError, PageError
from .._history import CallRecord
from .._run_modes import RunMode
from .._sync.browser.launch import launch_chromium
from .._sync.page import StagehandPage
from .._sync.stagehand import Stagehand
from .._usage import Usage


def api_key_from(args: argparse.Namespace) -> str | None:
    """The key named by ``--api-key-env`` (the key itself never goes on a command line)."""
    name: str | None = getattr(args, "api_key_env", None)
    if not name:
        return None
    value = os.environ.get(name)
    if not value:
        raise ConfigurationError(
            f"--api-key-env {name}: the environment variable {name} is not set. "
            "Export it, or drop the option to use the provider's usual variable."
        )
    return value


def settings_from(args: argparse.Namespace) -> Settings:
    """Settings from the environment, then ``--timeout``, ``--max-steps``, ``--cache-mode``,
    ``--max-tokens`` and ``--temperature`` where given (a bad ``STAGEHAND_PY_*`` variable is a
    ConfigurationError naming it)."""
    return Settings.from_env(
        timeout_s=getattr(args, "timeout", None),
        max_steps=getattr(args, "max_steps", None),
        cache_mode=getattr(args, "cache_mode", None),
        max_tokens=getattr(args, "max_tokens", None),
        temperature=getattr(args, "temperature", None),
    )


def build_stagehand(args: argparse.Namespace, llm: Any = None) -> Stagehand:
    """A Stagehand from the command's model options (``llm`` wins when given)."""
    return Stagehand(
        getattr(args, "model", None),
        llm=llm,
        api_key=api_key_from(args),
        base_url=getattr(args, "base_url", None),
        cache_dir=getattr(args, "cache_dir", None),
        settings=settings_from(args),
    )


@contextmanager
def open_page(
    url: str, stagehand: Stagehand, *, headed: bool = False, mode: RunMode | None = None
) -> Iterator[StagehandPage]:
    """Launch Chromium (``mode``: the dev/prod preset), open ``url`` in a wrapped page, and
    close everything afterwards.

    Opening the page is bounded by the settings' ``timeout_s`` (``--timeout``)."""
    with sync_playwright() as playwright:
        headless = False if headed else None
        browser = launch_chromium(playwright.chromium, headless=headless, mode=mode)
        try:
            page = stagehand.wrap(browser.new_page(viewport={"width": 1280, "height": 720}))
            try:
                page.goto(url, timeout=stagehand.settings.timeout_s * 1000)
            except PlaywrightError as exc:
                reason = str(exc).splitlines()[0]
                raise PageError(f"Could not open {url}: {reason}. Check the URL.") from None
            yield page
        finally:
            browser.close()


def usage_line(history: list[CallRecord]) -> str:
    """One line totalling what the model calls of ``history`` cost."""
    total = Usage()
    calls = 0
    for record in history:
        total = total + record.usage
        calls += record.llm_calls
    return (
        f"usage: {calls} LLM call(s), {total.prompt_tokens} prompt + "
        f"{total.completion_tokens} completion tokens ({total.cached_tokens} cached), "
        f"{total.wall_time_s:.1f}s waiting for the model"
    )
