"""Run presets (the ADR's run modes): ``dev`` to watch a run, ``prod`` to run it fast and quiet.

``dev``   headed, DevTools opened for each tab, ``slow_mo=500`` ms between Playwright calls
``prod``  headless, no slow-down, the package's logging at ERROR

Arguments given explicitly (``headless=``, ``slow_mo=``) win over the preset. On the command
line the same presets are ``--mode dev|prod``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Literal

from ._errors import ConfigurationError

RunMode = Literal["dev", "prod"]
RUN_MODES: tuple[RunMode, ...] = ("dev", "prod")
DEVTOOLS_FLAG = "--auto-open-devtools-for-tabs"


@dataclass(frozen=True)
class RunPreset:
    headless: bool
    slow_mo: float
    devtools: bool
    log_level: int | None  # None: leave the package's logging as it is


PRESETS: dict[RunMode, RunPreset] = {
    "dev": RunPreset(headless=False, slow_mo=500, devtools=True, log_level=None),
    "prod": RunPreset(headless=True, slow_mo=0, devtools=False, log_level=logging.ERROR),
}


def preset_launch_options(
    mode: object,
    *,
    headless: bool | None,
    args: list[str],
    options: dict[str, Any],
) -> tuple[bool, list[str], dict[str, Any]]:
    """``(headless, args, other launch options)`` for ``mode`` (None: headless, as given).

    Applies the preset's logging level as a side effect (``prod``: ERROR)."""
    if mode is None:
        return (True if headless is None else headless), args, options
    if mode not in PRESETS:
        raise ConfigurationError(
            f"mode must be one of {', '.join(RUN_MODES)} (or None), got {mode!r}: 'dev' is "
            "headed with DevTools and slow_mo=500, 'prod' headless, fast and quiet."
        )
    preset = PRESETS[mode]
    chosen = preset.headless if headless is None else headless
    extra = [*args, DEVTOOLS_FLAG] if preset.devtools and DEVTOOLS_FLAG not in args else args
    merged = {"slow_mo": preset.slow_mo, **options}
    if preset.log_level is not None:
        logging.getLogger("stagehand_py").setLevel(preset.log_level)
    return chosen, extra, merged
