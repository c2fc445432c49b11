"""Several processes writing the same key (pytest-xdist workers running the same test).

Real processes run tests/cache_writer_proc.py; while they write, this process keeps reading
the entry and must only ever see nothing yet or a whole, valid entry.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from stagehand_py.cache import ActionCache
from tests.cache_writer_proc import ACTIONS_PER_ENTRY, INSTRUCTION, URL, VARIABLES

pytestmark = pytest.mark.slow  # starts processes or runs long: left out of the inner loop

WRITERS = 4
WRITES = 50
ROOT = Path(__file__).resolve().parent.parent


def test_concurrent_writers_leave_one_valid_entry(tmp_path: Path) -> None:
    directory = tmp_path / "cache"
    go = tmp_path / "go"
    script = Path(__file__).with_name("cache_writer_proc.py")
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), str(directory), f"w{n}", str(WRITES), str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for n in range(WRITERS)
    ]
    try:
        for proc in procs:  # every writer imported and waiting at the start line
            assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        go.touch()
        cache = ActionCache(directory)
        key = cache.key_for(INSTRUCTION, URL, VARIABLES)
        reads = seen = 0
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a torn or partial file would warn: fail instead
            while any(proc.poll() is None for proc in procs):
                entry = cache.get(key)
                reads += 1
                if entry is not None:
                    seen += 1
                    descriptions = {action.description for action in entry.actions}
                    assert len(descriptions) == 1 and len(entry.actions) == ACTIONS_PER_ENTRY
        outputs = [proc.communicate(timeout=60) for proc in procs]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
        assert out.strip() == f"done {WRITES}"
    final = cache.get(key)
    assert final is not None
    # Each writer's writes are sequential, so whoever renamed last left its last version.
    last_versions = [{f"w{n}:{WRITES - 1}"} for n in range(WRITERS)]
    assert {a.description for a in final.actions} in last_versions
    assert sorted(p.name for p in directory.iterdir()) == [f"{key.digest}.json"]
    assert reads > 0 and seen > 0, (reads, seen)
