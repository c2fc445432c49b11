"""The Playwright trace of a three-action act(), before and after installing page scripts once.

Run: ``python benchmarks/trace_size.py [--runs N] [--quick]``.
Serves the project's sign-in fixture from
127.0.0.1 and records, in one run and alternating, the trace of the same act (a plan-following
fake model: fill the email, fill the password, pick the plan; then the verify look):

* before: every evaluate sends its whole script (the serializer, the settle watcher...), as
  the SDK did before ``_async/browser/scripts.py`` (kept behind a private switch for this);
* after: each script is installed once per document and later calls send a small stub.

Prints the trace zip's size and the uncompressed ``trace.trace`` (the recorded calls) in KB,
each median over the runs, and the after/before ratios. Snapshots and screenshots are off so
the figures are the calls themselves (what the issue measured: ~184 KB of ~220 KB were the
injected script).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import zipfile
from pathlib import Path

from playwright.sync_api import Browser, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks._report import figure, parser  # noqa: E402
from stagehand_py import Stagehand, launch_chromium  # noqa: E402
from stagehand_py._sync.browser import scripts as page_scripts  # noqa: E402
from stagehand_py.testing import serve_directory  # noqa: E402
from tests._sync.plan_llm import PlanLLM, Step  # noqa: E402

INSTRUCTION = "sign in as <|EMAIL|> with <|PASSWORD|> on the Pro plan"
VARIABLES = {"email": "bench@example.test", "password": "not-a-real-secret-1"}
STEPS = [
    Step("fill", r'^<input\b[^>]*type="email"', ["<|EMAIL|>"]),
    Step("fill", r'^<input\b[^>]*type="password"', ["<|PASSWORD|>"]),
    Step("select_option", r"^<select\b", ["pro"]),
]


def trace_of_one_act(
    browser: Browser, url: str, path: Path, *, install_once: bool
) -> tuple[int, int]:
    """(zip bytes, trace.trace bytes) of one act recorded from a fresh context."""
    page_scripts._install_once = install_once
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        page = Stagehand(llm=PlanLLM(STEPS)).wrap(context.new_page())
        page.goto(url)
        context.tracing.start(snapshots=False, screenshots=False)
        result = page.act(INSTRUCTION, variables=VARIABLES)
        context.tracing.stop(path=path)
        assert result.success and len(result.actions) == 3, result.message
    finally:
        context.close()
        page_scripts._install_once = True
    with zipfile.ZipFile(path) as archive:
        calls = archive.getinfo("trace.trace").file_size
    return path.stat().st_size, calls


def main() -> None:
    args = parser(__doc__, runs=3).parse_args()
    runs = 1 if args.quick else args.runs
    sizes: dict[bool, list[tuple[int, int]]] = {False: [], True: []}
    with serve_directory(ROOT / "tests" / "pages") as base, sync_playwright() as p:
        browser = launch_chromium(p.chromium)
        url = base + "ci/signin.html"
        with tempfile.TemporaryDirectory() as tmp:
            for run in range(runs):
                for install_once in (False, True):  # alternating: same machine load
                    path = Path(tmp) / f"trace-{run}-{install_once}.zip"
                    sizes[install_once].append(
                        trace_of_one_act(browser, url, path, install_once=install_once)
                    )
        browser.close()

    def kb(samples: list[tuple[int, int]], which: int) -> float:
        return statistics.median(s[which] for s in samples) / 1024

    print(f"trace of a 3-action act, median of {runs} run(s) (snapshots/screenshots off)")
    print(f"{'':28}{'before':>10}{'after':>10}{'ratio':>8}")
    for which, label in ((0, "trace zip (KB)"), (1, "trace.trace calls (KB)")):
        before, after = kb(sizes[False], which), kb(sizes[True], which)
        print(f"{label:28}{before:>10.1f}{after:>10.1f}{after / before:>8.2f}")
    print()
    for which, label in ((0, "trace zip"), (1, "trace.trace calls")):
        ratio = kb(sizes[True], which) / kb(sizes[False], which)
        figure(f"ratio {label} after / before", f"{ratio:.2f}")


if __name__ == "__main__":
    main()
