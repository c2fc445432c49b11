"""Find a Chromium executable that Playwright can drive, without downloading anything.

Order: an explicit path, then ``$STAGEHAND_PY_CHROMIUM``, then Playwright's own downloaded
browser, then ``chromium`` / ``chromium-browser`` / ``google-chrome`` on ``PATH`` and their
usual install locations. For a headless launch, each of the last three places offers its
headless shell first (Playwright does the same with its own downloads): the shell draws no
windows and spends about half the CPU of the full browser running headless.
"""

from __future__ import annotations

import glob
import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ._errors import BrowserNotFoundError

ENV_VAR = "STAGEHAND_PY_CHROMIUM"
HEADLESS_SHELL_NAMES = ("chromium-headless-shell", "chrome-headless-shell")
PATH_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
HEADLESS_SHELL_LOCATIONS = ("/usr/bin/chromium-headless-shell",)
KNOWN_LOCATIONS = (
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/snap/bin/chromium",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
)
# Flags that keep Chromium from phoning home; on closed networks its background
# connections otherwise fail noisily at every start.
QUIET_ARGS = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)

INSTALL_HINT = (
    "Install one and run again:\n"
    "  Debian/Ubuntu:  sudo apt-get install -y chromium\n"
    "  (on Debian add chromium-headless-shell: headless runs use it, at half the CPU)\n"
    "  or, with internet access:  python -m playwright install chromium\n"
    f"or point {ENV_VAR} at an existing Chrome/Chromium executable."
)


def _is_executable(path: str | os.PathLike[str]) -> bool:
    p = Path(path)
    return p.is_file() and os.access(p, os.X_OK)


# Playwright's download folders: the headless shell's, then the full browser's.
_BUNDLED_HEADLESS_SHELL = (
    "chromium_headless_shell-*/chrome-headless-shell-*/chrome-headless-shell",
    "chromium_headless_shell-*/chrome-headless-shell-*/chrome-headless-shell.exe",
    "chromium_headless_shell-*/chrome-linux*/headless_shell",
    "chromium_headless_shell-*/chrome-mac*/headless_shell",
    "chromium_headless_shell-*/chrome-win*/headless_shell.exe",
)
_BUNDLED_FULL = (
    "chromium-*/chrome-linux*/chrome",
    "chromium-*/chrome-mac*/Chromium.app/Contents/MacOS/Chromium",
    "chromium-*/chrome-mac*/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
    "chromium-*/chrome-win*/chrome.exe",
)


def playwright_bundled_chromium(*, headless: bool = False) -> str | None:
    """Playwright's own downloaded Chromium, if ``playwright install`` ever succeeded
    (with ``headless=True``, its headless shell first)."""
    base = os.environ.get("PLAYWRIGHT_BROWSERS_PATH")
    roots = [Path(base)] if base and base != "0" else []
    if sys.platform == "darwin":
        roots.append(Path.home() / "Library" / "Caches" / "ms-playwright")
    elif sys.platform == "win32":
        roots.append(Path(os.environ.get("LOCALAPPDATA", "")) / "ms-playwright")
    else:
        roots.append(Path.home() / ".cache" / "ms-playwright")
    patterns = (*_BUNDLED_HEADLESS_SHELL, *_BUNDLED_FULL) if headless else _BUNDLED_FULL
    for root in roots:
        for pattern in patterns:
            # Newest revision first.
            for candidate in sorted(glob.glob(str(root / pattern)), reverse=True):
                if _is_executable(candidate):
                    return candidate
    return None


def find_chromium(
    executable_path: str | os.PathLike[str] | None = None, *, headless: bool = False
) -> str:
    """Return the path of a usable Chromium, or raise :class:`BrowserNotFoundError`.

    ``headless=True`` says the browser will run headless, so a headless shell is preferred
    where one is installed (``apt-get install chromium-headless-shell``, or Playwright's own);
    without it, the full browser, which can also run headed.
    """
    if executable_path is not None:
        if _is_executable(executable_path):
            return str(executable_path)
        raise BrowserNotFoundError(
            f"executable_path={str(executable_path)!r} is not an executable file. {INSTALL_HINT}"
        )
    from_env = os.environ.get(ENV_VAR)
    if from_env:
        if _is_executable(from_env):
            return from_env
        raise BrowserNotFoundError(
            f"{ENV_VAR}={from_env!r} is not an executable file. Fix or unset it. {INSTALL_HINT}"
        )
    bundled = playwright_bundled_chromium(headless=headless)
    if bundled:
        return bundled
    for name in (*HEADLESS_SHELL_NAMES, *PATH_NAMES) if headless else PATH_NAMES:
        found = shutil.which(name)
        if found:
            return found
    locations = (*HEADLESS_SHELL_LOCATIONS, *KNOWN_LOCATIONS) if headless else KNOWN_LOCATIONS
    for location in locations:
        if _is_executable(location):
            return location
    raise BrowserNotFoundError(f"No Chromium executable found. {INSTALL_HINT}")


def launch_args(extra: list[str] | None = None) -> list[str]:
    """Default Chromium flags plus the caller's, without duplicates."""
    args = list(QUIET_ARGS)
    for arg in extra or []:
        if arg not in args:
            args.append(arg)
    return args


def with_found_chromium(
    launch: Mapping[str, Any], extra_args: Sequence[str] = ()
) -> dict[str, Any]:
    """Playwright launch options ``launch`` (pytest-playwright's ``browser_type_launch_args``)
    with the Chromium :func:`find_chromium` finds for them: a headless one unless they say
    ``headless=False`` (Playwright launches headless by default), and the default flags plus
    ``extra_args``."""
    return {
        **launch,
        "executable_path": find_chromium(headless=launch.get("headless", True)),
        "args": launch_args([*(launch.get("args") or []), *extra_args]),
    }
