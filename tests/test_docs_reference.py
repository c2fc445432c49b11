"""The reference pages list exactly what the code has: every ``STAGEHAND_PY_*`` variable the
package reads, every exception of ``_errors.py`` and every act error code."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import get_args

import stagehand_py._errors as errors
from stagehand_py import StagehandError
from stagehand_py._types import ActErrorCode

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "reference"
# Names of the STAGEHAND_PY_* form in the package that are not environment variables.
NOT_VARIABLES = {"STAGEHAND_PY_SCRIPT": "a marker inside the page scripts"}


def variables_in_the_code() -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "stagehand_py").rglob("*.py"):
        names |= set(re.findall(r"\bSTAGEHAND_PY_[A-Z_]+[A-Z]\b", path.read_text("utf-8")))
    return names - set(NOT_VARIABLES)


def test_the_environment_table_lists_every_variable_the_code_reads() -> None:
    page = (REFERENCE / "environment.md").read_text("utf-8")
    listed = set(re.findall(r"^\| `(STAGEHAND_PY_[A-Z_]+)` \|", page, re.MULTILINE))
    assert listed == variables_in_the_code()


def test_the_errors_page_covers_the_tree_and_every_act_code() -> None:
    page = (REFERENCE / "errors.md").read_text("utf-8")
    classes = {
        name
        for name, value in vars(errors).items()
        if isinstance(value, type) and issubclass(value, StagehandError)
    }
    headed = set(re.findall(r"^### `(\w+)`", page, re.MULTILINE))
    assert headed == classes
    codes = set(re.findall(r"^\| `([A-Z_]+)` \|", page, re.MULTILINE))
    assert codes == set(get_args(ActErrorCode))
    assert errors.__doc__ is not None
    tree = textwrap.dedent(errors.__doc__.split("The tree::")[1].split("``ActError.code``")[0])
    assert all(line.rstrip() in page for line in tree.strip().splitlines()), "tree drawn as is"
