"""Every code block of README.md and of the docs (``docs/**/*.md``) runs, as written, offline:
new blocks and new pages are picked up by themselves.

How each fenced block runs (in a fresh temporary directory, one process per block):

- ``python`` that defines ``def test_...``: saved as a test file and run by pytest with the
  package's plugin (pytest-playwright's ``page``, ``--base-url https://shop.example``);
- ``python`` that starts Playwright itself (``sync_playwright()`` / ``async_playwright()``):
  run as a script;
- any other ``python`` block is a *fragment*: it runs after a preamble
  (``readme_harness/run_fragments.py``) that
  gives it ``page`` (a new wrapped sync page on ``https://shop.example/``), ``sh`` (its own
  ``Stagehand``) and the ``Product`` model of the quick start. Fragments of every file share
  one process and one browser (each gets fresh globals, a fresh page and a fresh working
  directory), which keeps this test fast;
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

The models pages' snippets also run against the loopback wire server, with their real
clients: ``tests/test_docs_models.py``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

import pytest

from tests import secret_values

pytestmark = pytest.mark.slow  # starts processes or runs long: left out of the inner loop

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
SOURCES = [README, *sorted(DOCS.rglob("*.md"))]
HARNESS = Path(__file__).resolve().parent / "readme_harness"
_FENCE = re.compile(r"^```(\w*)\s*$")
_DIRECTIVE = re.compile(r"^<!--\s*readme-test:\s*(.*?)\s*-->$")
_RUNS = ("python", "bash")


@dataclass(frozen=True)
class Block:
    path: str  # relative to the repository, e.g. "README.md" or "docs/guides/cache.md"
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
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    @property
    def skip_reason(self) -> str | None:
        if not self.directive.startswith("skip"):
            return None
        return self.directive.partition(":")[2].strip()


def readme_blocks(text: str, path: str = "README.md") -> list[Block]:
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
                path=path,
                line=index + 1,
                language=opening.group(1),
                source="\n".join(lines[index + 1 : end]) + "\n",
                directive=directive.group(1) if directive else "",
            )
        )
        index = end + 1
    return blocks


BLOCKS = [
    block
    for source in SOURCES
    for block in readme_blocks(source.read_text("utf-8"), source.relative_to(ROOT).as_posix())
    if block.language in _RUNS
]
# Project history has no place in user docs: issue numbers, commit ids, design records.
_HISTORY = re.compile(
    r"\bissues? #?\d+|\bgit show\b|\bcommit [0-9a-f]{7,40}\b|\bADR\b", re.IGNORECASE
)


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
        OPENROUTER_API_KEY="sk-or-docs-test-not-a-key",
        GEMINI_API_KEY="docs-test-not-a-key",
        AZURE_OPENAI_API_KEY="docs-test-not-a-key",
        SHOP_PASSWORD=secret_values.PASSWORD,
        SIGNUP_PASSWORD=secret_values.PASSWORD,
    )
    return env


def _run(command: list[str], workdir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, cwd=workdir, env=_environment(), capture_output=True, text=True, timeout=900
    )


def _shared_run(kind: str, workdir: Path) -> dict[str, str]:
    """Run every block of ``kind`` (fragment or script) in one process of its runner:
    "file:line" -> what the block printed, ending in "BLOCK OK" when it ran through."""
    blocks = [b for b in BLOCKS if b.kind == kind and b.skip_reason is None]
    for number, block in enumerate(blocks):
        (workdir / f"{kind}-{number}.py").write_text(block.source, encoding="utf-8")
        (workdir / f"{kind}-{number}.where").write_text(block.where, encoding="utf-8")
    runner = str(HARNESS / f"run_{kind}s.py")
    done = _run([sys.executable, runner, *(f"{kind}-{n}.py" for n in range(len(blocks)))], workdir)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return {
        block.where: (workdir / f"{kind}-{number}.out").read_text("utf-8")
        for number, block in enumerate(blocks)
    }


def _pytest_run(workdir: Path) -> dict[str, str]:
    """Run every pytest block in one pytest session: "file:line" -> "BLOCK OK" or its failures."""
    blocks = [b for b in BLOCKS if b.kind == "pytest" and b.skip_reason is None]
    for number, block in enumerate(blocks):
        (workdir / f"test_block_{number}.py").write_text(block.source, encoding="utf-8")
    done = _run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:playwright-asyncio",
            "-p",
            "no:cacheprovider",
            "--base-url",
            "https://shop.example",
            "--junitxml=run.xml",
        ],
        workdir,
    )
    assert secret_values.PASSWORD not in done.stdout + done.stderr, "a pytest block printed it"
    assert (workdir / "run.xml").exists(), done.stdout[-3000:] + done.stderr[-3000:]
    cases = ElementTree.parse(workdir / "run.xml").getroot().iter("testcase")
    outcome = {block.where: "no test ran\n" for block in blocks}
    for case in cases:
        block = blocks[int(case.get("classname", "").removeprefix("test_block_"))]
        problems = [child.text or child.get("message", "") for child in case if child.tag in
                    ("failure", "error", "skipped")]  # fmt: skip
        if problems:
            outcome[block.where] = "\n".join(problems)
        elif outcome[block.where] == "no test ran\n":
            outcome[block.where] = "BLOCK OK\n"
    return outcome


def test_the_docs_have_blocks_of_every_kind() -> None:
    kinds = {block.kind for block in BLOCKS if block.skip_reason is None}
    assert kinds == {"bash", "pytest", "script", "fragment"}
    assert {block.path for block in BLOCKS} > {"README.md"}  # the docs' pages are read too
    for block in BLOCKS:
        if block.directive:
            assert block.skip_reason, f"{block.where}: an opt-out must say why"


USER_DOCS = [*SOURCES, ROOT / "CHANGELOG.md"]


@pytest.mark.parametrize(
    "source", USER_DOCS, ids=[s.relative_to(ROOT).as_posix() for s in USER_DOCS]
)
def test_user_docs_hold_no_project_history(source: Path) -> None:
    found = [m.group(0) for m in _HISTORY.finditer(source.read_text("utf-8"))]
    assert not found, f"{source.relative_to(ROOT)} speaks of the project's history: {found}"


SHARED_KINDS = ("fragment", "script", "pytest")


@pytest.mark.parametrize("kind", SHARED_KINDS)
def test_blocks_sharing_a_process_run_as_written(
    kind: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The fragments, the scripts and the pytest blocks, each kind in one process (one test per
    kind, so that parallel workers never start the same process twice)."""
    workdir = tmp_path_factory.mktemp(kind)
    outputs = _pytest_run(workdir) if kind == "pytest" else _shared_run(kind, workdir)
    failed = [
        f"{where} ({kind}) failed:\n{output}"
        for where, output in outputs.items()
        if not output.endswith("BLOCK OK\n")
    ]
    assert not failed, "\n".join(failed)
    printed = [where for where, output in outputs.items() if secret_values.PASSWORD in output]
    assert not printed, f"blocks printed a secret: {printed}"


BASH_OR_SKIPPED = [b for b in BLOCKS if b.kind == "bash" or b.skip_reason is not None]


@pytest.mark.parametrize(
    "block", BASH_OR_SKIPPED, ids=[f"{b.where}-{b.kind}" for b in BASH_OR_SKIPPED]
)
def test_block_runs_alone_as_written(block: Block, tmp_path: Path) -> None:
    """A bash block, in its own shell; a block of any kind that opts out is reported here as
    skipped, with its reason."""
    if block.skip_reason is not None:
        pytest.skip(f"{block.where} opts out: {block.skip_reason}")
    (tmp_path / "block.sh").write_text(block.source, encoding="utf-8")
    done = _run(["bash", "-euo", "pipefail", "block.sh"], tmp_path)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{block.where} ({block.kind}) failed:\n{output[-4000:]}"
    assert secret_values.PASSWORD not in output, f"{block.where} printed a secret"
