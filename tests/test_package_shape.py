"""The package stays readable: every module reads in one sitting, and the hand-written async
side keeps its top level to a handful of modules (the rest live in one folder per feature).
The generated sync side is held to the same length, since people read it in tracebacks."""

from __future__ import annotations

from pathlib import Path

import stagehand_py

PACKAGE_ROOT = Path(stagehand_py.__file__).parent
MAX_MODULE_LINES = 400
MAX_ASYNC_TOP_LEVEL_MODULES = 10


def test_no_module_is_longer_than_the_limit() -> None:
    too_long = {
        str(path.relative_to(PACKAGE_ROOT)): lines
        for path in sorted(PACKAGE_ROOT.rglob("*.py"))
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert not too_long, f"modules over {MAX_MODULE_LINES} lines: {too_long}"


def test_the_async_side_keeps_a_small_top_level() -> None:
    top_level = sorted(path.name for path in (PACKAGE_ROOT / "_async").glob("*.py"))
    assert len(top_level) <= MAX_ASYNC_TOP_LEVEL_MODULES, top_level
    folders = [p.name for p in (PACKAGE_ROOT / "_async").iterdir() if (p / "__init__.py").is_file()]
    assert {"act", "agent", "browser", "cache", "workflow"} <= set(folders), folders
