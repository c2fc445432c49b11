"""Run presets: ``launch_chromium(mode="dev"|"prod")`` hands Playwright the preset's options
(checked on a stand-in browser type: a headed browser cannot open on this machine), explicit
arguments win, and ``prod`` puts the package's logging at ERROR."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest

from stagehand_py import ConfigurationError, launch_chromium
from stagehand_py._run_modes import DEVTOOLS_FLAG


class RecordingBrowserType:
    def __init__(self) -> None:
        self.launches: list[dict[str, Any]] = []

    def launch(self, **options: Any) -> str:
        self.launches.append(options)
        return "browser"


@pytest.fixture
def package_log_level() -> Iterator[None]:
    logger = logging.getLogger("stagehand_py")
    level = logger.level
    yield
    logger.setLevel(level)


def test_dev_is_headed_with_devtools_and_slow_mo() -> None:
    chromium = RecordingBrowserType()
    launch_chromium(chromium, mode="dev")  # type: ignore[arg-type]
    [options] = chromium.launches
    assert options["headless"] is False and options["slow_mo"] == 500
    assert DEVTOOLS_FLAG in options["args"]


def test_prod_is_headless_fast_and_quiet(package_log_level: None) -> None:
    chromium = RecordingBrowserType()
    launch_chromium(chromium, mode="prod")  # type: ignore[arg-type]
    [options] = chromium.launches
    assert options["headless"] is True and options["slow_mo"] == 0
    assert DEVTOOLS_FLAG not in options["args"]
    assert logging.getLogger("stagehand_py").getEffectiveLevel() == logging.ERROR


def test_explicit_arguments_win_and_no_mode_keeps_the_old_defaults() -> None:
    chromium = RecordingBrowserType()
    launch_chromium(chromium, mode="dev", headless=True, slow_mo=50)  # type: ignore[arg-type]
    launch_chromium(chromium)  # type: ignore[arg-type]
    dev, plain = chromium.launches
    assert (dev["headless"], dev["slow_mo"]) == (True, 50)
    assert plain["headless"] is True and "slow_mo" not in plain


def test_an_unknown_mode_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="mode must be one of dev, prod"):
        launch_chromium(RecordingBrowserType(), mode="aria")  # type: ignore[arg-type]
