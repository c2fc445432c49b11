"""Every example runs, offline, as a user would start it: so none of them can rot."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run_example(*args: str, cwd: Path = EXAMPLES) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STAGEHAND_PY_", "OPENAI_"))}
    env["STAGEHAND_PY_BLOCK_REAL_LLM"] = "1"  # an example must never reach a real model here
    done = subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def test_fill_form() -> None:
    out = run_example("fill_form.py")
    assert "Thanks Grace! Cycling news goes to grace@example.org." in out
    assert "fill(<|EMAIL|>)" in out
    assert "grace@example.org" not in out.split("Thanks")[0]  # actions show placeholders


def test_scrape_list() -> None:
    out = run_example("scrape_list.py")
    assert "8 products" in out
    for name in ("Walnut desk lamp", "Wool throw", "Ceramic vase"):
        assert name in out


@pytest.mark.parametrize("suite", ["test_checkout_suite"])
def test_pytest_suite(suite: str) -> None:
    out = run_example("-m", "pytest", "-q", cwd=EXAMPLES / suite)
    assert "2 passed" in out


def test_the_checkout_suite_hits_the_cache_on_its_second_run(tmp_path: Path) -> None:
    # Each run serves the shop on a new random port: a URL-keyed cache would never hit.
    cache = f"--stagehand-cache-dir={tmp_path / 'cache'}"
    suite = EXAMPLES / "test_checkout_suite"
    first = run_example("-m", "pytest", "-q", cache, cwd=suite)
    assert "2 passed" in first
    assert "cache: 0 hit(s), 3 miss(es), 0 healed, 3 write(s)" in first
    second = run_example("-m", "pytest", "-q", cache, "--stagehand-cache-mode=require", cwd=suite)
    assert "2 passed" in second
    assert "0 model call(s), 0 tokens; cache: 3 hit(s), 0 miss(es), 0 healed, 0 write(s)" in second


def test_scrape_many_concurrently_over_one_browser_and_one_cache() -> None:
    out = run_example("scrape_many.py")
    for line in ("Walnut desk lamp     49.00 EUR  1.8 kg  walnut and brass",
                 "Rope basket          24.50 EUR  0.6 kg  cotton rope"):  # fmt: skip
        assert line in out
    # One act went to the model (the act and its verify); five replayed from the cache. The
    # stand-in reads extract answers from page text only, so no extract is compiled: six misses.
    assert "6 products; act model calls: 2; cache: 5 hit(s), 7 miss(es)" in out
