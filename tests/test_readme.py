"""Every code block of README.md runs, as written, offline: new blocks are picked up by themselves.

How each fenced block runs (in a fresh temporary directory, one process per block):

- ``python`` that defines ``def test_...``: saved as a test file and run by pytest with the
  package's plugin (pytest-playwright's ``page``, ``--base-url https://shop.example``);
- ``python`` that starts Playwright itself (``sync_playwright()`` / ``async_playwright()``):
  run as a script;
- any other ``python`` block is a *fragment*: it runs after a preamble (:data:`FRAGMENTS`) that
  gives it ``page`` (a new wrapped sync page on ``https://shop.example/``), ``sh`` (its own
  ``Stagehand``) and the ``Product`` model of the quick start. Fragments share one process and
  one browser (each gets fresh globals and a fresh page), which keeps this test fast;
- ``bash``: run with ``bash -euo pipefail`` (``pystagehand`` and ``python`` are this venv's);
- other languages (``text``, ...) are not code and are not run.

Each process starts with ``tests/readme_harness`` on ``PYTHONPATH``: its ``sitecustomize``
serves the README's sites (``https://shop.example/...``, ``https://example.com/...``) from
``tests/pages/ci/sites/`` and answers as the model with ``readme_harness/readme_model.py``, so
a block that talks to the model needs its instruction planned there. The environment is a user's
who configured a model (``STAGEHAND_PY_MODEL``, ``OPENAI_API_KEY``) and keeps passwords in
``SHOP_PASSWORD`` / ``SIGNUP_PASSWORD``; real model requests are blocked.

A block that truly cannot run here (it installs packages, needs a real server or key) opts out
with an HTML comment on the line right above its fence, giving the reason::

    <!-- readme-test: skip: needs a running Playwright server -->
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests import secret_values

pytestmark = pytest.mark.slow  # starts processes or runs long: left out of the inner loop

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
HARNESS = Path(__file__).resolve().parent / "readme_harness"
_FENCE = re.compile(r"^```(\w*)\s*$")
_DIRECTIVE = re.compile(r"^<!--\s*readme-test:\s*(.*?)\s*-->$")
_RUNS = ("python", "bash")

# Runs every fragment file named on its command line; writes "fragment-LINE.out" for each,
# ending in "FRAGMENT OK" or the traceback.
FRAGMENTS = """\
import contextlib
import io
import sys
import traceback

from playwright.sync_api import sync_playwright
from pydantic import BaseModel
from stagehand_py import Stagehand, launch_chromium


class Product(BaseModel):
    name: str
    price: float


with sync_playwright() as playwright:
    browser = launch_chromium(playwright.chromium)
    for name in sys.argv[1:]:
        line = name.removeprefix("fragment-").removesuffix(".py")
        sh = Stagehand(model="openai/gpt-4.1-mini")
        page = sh.wrap(browser.new_page())
        page.goto("https://shop.example/")
        names = {"__name__": "__main__", "Product": Product, "sh": sh, "page": page}
        output = io.StringIO()
        try:
            with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
                source = open(name, encoding="utf-8").read()
                exec(compile(source, f"README.md:{line}", "exec"), names)
            output.write("FRAGMENT OK\\n")
        except BaseException:
            output.write(traceback.format_exc())
        page.context.close()
        with open(f"fragment-{line}.out", "w", encoding="utf-8") as report:
            report.write(output.getvalue())
    browser.close()
"""


@dataclass(frozen=True)
class Block:
    line: int  # of the opening fence, 1-based
    language: str
    source: str
    directive: str

    @property
    def kind(self) -> str:
        if self.language == "bash":
            return "bash"
        if re.search(r"^def test_", self.source, re.MULTILINE):
            return "pytest"
        if "sync_playwright()" in self.source or "async_playwright()" in self.source:
            return "script"
        return "fragment"

    @property
    def skip_reason(self) -> str | None:
        if not self.directive.startswith("skip"):
            return None
        return self.directive.partition(":")[2].strip()


def readme_blocks(text: str) -> list[Block]:
    """Every fenced block of ``text`` with its language and the directive above it."""
    blocks: list[Block] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        end = index + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        above = next((ln.strip() for ln in reversed(lines[:index]) if ln.strip()), "")
        directive = _DIRECTIVE.match(above)
        blocks.append(
            Block(
                line=index + 1,
                language=opening.group(1),
                source="\n".join(lines[index + 1 : end]) + "\n",
                directive=directive.group(1) if directive else "",
            )
        )
        index = end + 1
    return blocks


BLOCKS = [block for block in readme_blocks(README.read_text("utf-8")) if block.language in _RUNS]


def _environment() -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("STAGEHAND_PY_", "OPENAI_", "ANTHROPIC_", "PYTEST_"))
    }
    env.update(
        PYTHONPATH=os.pathsep.join([str(HARNESS), str(ROOT)]),
        PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
        STAGEHAND_PY_README_HARNESS="1",
        STAGEHAND_PY_BLOCK_REAL_LLM="1",
        STAGEHAND_PY_MODEL="openai/gpt-4.1-mini",
        OPENAI_API_KEY="sk-readme-test-not-a-key",
        ANTHROPIC_API_KEY="sk-ant-readme-test-not-a-key",
        SHOP_PASSWORD=secret_values.PASSWORD,
        SIGNUP_PASSWORD=secret_values.PASSWORD,
    )
    return env


def _command(block: Block, workdir: Path) -> list[str]:
    if block.kind == "bash":
        (workdir / "block.sh").write_text(block.source, encoding="utf-8")
        return ["bash", "-euo", "pipefail", "block.sh"]
    if block.kind == "pytest":
        (workdir / "test_block.py").write_text(block.source, encoding="utf-8")
        return [
            sys.executable, "-m", "pytest", "-q", "-p", "no:playwright-asyncio",
            "-p", "no:cacheprovider", "--base-url", "https://shop.example", "test_block.py",
        ]  # fmt: skip
    (workdir / "block.py").write_text(block.source, encoding="utf-8")
    return [sys.executable, "block.py"]


@pytest.fixture(scope="module")
def fragment_outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, str]:
    """Run every fragment once, in one process: README line -> what it printed."""
    workdir = tmp_path_factory.mktemp("readme-fragments")
    fragments = [b for b in BLOCKS if b.kind == "fragment" and b.skip_reason is None]
    for block in fragments:
        (workdir / f"fragment-{block.line}.py").write_text(block.source, encoding="utf-8")
    (workdir / "run_fragments.py").write_text(FRAGMENTS, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "run_fragments.py", *(f"fragment-{b.line}.py" for b in fragments)],
        cwd=workdir,
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return {
        block.line: (workdir / f"fragment-{block.line}.out").read_text("utf-8")
        for block in fragments
    }


def test_the_readme_has_blocks_of_every_kind() -> None:
    kinds = {block.kind for block in BLOCKS if block.skip_reason is None}
    assert kinds == {"bash", "pytest", "script", "fragment"}
    for block in BLOCKS:
        if block.directive:
            assert block.skip_reason, f"README.md:{block.line}: an opt-out must say why"


@pytest.mark.parametrize(
    "block", BLOCKS, ids=[f"line{block.line}-{block.kind}" for block in BLOCKS]
)
def test_readme_block_runs_as_written(
    block: Block, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    if block.skip_reason is not None:
        pytest.skip(f"README.md:{block.line} opts out: {block.skip_reason}")
    if block.kind == "fragment":
        output = request.getfixturevalue("fragment_outputs")[block.line]
        assert output.endswith("FRAGMENT OK\n"), f"README.md:{block.line} failed:\n{output}"
        assert secret_values.PASSWORD not in output, f"README.md:{block.line} printed a secret"
        return
    done = subprocess.run(
        _command(block, tmp_path),
        cwd=tmp_path,
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=240,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"README.md:{block.line} ({block.kind}) failed:\n{output[-4000:]}"
    assert secret_values.PASSWORD not in output, f"README.md:{block.line} printed a secret"
