"""Every snippet of the models pages (``docs/models/*.md``) talks to a server as written.

Each Python block that builds a ``Stagehand`` runs here with its server's address swapped for
the loopback wire server (``tests/llm_wire_server.py``), keeping the documented path: the real
``openai`` or ``anthropic`` client then sends one structured request over HTTP. The test checks
the request went to the documented path with the documented model name and key, and that the
answer came back validated. A new snippet is picked up by itself.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from pydantic import BaseModel

from stagehand_py import Stagehand
from stagehand_py.llm import Message
from tests.llm_wire_server import (
    LLMWireServer,
    ReceivedRequest,
    anthropic_message,
    anthropic_tool_use,
    openai_completion,
    openai_tool_call,
)
from tests.test_readme import readme_blocks

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "docs" / "models").glob("*.md"))
SNIPPETS = [
    block
    for page in PAGES
    for block in readme_blocks(page.read_text("utf-8"), page.relative_to(ROOT).as_posix())
    if block.language == "python" and "Stagehand(" in block.source
]
_BASE_URL = re.compile(r'base_url="([^"]+)"')
_MODEL = re.compile(r'(?:model=|OpenAILLM\()"([^"]+)"')
_KEY_VARIABLE = re.compile(r'os\.environ\["([A-Z_]+)"\]')


class Product(BaseModel):
    name: str
    price: float


def answer(request: ReceivedRequest) -> dict[str, Any]:
    """A valid structured answer, as a tool call of the tool the request named."""
    arguments = {"name": "Walnut desk lamp", "price": 49.0}
    tool = request.body["tools"][0]
    if "function" in tool:  # OpenAI's wire format
        return openai_completion(tool_calls=[openai_tool_call(tool["function"]["name"], arguments)])
    return anthropic_message([anthropic_tool_use(tool["name"], arguments)])


def test_the_models_pages_have_a_snippet_per_server() -> None:
    sources = "\n".join(block.source for block in SNIPPETS)
    servers = ["openai/gpt", "anthropic/claude", ":11434/v1", ":8000/v1", ":8080/v1"]
    servers += ["openrouter.ai", "generativelanguage.googleapis.com", "openai.azure.com"]
    for server in servers:
        assert server in sources.lower(), f"no models snippet for {server}"


@pytest.mark.parametrize("block", SNIPPETS, ids=[block.where for block in SNIPPETS])
def test_the_snippet_reaches_its_server(
    block: Any, llm_server: LLMWireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = block.source
    documented = _BASE_URL.search(source)
    model = _MODEL.search(source)
    assert model, f"{block.where}: no model named"
    provider, _, name = model.group(1).partition("/")
    if provider not in ("openai", "anthropic"):
        provider, name = "openai", model.group(1)
    for variable in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "STAGEHAND_PY_BASE_URL"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", llm_server.openai_base_url)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", llm_server.anthropic_base_url)
    key = "not-needed"  # what the client sends a server that needs no key
    if documented is None:  # OpenAI or Anthropic themselves: the key from their variable
        key = f"sk-docs-{provider}"
        monkeypatch.setenv(f"{provider.upper()}_API_KEY", key)
        path = "/v1" if provider == "openai" else ""
    else:
        path = urlsplit(documented.group(1)).path.rstrip("/")
        source = source.replace(documented.group(1), llm_server.url + path)
    for variable in _KEY_VARIABLE.findall(source):
        key = f"sk-docs-{variable.lower()}"
        monkeypatch.setenv(variable, key)

    names: dict[str, Any] = {"__name__": "__main__"}
    exec(compile(source, block.where, "exec"), names)
    sessions = [value for value in names.values() if isinstance(value, Stagehand)]
    assert sessions, f"{block.where}: builds no Stagehand"
    llm_server.reply(answer, times=len(sessions))
    for session in sessions:
        reply = session.llm.structured([Message(role="user", content="the product")], Product)
        assert reply.value == Product(name="Walnut desk lamp", price=49.0)

    endpoint = "/chat/completions" if provider == "openai" else "/v1/messages"
    for request in llm_server.requests:
        assert request.path == path + endpoint
        assert request.body["model"] == name
        sent_key = request.headers.get("authorization", "").removeprefix("Bearer ")
        assert key in (sent_key, request.headers.get("x-api-key"))
