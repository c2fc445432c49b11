"""Finding a Chromium without downloads: argument, env var, Playwright's own, PATH, known places."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from stagehand_py import BrowserNotFoundError, find_chromium
from stagehand_py import _chromium as chromium


def _fake_browser(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def empty_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No env var, no Playwright download, nothing on PATH, no known locations."""
    monkeypatch.delenv(chromium.ENV_VAR, raising=False)
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path / "ms-playwright"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setattr(chromium, "KNOWN_LOCATIONS", ())
    monkeypatch.setattr(chromium, "HEADLESS_SHELL_LOCATIONS", ())
    return tmp_path


def test_nothing_installed_is_a_typed_error_saying_what_to_install(empty_machine: Path) -> None:
    with pytest.raises(BrowserNotFoundError) as caught:
        find_chromium()
    message = str(caught.value)
    assert "apt-get install -y chromium" in message
    assert "playwright install chromium" in message
    assert chromium.ENV_VAR in message


def test_order_argument_env_playwright_path(
    empty_machine: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    on_path = _fake_browser(empty_machine / "bin" / "chromium")
    assert find_chromium() == str(on_path)
    bundled = _fake_browser(
        empty_machine / "ms-playwright" / "chromium-1200" / "chrome-linux" / "chrome"
    )
    assert find_chromium() == str(bundled)
    from_env = _fake_browser(empty_machine / "env" / "chrome")
    monkeypatch.setenv(chromium.ENV_VAR, str(from_env))
    assert find_chromium() == str(from_env)
    explicit = _fake_browser(empty_machine / "explicit" / "chrome")
    assert find_chromium(explicit) == str(explicit)


def test_a_wrong_explicit_path_or_env_var_is_reported_not_skipped(
    empty_machine: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_browser(empty_machine / "bin" / "chromium")
    with pytest.raises(BrowserNotFoundError, match="executable_path="):
        find_chromium(empty_machine / "missing")
    monkeypatch.setenv(chromium.ENV_VAR, str(empty_machine / "nope"))
    with pytest.raises(BrowserNotFoundError, match="Fix or unset it"):
        find_chromium()


def test_the_newest_playwright_revision_wins(empty_machine: Path) -> None:
    root = empty_machine / "ms-playwright"
    _fake_browser(root / "chromium-1100" / "chrome-linux" / "chrome")
    newest = _fake_browser(root / "chromium-1200" / "chrome-linux64" / "chrome")
    assert find_chromium() == str(newest)


def test_quiet_launch_flags_are_added_once() -> None:
    args = chromium.launch_args(["--disable-sync", "--lang=ja"])
    assert args.count("--disable-sync") == 1 and "--lang=ja" in args
    assert "--disable-background-networking" in args


def test_this_machine_has_one() -> None:
    assert os.access(find_chromium(), os.X_OK)


def test_a_headless_launch_prefers_the_headless_shell_from_each_place(
    empty_machine: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    full = _fake_browser(empty_machine / "bin" / "chromium")
    shell = _fake_browser(empty_machine / "bin" / "chromium-headless-shell")
    assert find_chromium(headless=True) == str(shell)
    assert find_chromium() == str(full)  # headed: only a full browser draws windows
    root = empty_machine / "ms-playwright"
    bundled_full = _fake_browser(root / "chromium-1255" / "chrome-linux64" / "chrome")
    bundled_shell = _fake_browser(
        root
        / "chromium_headless_shell-1255"
        / "chrome-headless-shell-linux64"
        / "chrome-headless-shell"
    )
    assert find_chromium(headless=True) == str(bundled_shell)
    assert find_chromium() == str(bundled_full)
    from_env = _fake_browser(empty_machine / "env" / "chrome")
    monkeypatch.setenv(chromium.ENV_VAR, str(from_env))
    assert find_chromium(headless=True) == str(from_env)  # the user's choice holds


def test_a_known_location_headless_shell_comes_before_the_full_browser(
    empty_machine: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    full = _fake_browser(empty_machine / "usr" / "chromium")
    shell = _fake_browser(empty_machine / "usr" / "chromium-headless-shell")
    monkeypatch.setattr(chromium, "KNOWN_LOCATIONS", (str(full),))
    monkeypatch.setattr(chromium, "HEADLESS_SHELL_LOCATIONS", (str(shell),))
    assert find_chromium(headless=True) == str(shell)
    assert find_chromium(headless=False) == str(full)
    _fake_browser(
        empty_machine
        / "ms-playwright"
        / "chromium_headless_shell-1100"
        / "chrome-linux"
        / "headless_shell"
    )
    assert find_chromium(headless=True).endswith("chrome-linux/headless_shell")
    assert find_chromium() == str(full)  # a bundled shell alone never serves a headed launch


def test_playwright_launch_options_get_the_chromium_their_headless_setting_needs(
    empty_machine: Path,
) -> None:
    full = _fake_browser(empty_machine / "bin" / "chromium")
    shell = _fake_browser(empty_machine / "bin" / "chromium-headless-shell")
    headless = chromium.with_found_chromium({"slow_mo": 1, "args": ["--lang=ja"]}, ["--x"])
    assert headless["executable_path"] == str(shell) and headless["slow_mo"] == 1
    assert headless["args"][-2:] == ["--lang=ja", "--x"]
    assert "--disable-background-networking" in headless["args"]
    headed = chromium.with_found_chromium({"headless": False, "args": None})
    assert headed["executable_path"] == str(full)
