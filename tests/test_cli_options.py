"""Options the page commands share: every option says what it does; variables come from the
environment or a .env file on act, extract, observe, check and agent as on workflow (never from
the command line, never shown); and the browser: its channel, a storage state, a viewport."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from stagehand_py import Secret
from stagehand_py.cli._app import build_parser
from stagehand_py.cli._variables import credential_variables
from tests import secret_values
from tests.llm_wire_server import LLMWireServer, openai_completion, openai_tool_call
from tests.test_cli import FORM_PAGE, no_model, run_cli  # noqa: F401  (no_model is a fixture)

VARIABLE_COMMANDS = ("act", "extract", "observe", "check", "agent", "workflow")


def _all_actions(
    parser: argparse.ArgumentParser, path: str = "pystagehand"
) -> list[tuple[str, argparse.Action]]:
    found: list[tuple[str, argparse.Action]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += _all_actions(sub, f"{path} {name}")
        else:
            found.append((path, action))
    return found


def test_every_option_and_argument_of_every_command_says_what_it_is() -> None:
    actions = _all_actions(build_parser())
    assert len(actions) > 100
    silent = [f"{path} {a.option_strings or a.dest}" for path, a in actions if not a.help]
    assert not silent


@pytest.mark.parametrize("command", VARIABLE_COMMANDS)
def test_each_command_reads_variables_from_a_file_the_environment_and_the_command_line(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text(f"PASSWORD={secret_values.PASSWORD}\nUSER=from-the-file\n", "utf-8")
    monkeypatch.setenv("SHOP_USER", "ada")
    args = build_parser().parse_args(
        [command, "https://shop.example/", "log in as <|USER|>", "--vars-file", str(dotenv),
         "--vars-env", "SHOP_", "--var", "PLAN=basic"]
    )  # fmt: skip
    variables = credential_variables(args)
    revealed = {
        name: value.get_secret_value() if isinstance(value, Secret) else value
        for name, value in variables.items()
    }
    # The environment wins over the file (as with dotenv), the command line over both.
    assert revealed == {"PASSWORD": secret_values.PASSWORD, "USER": "ada", "PLAN": "basic"}
    assert isinstance(variables["PASSWORD"], Secret)  # never shown, wherever it goes


def test_act_types_a_value_read_from_the_environment_and_never_shows_it(
    capsys: pytest.CaptureFixture[str],
    llm_server: LLMWireServer,
    no_model: None,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-secret")
    monkeypatch.setenv("SHOP_NAME", secret_values.PASSWORD)
    fill = {"method": "fill", "element": 1, "args": ["<|NAME|>"], "step": "type the name",
            "why": "asked", "completed": False}  # fmt: skip
    send = {"method": "click", "element": 2, "args": [], "step": "send",
            "why": "asked", "completed": True}  # fmt: skip
    llm_server.reply(openai_completion(tool_calls=[openai_tool_call("doAction", fill)]))
    llm_server.reply(openai_completion(tool_calls=[openai_tool_call("doAction", send)]))
    verdict = {"completed": True, "reason": "the title says sent"}
    llm_server.reply(openai_completion(tool_calls=[openai_tool_call("VerifyAnswer", verdict)]))

    code, out, err = run_cli(
        capsys, "act", FORM_PAGE, "type <|NAME|> and send it", "--vars-env", "SHOP_",
        "--model", "openai/wire-model", "--base-url", llm_server.openai_base_url,
    )  # fmt: skip

    assert code == 0, err
    assert "fill('<|NAME|>')" in out
    sent = json.dumps(llm_server.bodies)
    # The verify request shows the box holding the typed value, as the placeholder.
    assert 'value="<|NAME|>"' in llm_server.bodies[-1]["messages"][-1]["content"]
    for text in (out, err, sent):
        assert secret_values.PASSWORD not in text


def test_observe_and_extract_name_their_variables_to_the_model_not_their_values(
    capsys: pytest.CaptureFixture[str],
    llm_server: LLMWireServer,
    no_model: None,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-secret")
    dotenv = tmp_path / ".env"
    dotenv.write_text(f"NAME={secret_values.PASSWORD}\n", "utf-8")
    found = {"elements": [{"element": 1, "description": "the name box", "method": "fill",
                           "arguments": ["<|NAME|>"]}]}  # fmt: skip
    llm_server.reply(openai_completion(tool_calls=[openai_tool_call("ObserveAnswer", found)]))
    llm_server.reply(
        openai_completion(tool_calls=[openai_tool_call("ExtractAnswer", {"data": {"text": "Name"},
                                                                           "complete": True})])
    )  # fmt: skip
    model = ["--model", "openai/wire-model", "--base-url", llm_server.openai_base_url]

    code, out, err = run_cli(
        capsys, "observe", FORM_PAGE, "the box for <|NAME|>", "--vars-file", str(dotenv), *model
    )
    assert code == 0, err
    assert "the name box" in out
    code, out, err = run_cli(
        capsys, "extract", FORM_PAGE, "the label of the box for <|NAME|>", "--vars-file",
        str(dotenv), *model,
    )  # fmt: skip
    assert code == 0, err

    sent = json.dumps(llm_server.bodies)
    assert len(llm_server.bodies) == 2
    assert sent.count("the box for <|NAME|>") == 2 and "NAME" in sent
    assert secret_values.PASSWORD not in sent + out + err


def test_storage_state_and_viewport_shape_the_page(
    capsys: pytest.CaptureFixture[str], pages_url: str, tmp_path: Path
) -> None:
    host = pages_url.split("//", 1)[1].split(":", 1)[0]
    state = tmp_path / "state.json"
    cookie = {"name": "session", "value": "s3", "domain": host, "path": "/", "expires": -1,
              "httpOnly": False, "secure": False, "sameSite": "Lax"}  # fmt: skip
    state.write_text(json.dumps({"cookies": [cookie], "origins": []}), "utf-8")
    page = pages_url + "cli/browser_state.html"

    code, out, err = run_cli(
        capsys, "snapshot", page, "--storage-state", str(state), "--viewport", "800x600"
    )
    assert code == 0, err
    assert "cookie=session=s3 size=800x600" in out

    code, out, err = run_cli(capsys, "snapshot", page)
    assert code == 0, err
    assert "cookie=none size=1280x720" in out


def test_bad_browser_options_say_what_is_wrong(
    capsys: pytest.CaptureFixture[str], pages_url: str, tmp_path: Path
) -> None:
    page = pages_url + "cli/browser_state.html"
    missing = tmp_path / "no-such-state.json"
    code, _, err = run_cli(capsys, "snapshot", page, "--storage-state", str(missing))
    assert code == 1 and "--storage-state" in err and "no such file" in err

    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["snapshot", page, "--viewport", "wide"])
    assert exited.value.code == 2
    assert "expects WIDTHxHEIGHT such as 1280x720, got 'wide'" in capsys.readouterr().err

    # A channel that is not installed here: Playwright itself says so (the channel reached it).
    code, _, err = run_cli(capsys, "snapshot", page, "--browser-channel", "msedge")
    assert code == 1 and err.startswith("error: browser: ") and "'msedge'" in err
