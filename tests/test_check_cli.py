"""``pystagehand check`` over an OpenAI-compatible loopback server: the statement holds (exit 0,
``--codegen`` prints the expect lines), the cache commands list and show the check's entry, the
replay needs no model, and a statement that does not hold exits 1 with its reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.llm_wire_server import LLMWireServer, openai_completion, openai_tool_call
from tests.test_cli import no_model, run_cli  # noqa: F401  (no_model is a fixture)

HOLDS = {
    "holds": True,
    "reason": "the only button reads Hi",
    "evidence": [0],
    "assertions": [{"element": 0, "kind": "to_have_text", "expected": "Hi"}],
    "compilable": True,
}


def test_check_compiles_prints_expect_code_and_replays_from_the_cache(
    capsys: pytest.CaptureFixture[str],
    llm_server: LLMWireServer,
    no_model: None,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    pages_url: str,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-secret")
    llm_server.reply(openai_completion(tool_calls=[openai_tool_call("CheckAnswer", HOLDS)]))
    cache = tmp_path / "cache"
    model = ["--model", "openai/wire-model", "--base-url", llm_server.openai_base_url]
    page = pages_url + "hello.html"

    code, out, err = run_cli(
        capsys, "check", page, "the button says Hi", *model, "--cache-dir", str(cache),
        "--codegen",
    )  # fmt: skip

    assert code == 0, err
    assert "check('the button says Hi') -> ok" in out and "cache miss" in out
    assert "evidence: 0:<button>Hi</button>" in out
    # The page's one button, found by its role without quoting the text it checks.
    assert 'expect(page.get_by_role("button")).to_have_text("Hi")' in out
    assert "usage: 1 LLM call(s)" in out

    code, listing, _ = run_cli(capsys, "cache", "list", "--cache-dir", str(cache))
    assert code == 0 and '1 assertion  "check: the button says Hi"' in listing
    code, out, _ = run_cli(capsys, "cache", "list", "--cache-dir", str(cache), "--json")
    [entry] = json.loads(out)["entries"]
    assert (entry["kind"], entry["assertions"], entry["actions"]) == ("check", 1, 0)
    code, shown, _ = run_cli(capsys, "cache", "show", entry["key"][:8], "--cache-dir", str(cache))
    assert json.loads(shown)["assertions"][0]["kind"] == "to_have_text"

    code, out, err = run_cli(
        capsys, "check", page, "the button says Hi", *model, "--cache-dir", str(cache),
        "--cache-mode", "require", "--json",
    )  # fmt: skip
    assert code == 0, err
    result = json.loads(out)["result"]
    assert (result["cache"], result["llm_calls"]) == ("hit", 0)
    assert len(llm_server.bodies) == 1


def test_a_statement_that_does_not_hold_exits_1_with_its_reason(
    capsys: pytest.CaptureFixture[str],
    llm_server: LLMWireServer,
    no_model: None,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    pages_url: str,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-secret")
    answer = {"holds": False, "reason": "the button reads Hi, not Bye", "evidence": [0]}
    llm_server.reply(openai_completion(tool_calls=[openai_tool_call("CheckAnswer", answer)]))

    code, out, err = run_cli(
        capsys, "check", pages_url + "hello.html", "the button says Bye", "--model",
        "openai/wire-model", "--base-url", llm_server.openai_base_url,
    )  # fmt: skip

    assert code == 1
    assert "check('the button says Bye') -> FAILED" in out
    assert "evidence: 0:<button>Hi</button>" in out
    assert "the button reads Hi, not Bye" in err
