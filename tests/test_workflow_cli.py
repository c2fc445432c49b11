"""``pystagehand workflow`` over an OpenAI-compatible loopback server (the real openai client
on the wire), ``pystagehand history list|show|clear`` (text and ``--json``), and the ``--mode``
run presets next to ``snapshot``'s view option."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from stagehand_py import ConfigurationError, Secret
from stagehand_py.cli._app import build_parser
from stagehand_py.cli._workflow import credential_variables
from tests import secret_values
from tests.agent_plan import find_element
from tests.llm_wire_server import (
    LLMWireServer,
    ReceivedRequest,
    openai_completion,
    openai_tool_call,
    prompt_text,
)
from tests.memory_keyring import MemoryKeyring, memory_keyring  # noqa: F401 (the fixture)
from tests.test_agent_cli import run_cli, wire_model  # noqa: F401 (the fixture)

pytestmark = pytest.mark.slow  # starts processes or runs long: left out of the inner loop

CHECKLIST = {"checklist": ["[] <|EMAIL|> と <|PASSWORD|> でログインする"], "find_page": []}


def tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return openai_completion(tool_calls=[openai_tool_call(name, arguments)])


def log_in(request: ReceivedRequest) -> dict[str, Any]:
    prompt = prompt_text(request.body)
    actions = [
        {"action": "fill", "index": find_element(prompt, "メールアドレス"), "text": "<|EMAIL|>"},
        {"action": "fill", "index": find_element(prompt, "パスワード"), "text": "<|PASSWORD|>"},
    ]
    return tool("AgentOutput", {"thinking": "t", "next_goal": "log in", "actions": actions})


def submit(request: ReceivedRequest) -> dict[str, Any]:
    button = find_element(prompt_text(request.body), r"^<button>ログインする")
    actions = [{"action": "click", "index": button}]
    return tool("AgentOutput", {"thinking": "t", "next_goal": "submit", "actions": actions})


def test_workflow_command_then_history_list_show_and_clear(
    capsys: pytest.CaptureFixture[str],
    wire_model: LLMWireServer,  # noqa: F811
    pages_url: str,
    tmp_path: Path,
) -> None:
    wire_model.reply(tool("ChecklistAnswer", CHECKLIST))
    wire_model.reply(log_in)
    wire_model.reply(submit)
    wire_model.reply(tool("AgentOutput", {"actions": [{"action": "done", "text": "logged in"}]}))
    wire_model.reply(tool("CompletionCheck", {"completed": True, "reason": "welcome shown"}))
    history = str(tmp_path / "history")
    dotenv = tmp_path / "shop.env"
    # One value from the command line, one from a .env file; the page echoes the email.
    dotenv.write_text(f"PASSWORD={secret_values.PASSWORD}\n", "utf-8")

    code, out, err = run_cli(
        capsys,
        "workflow",
        pages_url + "workflow/login.html",
        "<|EMAIL|> と <|PASSWORD|> でログインする",
        "--var",
        f"EMAIL={secret_values.EMAIL}",
        "--vars-file",
        str(dotenv),
        "--history-dir",
        history,
        "--mode",
        "prod",
    )

    assert code == 0, err
    assert "workflow -> ok (done)" in out
    assert "checklist:\n  [x] <|EMAIL|> と <|PASSWORD|> でログインする" in out
    assert "usage: 5 LLM call(s)" in out
    assert "workflow: <|EMAIL|> と <|PASSWORD|> でログインする ..." in err
    tools = [body["tools"][0]["function"]["name"] for body in wire_model.bodies]
    assert tools == ["ChecklistAnswer", *["AgentOutput"] * 3, "CompletionCheck"]

    code, listed, _ = run_cli(capsys, "history", "list", "--history-dir", history)
    assert code == 0 and listed.strip() == "127.0.0.1  1 flow(s), 0 failure(s), 1 checklist(s)"
    code, shown, _ = run_cli(capsys, "history", "show", "127.0.0.1", "--history-dir", history)
    assert code == 0 and "flow (" in shown and "on /workflow/login.html" in shown
    assert "text='<|EMAIL|>'" in shown and "text='<|PASSWORD|>'" in shown
    files = "".join(p.read_text("utf-8") for p in Path(history).glob("*.json"))
    for text in (out, err, listed, shown, files, json.dumps(wire_model.bodies)):
        assert secret_values.EMAIL not in text and secret_values.PASSWORD not in text
    for text in (out, err, listed, shown, files):  # the page title echoes it
        assert quote(secret_values.EMAIL, safe="") not in text
    code, cleared, _ = run_cli(capsys, "history", "clear", "--history-dir", history)
    assert code == 0 and cleared.strip() == "cleared the history: 1 file(s) removed"
    assert list(Path(history).glob("*.json")) == []


def _only_json(out: str) -> dict[str, Any]:
    """stdout holds one JSON object and nothing else."""
    assert out.endswith("\n") and out.count("\n") == 1, out
    document = json.loads(out)
    assert isinstance(document, dict)
    return document


def test_workflow_and_history_with_json_print_only_json(
    capsys: pytest.CaptureFixture[str],
    wire_model: LLMWireServer,  # noqa: F811
    pages_url: str,
    tmp_path: Path,
) -> None:
    wire_model.reply(tool("ChecklistAnswer", CHECKLIST))
    wire_model.reply(log_in)
    wire_model.reply(submit)
    wire_model.reply(tool("AgentOutput", {"actions": [{"action": "done", "text": "logged in"}]}))
    wire_model.reply(tool("CompletionCheck", {"completed": True, "reason": "welcome shown"}))
    history = str(tmp_path / "history")
    code, out, err = run_cli(
        capsys,
        "workflow",
        pages_url + "workflow/login.html",
        "<|EMAIL|> と <|PASSWORD|> でログインする",
        "--var",
        f"EMAIL={secret_values.EMAIL}",
        "--var",
        f"PASSWORD={secret_values.PASSWORD}",
        "--history-dir",
        history,
        "--json",
    )
    assert code == 0, err
    ran = _only_json(out)
    assert ran["ok"] is True and ran["command"] == "workflow"
    assert ran["result"]["success"] is True and ran["result"]["reason"] == "done"
    assert ran["result"]["checklist"] == ["[x] <|EMAIL|> と <|PASSWORD|> でログインする"]
    assert "usage: 5 LLM call(s)" in err  # people's lines go to stderr

    code, out, err = run_cli(capsys, "history", "list", "--history-dir", history, "--json")
    listed = _only_json(out)
    assert code == 0 and listed["command"] == "history list" and listed["ok"] is True
    assert listed["sites"] == [{"domain": "127.0.0.1", "flows": 1, "failures": 0, "checklists": 1}]
    code, out, err = run_cli(
        capsys, "history", "show", pages_url, "--history-dir", history, "--json"
    )
    shown = _only_json(out)
    assert code == 0 and shown["command"] == "history show"
    site = shown["site"]
    assert site["domain"] == "127.0.0.1" and len(site["checklists"]) == 1
    [flow] = site["flows"]
    assert flow["start_path"] == "/workflow/login.html" and flow["replayable"] is True
    assert any("<|PASSWORD|>" in step for step in flow["steps"])
    code, out, err = run_cli(
        capsys, "history", "clear", "127.0.0.1", "--history-dir", history, "--json"
    )
    cleared = _only_json(out)
    assert code == 0 and (cleared["site"], cleared["removed"]) == ("127.0.0.1", 1)
    for text in (json.dumps([ran, listed, shown, cleared]), err):
        assert secret_values.EMAIL not in text and secret_values.PASSWORD not in text

    code, out, err = run_cli(capsys, "history", "list", "--history-dir", "", "--json")
    failed = _only_json(out)
    assert code == 1 and failed["ok"] is False
    assert failed["error"]["type"] == "ConfigurationError"
    assert "--history-dir" in failed["error"]["message"] and err.startswith("error: ")


def test_history_without_a_directory_says_what_to_set(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("STAGEHAND_PY_HISTORY_DIR", raising=False)
    code, _, err = run_cli(capsys, "history", "list")
    assert code == 1 and "pass --history-dir DIR or set STAGEHAND_PY_HISTORY_DIR" in err


def test_mode_is_the_run_preset_and_snapshot_keeps_its_view(pages_url: str) -> None:
    parser = build_parser()
    assert parser.parse_args(["act", "u", "click", "--mode", "dev"]).mode == "dev"
    assert parser.parse_args(["workflow", "u", "t", "--mode", "prod"]).mode == "prod"
    snapshot = parser.parse_args(["snapshot", "u", "--view", "aria", "--mode", "prod"])
    assert (snapshot.view, snapshot.mode) == ("aria", "prod")
    assert parser.parse_args(["snapshot", "u", "--mode", "aria"]).mode == "aria"  # older form
    with pytest.raises(SystemExit):
        parser.parse_args(["act", "u", "click", "--mode", "aria"])  # a view is not a preset


def test_credential_options_of_the_workflow_command(
    monkeypatch: pytest.MonkeyPatch,
    memory_keyring: MemoryKeyring,  # noqa: F811
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("G18_CLI_EMAIL", secret_values.EMAIL)
    memory_keyring.set_password("shop:test", "PHONE", secret_values.PHONE)
    dotenv = tmp_path / ".env"
    dotenv.write_text(f"PASSWORD={secret_values.PASSWORD}\nEMAIL=overridden-by-env\n", "utf-8")
    parser = build_parser()
    args = parser.parse_args(
        [
            *("workflow", "u", "t", "--var", "PLAIN=x", "--vars-file", str(dotenv)),
            *("--vars-env", "G18_CLI_", "--vars-keyring", "shop:test:PHONE"),
        ]
    )
    variables = credential_variables(args)
    assert sorted(variables) == ["EMAIL", "PASSWORD", "PHONE", "PLAIN"]
    assert isinstance(variables["EMAIL"], Secret)
    assert variables["EMAIL"].get_secret_value() == secret_values.EMAIL
    assert variables["PHONE"].get_secret_value() == secret_values.PHONE
    bad = parser.parse_args(["workflow", "u", "t", "--vars-keyring", "PHONE"])
    with pytest.raises(ConfigurationError, match="SERVICE:NAME"):
        credential_variables(bad)


def test_a_failed_workflow_with_json_prints_its_result_and_error(
    capsys: pytest.CaptureFixture[str],
    wire_model: LLMWireServer,  # noqa: F811
    pages_url: str,
) -> None:
    wire_model.reply(
        tool("ChecklistAnswer", {"checklist": ["[] open the archive"], "find_page": []})
    )
    gave_up = {"action": "done", "text": "there is no archive here", "success": False}
    wire_model.reply(tool("AgentOutput", {"actions": [gave_up]}))
    page = pages_url + "workflow/login.html"
    code, out, err = run_cli(capsys, "workflow", page, "open the archive", "--json")
    assert code == 1
    failed = _only_json(out)
    assert failed["ok"] is False and failed["command"] == "workflow"
    assert failed["error"]["type"] == "WorkflowFailed" and failed["error"]["reason"] == "failed"
    assert failed["result"]["reason"] == "failed" and failed["result"]["success"] is False
    assert "error: the workflow ended with reason failed" in err
