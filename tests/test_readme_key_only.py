"""The README's pytest block passes as written with only ``OPENAI_API_KEY`` set: no model named,
so the pytest plugin picks its default; the real ``openai`` client sends every request over HTTP
to the loopback wire server (``OPENAI_BASE_URL``), which answers as the README model would
(``readme_harness/readme_wire.py``). The README's sites are served as in ``test_readme.py``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from stagehand_py.pytest_plugin._options import session_model
from tests import secret_values
from tests.llm_wire_server import LLMWireServer
from tests.readme_harness.readme_wire import ReadmeWireProfile
from tests.test_readme import HARNESS, README, ROOT, readme_blocks

KEY = "sk-readme-key-only-not-a-key"


def _environment(base_url: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("STAGEHAND_PY_", "OPENAI_", "ANTHROPIC_", "PYTEST_"))
    }
    env.update(
        PYTHONPATH=os.pathsep.join([str(HARNESS), str(ROOT)]),
        PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
        STAGEHAND_PY_README_HARNESS="sites",  # serves https://shop.example; not the model
        STAGEHAND_PY_BLOCK_REAL_LLM="1",  # a guard only: loopback requests go through
        OPENAI_API_KEY=KEY,
        OPENAI_BASE_URL=base_url,
        SIGNUP_PASSWORD=secret_values.PASSWORD,  # the block's own variable
    )
    return env


def test_the_readme_pytest_block_passes_with_only_an_openai_key(
    llm_server: LLMWireServer, tmp_path: Path
) -> None:
    [block] = [b for b in readme_blocks(README.read_text("utf-8")) if b.kind == "pytest"]
    assert "stagehand_page.check(" in block.source
    (tmp_path / "test_signup.py").write_text(block.source, encoding="utf-8")
    llm_server.use_profile(ReadmeWireProfile())

    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:playwright-asyncio",
         "-p", "no:cacheprovider", "--base-url", "https://shop.example"],
        cwd=tmp_path, env=_environment(llm_server.openai_base_url), capture_output=True,
        text=True, timeout=600,
    )  # fmt: skip

    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    assert "1 passed" in output
    bodies = llm_server.bodies
    assert {body["model"] for body in bodies} == {"gpt-4.1-mini"}  # the plugin's default
    assert {r.headers["authorization"] for r in llm_server.requests} == {f"Bearer {KEY}"}
    asked = [
        b["tool_choice"]["function"]["name"]
        for b in bodies
        if isinstance(b.get("tool_choice"), dict)
    ]
    assert "CheckAnswer" in asked
    assert secret_values.PASSWORD not in str(bodies) + output


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        ({"OPENAI_API_KEY": "sk-a"}, "openai/gpt-4.1-mini"),
        ({"ANTHROPIC_API_KEY": "sk-ant-a"}, "anthropic/claude-haiku-4-5"),
        ({"OPENAI_API_KEY": "sk-a", "ANTHROPIC_API_KEY": "sk-ant-a"}, "openai/gpt-4.1-mini"),
        ({"OPENAI_API_KEY": "sk-a", "STAGEHAND_PY_MODEL": "openai/gpt-4.1"}, "openai/gpt-4.1"),
        # A base URL means a local server, whose model has a name of its own: no default.
        ({"OPENAI_API_KEY": "sk-a", "STAGEHAND_PY_BASE_URL": "http://127.0.0.1:9/v1"}, None),
        ({"OPENAI_API_KEY": "  "}, None),
        ({}, None),
    ],
)
def test_the_plugin_defaults_the_model_from_the_key_that_is_set(
    pytestconfig: pytest.Config,
    monkeypatch: pytest.MonkeyPatch,
    keys: dict[str, str],
    expected: str | None,
) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "STAGEHAND_PY_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("STAGEHAND_PY_BASE_URL", raising=False)
    for name, value in keys.items():
        monkeypatch.setenv(name, value)
    assert session_model(pytestconfig) == expected
