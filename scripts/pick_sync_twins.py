"""Choose which generated sync twins the suite runs, from a coverage run with one context per test.

Every behaviour test in ``tests/_async`` has a generated twin in ``tests/_sync``. Most twins
drive the same code path as their async test through the generated ``stagehand_py/_sync``
modules; running all of them doubles the browser tests for little coverage. This script keeps
a set of twins that, together with every test that always runs, covers each line and branch of
``stagehand_py`` that the whole suite covers (greedy weighted set cover: most new lines and
branches per second first), and marks the async test of every other twin
``@pytest.mark.no_sync_twin`` (or ``no_sync_twin(keep=[...])`` when only some of its parameters
are needed). tests/conftest.py deselects those twins; the async tests themselves all run. A new
test keeps its twin until this script is run again.

Twins of sync-specific behaviour are always kept, whatever coverage says: deadlines, timeouts
and hung models (the sync deadline code is hand-written and waits in threads), and the sync
fakes. Twins that did not run in the coverage run (skipped) are kept too.

Usage, from the repository root (the coverage run takes as long as the whole suite)::

    python -m pytest -p no:cacheprovider -n 2 --all-sync-twins --cov=stagehand_py \\
        --cov-branch --cov-context=test --cov-report= --junitxml=twins.xml
    python scripts/pick_sync_twins.py .coverage twins.xml          # what it would keep
    python scripts/pick_sync_twins.py .coverage twins.xml --apply  # rewrite the marks
    python scripts/unasync.py
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ASYNC_TESTS = ROOT / "tests" / "_async"
SYNC_PREFIX = "tests/_sync/"
MARK = "@pytest.mark.no_sync_twin"
BROWSER = "chromium"  # the parameter pytest-playwright adds to every twin that uses a page
# Twins always kept: modules and test names about sync-specific behaviour.
SYNC_SPECIFIC_MODULES = frozenset(
    {"test_hardening_deadlines", "test_llm_deadline", "test_llm_fakes", "test_fake_builders"}
)
SYNC_SPECIFIC_NAME = re.compile(
    r"(?:^|_)(?:timeout|timeout_s|timeouts|deadline|deadlines|hung|hang|hangs|thread|threads|"
    r"late|time_up)(?:_|$)"
)

Item = tuple[str, int, int]  # (file, line, 0) for a line; (file, from line, to line) a branch


def measured(data_file: Path) -> dict[str, tuple[set[int], set[tuple[int, int]]]]:
    """Per measured file: its statements and its branches (arcs out of a line with two or more
    exits), the two things a coverage report counts."""
    from coverage import Coverage

    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "coverage.json"
        coverage = Coverage(data_file=str(data_file), messages=False)
        coverage.load()  # without it, reporting starts from (and saves) empty data
        coverage.json_report(outfile=str(report))
        files = json.loads(report.read_text("utf-8"))["files"]
    return {
        str(Path(path).resolve()): (
            set(info["executed_lines"]) | set(info["missing_lines"]),
            {(a, b) for a, b in info["executed_branches"] + info["missing_branches"]},
        )
        for path, info in files.items()
    }


def items_by_test(data_file: Path) -> dict[str, set[Item]]:
    """Every test's covered statements and branches (setup, call and teardown together), keyed
    by node id: pytest-cov names a context ``tests/x.py::test_y[p]|run``."""
    counted = measured(data_file)
    db = sqlite3.connect(f"file:{data_file}?mode=ro", uri=True)
    contexts = dict(db.execute("select id, context from context"))
    paths = {i: str(Path(p).resolve()) for i, p in db.execute("select id, path from file")}
    covered: dict[str, set[Item]] = defaultdict(set)
    for file_id, context_id, from_no, to_no in db.execute(
        "select file_id, context_id, fromno, tono from arc"
    ):
        test = contexts[context_id].rsplit("|", 1)[0]
        if not test or paths[file_id] not in counted:
            continue
        statements, branches = counted[paths[file_id]]
        items = covered[test]
        for line in (from_no, to_no):
            if line in statements:
                items.add((paths[file_id], line, 0))
        if (from_no, to_no) in branches:
            items.add((paths[file_id], from_no, to_no))
    if not covered:
        sys.exit(f"{data_file}: no arcs with test contexts (run with --cov-context=test)")
    return covered


def durations(junit_xml: Path) -> dict[str, float]:
    """Seconds per test node id (all phases), every collected test, from ``--junitxml``."""
    seconds: dict[str, float] = defaultdict(float)
    for case in ET.parse(junit_xml).iter("testcase"):
        module = case.get("classname", "").replace(".", "/") + ".py"
        seconds[f"{module}::{case.get('name')}"] += float(case.get("time", "0"))
    return seconds


def split(nodeid: str) -> tuple[str, str, str]:
    """(module file name, function, the async test's parameter id) of a sync twin's node id."""
    module, rest = nodeid.removeprefix(SYNC_PREFIX).split("::", 1)
    function, _, params = rest.partition("[")
    params = params.removesuffix("]")
    if params == BROWSER:
        params = ""
    return module, function, params.removeprefix(f"{BROWSER}-")


def sync_specific(nodeid: str) -> bool:
    module, function, _ = split(nodeid)
    return module.removesuffix(".py") in SYNC_SPECIFIC_MODULES or bool(
        SYNC_SPECIFIC_NAME.search(function)
    )


def pick(covered: dict[str, set[Item]], seconds: dict[str, float]) -> set[str]:
    """The sync twins (node ids) to keep."""
    twins = {t for t in seconds if t.startswith(SYNC_PREFIX)}
    always: set[Item] = set().union(*(v for t, v in covered.items() if t not in twins))
    kept = {t for t in twins if sync_specific(t) or t not in covered}
    for twin in kept:
        always |= covered.get(twin, set())
    candidates = {t: covered[t] - always for t in twins - kept}
    wanted = set().union(*candidates.values())
    while wanted:
        best = max(candidates, key=lambda t: len(candidates[t] & wanted) / max(seconds[t], 0.05))
        kept.add(best)
        wanted -= candidates.pop(best)
    return kept


def readable(param_id: str) -> bool:
    """Short and plain, and no part numbered by pytest (``limits0``: it moves with the list)."""
    return bool(re.fullmatch(r"[\w./=-]{0,30}", param_id)) and not any(
        re.fullmatch(r"[A-Za-z_]+[0-9]+", part) for part in param_id.split("-")
    )


def whole_when_unnamed(seconds: dict[str, float], kept: set[str]) -> set[str]:
    """``kept`` plus every twin of a function of which a twin with an unreadable parameter id
    (see :func:`readable`) is kept: a mark names only short, plain ids."""
    unnamed = {split(t)[:2] for t in kept if not readable(split(t)[2])}
    return kept | {t for t in seconds if t.startswith(SYNC_PREFIX) and split(t)[:2] in unnamed}


def marks(seconds: dict[str, float], kept: set[str]) -> dict[tuple[str, str], str]:
    """The mark line for each async test some of whose twins are dropped."""
    params: dict[tuple[str, str], list[tuple[str, bool]]] = defaultdict(list)
    for twin in seconds:
        if twin.startswith(SYNC_PREFIX):
            module, function, param = split(twin)
            params[(module, function)].append((param, twin in kept))
    lines: dict[tuple[str, str], str] = {}
    for key, found in params.items():
        keep = sorted(param for param, is_kept in found if is_kept)
        if len(keep) == len(found):
            continue
        lines[key] = f"{MARK}(keep={keep!r})".replace("'", '"') if keep else MARK
    return lines


def apply_marks(lines: dict[tuple[str, str], str]) -> list[Path]:
    """Rewrite the marks in tests/_async; returns the files changed."""
    changed: list[Path] = []
    for path in sorted(ASYNC_TESTS.glob("test_*.py")):
        source = path.read_text("utf-8")
        text = re.sub(rf"^{re.escape(MARK)}\b(?:\([^)]*\))?\n", "", source, flags=re.MULTILINE)

        def marked(found: re.Match[str], module: str = path.name) -> str:
            mark = lines.get((module, found.group(2)))
            return f"{mark}\n{found.group(0)}" if mark else found.group(0)

        text = re.sub(r"^(async )?def (test_\w+)\(", marked, text, flags=re.MULTILINE)
        if MARK in text and not re.search(r"^import pytest$", text, re.MULTILINE):
            text = text.replace(
                "from __future__ import annotations\n",
                "from __future__ import annotations\nimport pytest\n",
                1,
            )
        if text != source:
            path.write_text(text, "utf-8")
            changed.append(path)
    if changed:
        files = [str(p) for p in changed]
        subprocess.run(["ruff", "check", "-q", "--fix", "--select", "I,F401", *files], check=True)
        subprocess.run(["ruff", "format", "-q", *files], check=True)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_file", type=Path, help="coverage data with per-test contexts")
    parser.add_argument("junit_xml", type=Path, help="the same run's --junitxml report")
    parser.add_argument("--apply", action="store_true", help="rewrite the marks in tests/_async")
    args = parser.parse_args(argv)
    seconds = durations(args.junit_xml)
    covered = items_by_test(args.data_file)
    kept = whole_when_unnamed(seconds, pick(covered, seconds))
    twins = [t for t in seconds if t.startswith(SYNC_PREFIX)]
    forced = [t for t in twins if sync_specific(t) or t not in covered]

    def total(tests: list[str]) -> str:
        return f"{len(tests)} twins, {sum(seconds[t] for t in tests):.0f} s"

    print(f"all: {total(twins)}; kept: {total(sorted(kept))}, of which sync-specific or not run:")
    print(f"{total(forced)}; dropped: {total([t for t in twins if t not in kept])}")
    lines = marks(seconds, kept)
    for (module, function), line in sorted(lines.items()):
        print(f"  {module}::{function}  {line.removeprefix(MARK) or '(all)'}")
    if args.apply:
        changed = apply_marks(lines)
        print(f"{len(changed)} file(s) changed; now run: python scripts/unasync.py")
    return 0


if __name__ == "__main__":
    sys.exit(main())
