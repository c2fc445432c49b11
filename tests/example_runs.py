"""Running the examples as a user would, offline: through the stand-in model
(``examples/offline/run.py``, a local OpenAI-compatible server), never a real one. Shared by
tests/test_examples.py and benchmarks/replay.py, so the benchmark's way of running the example
suite is the one the tests check."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
OFFLINE = EXAMPLES / "offline"
SUITE = EXAMPLES / "test_checkout_suite"


def run_offline(*args: str, cwd: Path = EXAMPLES) -> str:
    """Run an example through the stand-in model; what it printed, stdout then stderr."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STAGEHAND_PY_", "OPENAI_"))}
    env["STAGEHAND_PY_BLOCK_REAL_LLM"] = "1"  # an example must never reach a real model here
    done = subprocess.run(
        [sys.executable, str(OFFLINE / "run.py"), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout + done.stderr


def checkout_suite_twice(cache_dir: Path) -> tuple[str, str]:
    """The example checkout suite run twice over one cache directory: first recording (the
    default cache mode), then with ``--stagehand-cache-mode=require``. What each printed."""
    cache = f"--stagehand-cache-dir={cache_dir}"
    first = run_offline("-m", "pytest", "-q", "-p", "no:cacheprovider", cache, cwd=SUITE)
    second = run_offline(
        "-m", "pytest", "-q", "-p", "no:cacheprovider", cache, "--stagehand-cache-mode=require",
        cwd=SUITE,
    )  # fmt: skip
    return first, second


def model_calls(output: str) -> int:
    """The model calls a run of the suite reported in its summary line."""
    found = re.search(r"(\d+) model call\(s\)", output)
    assert found is not None, f"the run printed no model-call count:\n{output[-3000:]}"
    return int(found.group(1))
