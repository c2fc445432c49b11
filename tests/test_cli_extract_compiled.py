"""``pystagehand extract --cache-dir --codegen``: compiled over the wire once, replayed with no
request, the reads printed as plain Playwright code; ``cache list`` shows the entry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.llm_wire_server import LLMWireServer, openai_completion, openai_tool_call
from tests.test_cli import run_cli


def test_extract_compiles_replays_and_prints_its_reads_as_code(
    capsys: pytest.CaptureFixture[str],
    llm_server: LLMWireServer,
    monkeypatch: pytest.MonkeyPatch,
    pages_url: str,
    tmp_path: Path,
) -> None:
    for name in ("STAGEHAND_PY_BASE_URL", "ANTHROPIC_API_KEY", "STAGEHAND_PY_CACHE_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-secret")
    monkeypatch.setenv("STAGEHAND_PY_MODEL", "openai/wire-model")
    monkeypatch.setenv("OPENAI_BASE_URL", llm_server.openai_base_url)
    schema = tmp_path / "schema.json"
    schema.write_text('{"type": "object", "properties": {"label": {"type": "string"}}}')
    answer = {"data": {"label": "Hi"}, "sources": {"/label": [0]}, "complete": True}
    llm_server.reply(openai_completion(tool_calls=[openai_tool_call("ExtractAnswer", answer)]))
    cache = ["--cache-dir", str(tmp_path / "cache"), "--schema", str(schema)]
    page = pages_url + "hello.html"

    code, out, err = run_cli(capsys, "extract", page, "the label", *cache, "--codegen", "-q")
    assert code == 0, err
    data, generated = out.split("# ---- plain Playwright code of this extract ----\n")
    assert json.loads(data) == {"label": "Hi"}
    assert 'data["label"] = _text(page.locator("xpath=/html/body[1]/button[1]")' in generated
    assert "usage: 1 LLM call(s)" in generated

    code, out, err = run_cli(capsys, "extract", page, "the label", *cache, "--json", "-q")
    assert code == 0, err
    replayed = json.loads(out)
    assert replayed["data"] == {"label": "Hi"} and replayed["cache"] == "hit"
    assert replayed["llm_calls"] == 0 and len(llm_server.bodies) == 1

    code, out, err = run_cli(capsys, "cache", "list", "--cache-dir", str(tmp_path / "cache"))
    assert code == 0 and '1 field  "extract: the label [schema ' in out
