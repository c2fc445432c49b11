"""The serializer and snapshot parser as they were at a git revision, for side-by-side runs.

``load_baseline(ref)`` reads ``stagehand_py/dom/serializer/*.js`` and
``stagehand_py/dom/_snapshot.py`` at ``ref`` with ``git show`` and returns the serializer's
source and the old module (loaded as ``stagehand_py.dom._baseline_snapshot``, so its relative
imports resolve against today's package). None when git or the revision is not available
(an installed copy, a shallow clone).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
# The last commit before issue 12's serializer work: what "before" means in the figures.
DEFAULT_REF = "c7f8b28"


@dataclass
class Baseline:
    ref: str
    serializer_js: str
    snapshot_module: ModuleType


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True
    ).stdout


def load_baseline(ref: str = DEFAULT_REF) -> Baseline | None:
    try:
        names = _git("ls-tree", "--name-only", ref, "stagehand_py/dom/serializer/").split()
        parts = [_git("show", f"{ref}:{name}") for name in sorted(names) if name.endswith(".js")]
        source = _git("show", f"{ref}:stagehand_py/dom/_snapshot.py")
    except (OSError, subprocess.CalledProcessError):
        return None
    name = "stagehand_py.dom._baseline_snapshot"
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "stagehand_py.dom"
    sys.modules[name] = module  # pydantic resolves the models' annotations through it
    exec(compile(source, f"{ref}:stagehand_py/dom/_snapshot.py", "exec"), module.__dict__)
    js = "(options) => {\n" + "\n".join(parts) + "\n}"
    return Baseline(ref=ref, serializer_js=js, snapshot_module=module)
