"""``stagehand-py workflow`` over an OpenAI-compatible loopback server (the real openai client
on the wire), ``stagehand-py history list|show|clear``, and the ``--mode`` run presets next to
``snapshot``'s view option."""

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
