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


# The longest wait Playwright's driver can time (a Node.js timer holds 2**31-1 ms): a longer
# --timeout made opening the page fail at once, and blame the URL.
MAX_TIMEOUT_S = (2**31 - 1) // 1000


def settings_from(args: argparse.Namespace) -> Settings:
    """Settings from the environment, then ``--timeout``, ``--max-steps``, ``--cache-mode``,
    ``--max-tokens`` and ``--temperature`` where given (a bad ``STAGEHAND_PY_*`` variable is a
    ConfigurationError naming it)."""
    settings = Settings.from_env(
        timeout_s=getattr(args, "timeout", None),
        max_steps=getattr(args, "max_steps", None),
        cache_mode=getattr(args, "cache_mode", None),
        max_tokens=getattr(args, "max_tokens", None),
        temperature=getattr(args, "temperature", None),
    )
    if not settings.timeout_s <= MAX_TIMEOUT_S:  # also inf (NaN is refused by Settings)
        given = (
            "--timeout" if getattr(args, "timeout", None) is not None else "$STAGEHAND_PY_TIMEOUT"
        )
        raise ConfigurationError(
            f"{given} {settings.timeout_s:g}: a time budget is at most {MAX_TIMEOUT_S} seconds "
            "(about 24 days, the longest wait Playwright's timers allow); give a number of "
            "seconds such as 120."
        )
    return settings


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


DEFAULT_VIEWPORT = (1280, 720)


def viewport_size(text: str) -> tuple[int, int]:
    """``--viewport WIDTHxHEIGHT``, e.g. ``1280x720`` (argparse reports a bad one)."""
    width, sep, height = text.lower().partition("x")
    if not (sep and width.strip().isdigit() and height.strip().isdigit()):
        raise argparse.ArgumentTypeError(f"expects WIDTHxHEIGHT such as 1280x720, got {text!r}")
    size = (int(width), int(height))
    if min(size) < 1:
        raise argparse.ArgumentTypeError(f"a viewport of {text!r} has no area")
    return size


def add_browser_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("browser")
    group.add_argument("--headed", action="store_true", help="show the browser window")
    group.add_argument(
        "--browser-channel",
        metavar="CHANNEL",
        help="an installed browser instead of the Chromium found: chrome, msedge, chrome-beta...",
    )
    group.add_argument(
        "--storage-state",
        metavar="FILE",
        help="cookies and local storage to start from: a file saved by Playwright's "
        "context.storage_state(path=...), e.g. after logging in",
    )
    group.add_argument(
        "--viewport",
        type=viewport_size,
        metavar="WxH",
        help=f"the page's size in CSS pixels (default: {'x'.join(map(str, DEFAULT_VIEWPORT))})",
    )


def browser_options(args: argparse.Namespace, **chosen: Any) -> dict[str, Any]:
    """The keyword arguments of :func:`open_page` from the command's browser options
    (``chosen`` overrides them, e.g. snapshot's own ``mode``)."""
    options = {
        "headed": args.headed,
        "mode": args.mode,
        "channel": getattr(args, "browser_channel", None),
        "storage_state": getattr(args, "storage_state", None),
        "viewport": getattr(args, "viewport", None) or DEFAULT_VIEWPORT,
    }
    return {**options, **chosen}


@contextmanager
def open_page(
    url: str,
    stagehand: Stagehand,
    *,
    headed: bool = False,
    mode: RunMode | None = None,
    channel: str | None = None,
    storage_state: str | None = None,
    viewport: tuple[int, int] = DEFAULT_VIEWPORT,
) -> Iterator[StagehandPage]:
    """Launch Chromium (``mode``: the dev/prod preset; ``channel``: an installed browser
    instead), open ``url`` in a wrapped page of a context started from ``storage_state`` (a
    file), and close everything afterwards.

    Opening the page is bounded by the settings' ``timeout_s`` (``--timeout``)."""
    if storage_state is not None and not os.path.isfile(storage_state):
        raise ConfigurationError(
            f"--storage-state {storage_state}: no such file. Save one with Playwright's "
            "context.storage_state(path=...)."
        )
    with sync_playwright() as playwright:
        headless = False if headed else None
        launch: dict[str, Any] = {"channel": channel} if channel else {}
        browser = launch_chromium(playwright.chromium, headless=headless, mode=mode, **launch)
        try:
            width, height = viewport
            context = browser.new_context(
                viewport={"width": width, "height": height}, storage_state=storage_state
            )
            page = stagehand.wrap(context.new_page())
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
