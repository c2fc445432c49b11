"""The anthropic SDK is an extra: without it the package imports and OpenAI models work, and
asking for an Anthropic model is a ConfigurationError naming ``pystagehand[anthropic]``.

Each case runs in a fresh interpreter where ``import anthropic`` fails as it does when the
package is not installed (``sys.modules["anthropic"] = None``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.llm_wire_server import LLMWireServer, openai_completion, openai_tool_call

pytestmark = pytest.mark.slow  # starts processes or runs long: left out of the inner loop

ROOT = Path(__file__).resolve().parent.parent
WITHOUT_ANTHROPIC = """\
import sys

sys.modules["anthropic"] = None  # as if the optional SDK were not installed
"""


def run_without_anthropic(body: str) -> str:
    source = WITHOUT_ANTHROPIC + textwrap.dedent(body)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "STAGEHAND_PY_BLOCK_REAL_LLM": "1"}
    done = subprocess.run(
        [sys.executable, "-c", source], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_an_anthropic_model_without_the_sdk_is_an_error_naming_the_extra() -> None:
    out = run_without_anthropic(
        """
        import stagehand_py
        from stagehand_py import ConfigurationError
        from stagehand_py.providers import create_async_llm, create_llm

        for factory in (create_llm, create_async_llm):
            try:
                factory("anthropic/claude-sonnet-4-5", api_key="sk-ant-test")
            except ConfigurationError as error:
                print("factory:", error)
        try:
            from stagehand_py.providers import AnthropicLLM
        except ConfigurationError as error:
            print("import:", error)
        """
    )
    lines = out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["factory", "factory", "import"]
    assert all("pip install 'pystagehand[anthropic]'" in line for line in lines)
    assert "(model anthropic/claude-sonnet-4-5)" in lines[0]


def test_openai_models_work_without_the_anthropic_sdk(llm_server: LLMWireServer) -> None:
    llm_server.reply(
        openai_completion(tool_calls=[openai_tool_call("Product", {"name": "Lamp", "price": 9})])
    )
    out = run_without_anthropic(
        f"""
        from pydantic import BaseModel

        from stagehand_py.llm import Message
        from stagehand_py.providers import OpenAILLM


        class Product(BaseModel):
            name: str
            price: float


        llm = OpenAILLM("gpt-test", base_url={llm_server.openai_base_url!r}, api_key="sk-t")
        answer = llm.structured([Message(role="user", content="the product")], Product)
        print(answer.value)
        """
    )
    assert out.strip() == "name='Lamp' price=9.0"
    assert llm_server.bodies[0]["model"] == "gpt-test"
