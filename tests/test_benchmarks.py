"""Every benchmark still runs: each script's ``--quick`` mode (tiny sizes, one round, seconds)
runs here and must print its figure lines, the measured figure first and the target after it.

The figures of a quick run are not measurements (``benchmarks/README.md`` has those); this
only keeps the scripts from rotting as the package changes under them.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # starts processes or runs long: left out of the inner loop

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
# script -> its figure lines: (label, target or None). A new script needs its entry here.
FIGURES: dict[str, list[tuple[str, str | None]]] = {
    "act_latency.py": [("sdk seconds per action", "<= 0.08"), ("act batched x by hand", None)],
    "act_prompt.py": [
        ("LLM calls, form.html", "<= 2"),
        ("LLM calls, scroll_div.html", "<= 3"),
        ("pages worse than before", "0"),
    ],
    "agent.py": [("SDK time per step", "<= 0.25 s")],
    "aria_mode.py": [
        ("ratio aria/dom prompt chars", "<= 0.70"),
        ("ratio aria prompt / page.content()", "<= 0.10"),
        ("ratio aria view / playwright aria_snapshot", "<= 1.3"),
        ("ratio (aria_snapshot + reading its text) / aria_snapshot", None),
        ("ratio (aria_snapshot + reading its text + one facts evaluate) / aria_snapshot", None),
        ("worst fixture page aria view / playwright aria_snapshot", "<= 1.5"),
        (
            "worst fixture page (playwright aria_snapshot + one empty evaluate) / aria_snapshot",
            None,
        ),
        ("ratio aria/dom snapshot time", None),
        ("ratio aria/dom first act turn (packed sections)", None),
    ],
    "cache.py": [("ratio replay / by hand", "<= 1.15x")],
    "extract.py": [
        ("ratio raw / prompts, long.html", None),
        ("ratio raw / prompts, generated shop page", None),
    ],
    "mcp_snapshot.py": [
        ("ratio one aria snapshot answer / playwright aria_snapshot", "<= 0.10"),
        ("ratio one dom snapshot answer / playwright aria_snapshot", "<= 0.10"),
        ("ratio all aria sections / playwright aria_snapshot", None),
    ],
    # Its third figure, the example suite's second run, is left out of --quick: the same
    # helper runs the suite in tests/test_examples.py, which checks the same count.
    "replay.py": [
        ("extract over the pages of one template", "1"),
        ("replayed extract vs hand-written reads", "<= 1.3x"),
    ],
    "serialize.py": [
        ("ratio serializer / aria_snapshot", "<= 0.30"),
        ("ratio take_snapshot / aria", None),
        ("ratio take_snapshot / js floor", "<= 2.0"),
        ("ratio transfer of the snapshot's JSON / js floor", None),
        ("ratio parse + first chunk / js floor", None),
        ("ratio (js floor with computed style + parse + first chunk) / js floor", None),
        ("ratio DevTools preparation / js floor", None),
        (
            "ratio (js floor with computed style + DevTools preparation + parse + first chunk) "
            "/ js floor",
            None,
        ),
        ("ratio prompt chars / baseline", "<= 1.15"),
    ],
    "trace_size.py": [
        ("ratio trace zip after / before", None),
        ("ratio trace.trace calls after / before", None),
    ],
    "workflow.py": [("median replay / first", "<= 0.5 with 0.5 s per model request")],
}
_NUMBER = r"\d[\d,]*(?:\.\d+)?"


def test_every_benchmark_script_is_run_here() -> None:
    scripts = {p.name for p in BENCHMARKS.glob("*.py") if not p.name.startswith("_")}
    assert scripts == set(FIGURES)


def figure_line(output: str, label: str, target: str | None) -> re.Match[str] | None:
    """The line ``label: <figure>...``, ending in ``(target ...)`` when it has one."""
    tail = rf" \(target {re.escape(target)}\)" if target else ""
    pattern = rf"^{re.escape(label)}: {_NUMBER}\S*(?: [^()\n]*)?{tail}$"
    return re.search(pattern, output, re.MULTILINE)


@pytest.mark.parametrize("script", sorted(FIGURES))
def test_the_quick_mode_runs_and_prints_its_figures(script: str) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), "--quick"],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    missing = [
        label for label, target in FIGURES[script] if not figure_line(done.stdout, label, target)
    ]
    assert not missing, f"{script} did not print {missing}:\n{done.stdout[-3000:]}"


def test_a_figure_line_puts_the_figure_first_and_the_target_after() -> None:
    printed = "ratio replay / by hand: 1.62x (target <= 1.3x)\nSDK time per step: 0.20 s\n"
    assert figure_line(printed, "ratio replay / by hand", "<= 1.3x")
    assert figure_line(printed, "SDK time per step", None)
    assert not figure_line(
        "ratio replay / by hand: (target <= 1.3x) 1.62x", "ratio replay / by hand", "<= 1.3x"
    )
    assert not figure_line(printed, "SDK time per step", "<= 0.25 s")  # its target is missing
