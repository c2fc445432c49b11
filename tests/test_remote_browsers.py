"""The SDK on remote browsers, unchanged: a Playwright browser server (``chromium.connect``)
and a Chromium reached over CDP (``connect_over_cdp``), both started here on 127.0.0.1.

What works offline here: ``playwright run-server`` launches browsers for its clients, and
Playwright's own Chromium is not installed, so the server runs with ``--unsafe`` and the client
names Debian's Chromium in the ``x-playwright-launch-options`` header (a server host with
``playwright install chromium`` needs neither). Async only: the sync API is generated from the
same source, and these tests are about the connection, not the API flavour.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.async_api import Browser, async_playwright

from stagehand_py import AsyncStagehand, find_chromium
from tests import secret_values
from tests._async.plan_llm import AsyncPlanLLM, Step

SIGN_IN = [
    Step("fill", r'^<input\b[^>]*type="email"', ["<|EMAIL|>"]),
    Step("check", r"^<input\b[^>]*checkbox"),
    Step("click", r"^<button\b[^>]*>Sign in"),
]
INSTRUCTION = "sign in as <|EMAIL|> and stay signed in"
STARTUP_S = 30  # generous: a loaded machine starts Chromium slowly

pytestmark = [
    pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX"),
    pytest.mark.slow,  # starts processes: left out of the inner loop
]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def _process(args: list[str]) -> Iterator[subprocess.Popen[str]]:
    """Run ``args`` in a process group of its own, and end the whole group afterwards
    (``python -m playwright run-server`` runs the server as a child Node process)."""
    process = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    try:
        yield process
    finally:
        _signal_group(process, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            _signal_group(process, signal.SIGKILL)
            process.wait()
        time.sleep(0.2)  # let the group's other members (Node, Chromium) take the signal
        _signal_group(process, signal.SIGKILL)


def _signal_group(process: subprocess.Popen[str], sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)


def _sandbox_args() -> list[str]:
    # Chromium refuses to run as root with its sandbox (CI containers); Playwright does the same.
    return ["--no-sandbox"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []


async def _sign_in_and_replay(browser: Browser, pages_url: str, cache_dir: Path) -> None:
    """act, then the same act replayed from the cache, on pages of a remote browser."""
    context = await browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        variables = {"email": secret_values.EMAIL}
        page = AsyncStagehand(llm=AsyncPlanLLM(SIGN_IN), cache_dir=cache_dir).wrap(
            await context.new_page()
        )
        await page.goto(pages_url + "ci/signin.html")
        await context.tracing.start()  # the act's trace groups work on a remote browser too
        result = await page.act(INSTRUCTION, variables=variables)
        await context.tracing.stop(path=cache_dir.parent / "trace.zip")
        assert result.success and result.cache == "miss"
        with zipfile.ZipFile(cache_dir.parent / "trace.zip") as archive:
            lines = archive.read("trace.trace").decode("utf-8").splitlines()
        groups = [
            e.get("title", "") for e in map(json.loads, lines) if e.get("method") == "tracingGroup"
        ]
        assert any(g.startswith("act: ") for g in groups) and len(groups) >= 2, groups
        assert not any(secret_values.EMAIL in g for g in groups)
        shown = await page.locator("#result").inner_text()
        assert shown.startswith(f"Signed in as {secret_values.EMAIL}")
        assert shown.endswith("kept signed in.")

        silent = AsyncPlanLLM([])
        again = AsyncStagehand(llm=silent, cache_dir=cache_dir).wrap(await context.new_page())
        await again.goto(pages_url + "ci/signin.html")
        replayed = await again.act(INSTRUCTION, variables=variables)
        assert replayed.cache == "hit" and silent.calls == 0
        assert await again.locator("#result").inner_text() == shown
    finally:
        await context.close()


async def test_act_on_a_playwright_browser_server(pages_url: str, tmp_path: Path) -> None:
    port = _free_port()
    server_args = [sys.executable, "-m", "playwright", "run-server", "--host", "127.0.0.1"]
    with _process([*server_args, "--port", str(port), "--unsafe"]) as server:
        assert server.stdout is not None
        line = server.stdout.readline()  # "Listening on ws://127.0.0.1:PORT/"
        assert "Listening on" in line, line
        launch = {
            "executablePath": find_chromium(headless=True),
            "headless": True,
            "args": _sandbox_args(),
        }
        async with async_playwright() as playwright:
            browser = await playwright.chromium.connect(
                f"ws://127.0.0.1:{port}/",
                headers={"x-playwright-launch-options": json.dumps(launch)},
                timeout=STARTUP_S * 1000,
            )
            try:
                await _sign_in_and_replay(browser, pages_url, tmp_path)
            finally:
                await browser.close()


def _wait_for_cdp(port: int, chromium: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        if chromium.poll() is not None:
            output = chromium.stdout.read() if chromium.stdout else ""
            pytest.fail(f"Chromium exited before listening: {output[-2000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version", timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"Chromium did not open its debugging port within {STARTUP_S} s")


async def test_act_on_chromium_over_cdp(pages_url: str, tmp_path: Path) -> None:
    port = _free_port()
    chromium_args = [
        find_chromium(), "--headless=new", f"--remote-debugging-port={port}",
        "--remote-debugging-address=127.0.0.1", f"--user-data-dir={tmp_path / 'profile'}",
        "--no-first-run", "--disable-background-networking", *_sandbox_args(), "about:blank",
    ]  # fmt: skip
    with _process(chromium_args) as chromium:
        _wait_for_cdp(port, chromium)
        async with async_playwright() as playwright:
            browser = await playwright.chromium.connect_over_cdp(
                f"http://127.0.0.1:{port}", timeout=STARTUP_S * 1000
            )
            try:
                await _sign_in_and_replay(browser, pages_url, tmp_path / "cache")
            finally:
                await browser.close()
