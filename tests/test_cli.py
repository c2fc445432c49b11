"""The command line on real Chromium: snapshot, act over an OpenAI-compatible loopback server,
the cache commands, failures, and the demo (unconfigured, and offline with --fake).

Commands run in-process in a worker thread: Playwright's sync API refuses a thread where this
suite's own sync Playwright session is live, and a thread is much faster than a subprocess.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import quote

import pytest

from stagehand_py.cache import ActionCache
from stagehand_py.cli import main
from stagehand_py.cli._demo import DEMO_VARIABLES
from tests import secret_values
from tests.cache_writer_proc import build_entry
from tests.llm_wire_server import (
    LLMWireServer,
    anthropic_message,
    anthropic_tool_use,
    openai_completion,
    openai_tool_call,
)

FORM_PAGE = "data:text/html," + quote(
    "<title>Form</title><label for=n>Name</label><input id=n name=name>"
    "<button onclick=\"document.title='sent '+document.getElementById('n').value\">Send</button>"
)


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with ThreadPoolExecutor(max_workers=1) as pool:
        code = pool.submit(main, list(args)).result(timeout=120)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "STAGEHAND_PY_MODEL",
        "STAGEHAND_PY_BASE_URL",
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("STAGEHAND_PY_CACHE_DIR", raising=False)


def test_snapshot_prints_the_numbered_chunks_and_an_annotated_screenshot(
    capsys: pytest.CaptureFixture[str], pages_url: str, tmp_path: Path
) -> None:
    png = tmp_path / "seen.png"
    code, out, _ = run_cli(capsys, "snapshot", pages_url + "hello.html", "--screenshot", str(png))
    assert code == 0
    assert "--- chunk 0" in out
    assert "0:<button>Hi</button>" in out
    assert png.read_bytes().startswith(b"\x89PNG")


def test_act_over_an_openai_compatible_server_then_the_cache_commands(
    capsys: pytest.CaptureFixture[str],
    llm_server: LLMWireServer,
    no_model: None,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-secret")
    fill = {"method": "fill", "element": 1, "args": ["<|NAME|>"], "step": "type the name",
            "why": "asked", "completed": False}  # fmt: skip
    send = {"method": "click", "element": 2, "args": [], "step": "send",
            "why": "asked", "completed": True}  # fmt: skip
    llm_server.reply(openai_completion(tool_calls=[openai_tool_call("doAction", fill)]))
    llm_server.reply(openai_completion(tool_calls=[openai_tool_call("doAction", send)]))
    verdict = {"completed": True, "reason": "the title says sent"}
    llm_server.reply(openai_completion(tool_calls=[openai_tool_call("VerifyAnswer", verdict)]))
    cache = tmp_path / "cache"

    code, out, err = run_cli(
        capsys,
        "act",
        FORM_PAGE,
        "type <|NAME|> and send it",
        "--var",
        f"NAME={secret_values.PASSWORD}",
        "--model",
        "openai/wire-model",
        "--base-url",
        llm_server.openai_base_url,
        "--cache-dir",
        str(cache),
    )

    assert code == 0, err
    assert "act('type <|NAME|> and send it') -> ok" in out
    assert "fill('<|NAME|>')" in out and "click()" in out
    assert "usage: 3 LLM call(s)" in out
    assert err.startswith("act: type <|NAME|> and send it ...")
    sent = str(llm_server.bodies)
    for text in (out, err, sent):
        assert secret_values.PASSWORD not in text
    assert {body["model"] for body in llm_server.bodies} == {"wire-model"}

    code, listing, _ = run_cli(capsys, "cache", "list", "--cache-dir", str(cache))
    assert code == 0 and "type <|NAME|> and send it" in listing
    key = listing.splitlines()[1].split()[0]
    code, shown, _ = run_cli(capsys, "cache", "show", key, "--cache-dir", str(cache))
    assert code == 0 and json.loads(shown)["instruction"] == "type <|NAME|> and send it"
    assert secret_values.PASSWORD not in shown
    code, _, err = run_cli(capsys, "cache", "show", "no-such-key", "--cache-dir", str(cache))
    assert code == 1 and err.startswith("error: ")
    code, cleared, _ = run_cli(capsys, "cache", "clear", "--cache-dir", str(cache))
    assert code == 0 and cleared.startswith("Removed 1 entry")


def test_extract_with_a_json_schema_and_observe_over_the_wire(
    capsys: pytest.CaptureFixture[str],
    llm_server: LLMWireServer,
    no_model: None,
    monkeypatch: pytest.MonkeyPatch,
    pages_url: str,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-secret")
    monkeypatch.setenv("STAGEHAND_PY_MODEL", "openai/wire-model")
    monkeypatch.setenv("OPENAI_BASE_URL", llm_server.openai_base_url)
    schema = tmp_path / "schema.json"
    schema.write_text(
        '{"type": "object", "properties": {"label": {"type": "string"}}, "required": ["label"]}'
    )
    answer = {"data": {"label": "Hi"}, "complete": True}
    llm_server.reply(openai_completion(tool_calls=[openai_tool_call("ExtractAnswer", answer)]))
    found = {"elements": [{"element": 0, "description": "the Hi button", "method": "click"}]}
    llm_server.reply(openai_completion(tool_calls=[openai_tool_call("ObserveAnswer", found)]))
    page = pages_url + "hello.html"

    code, out, err = run_cli(capsys, "extract", page, "the button's label", "--schema", str(schema))
    assert code == 0, err
    assert json.loads(out.split("usage:")[0]) == {"label": "Hi"}

    code, out, err = run_cli(capsys, "observe", page, "the greeting button", "-q")
    assert code == 0, err
    assert out.startswith("1. the Hi button\n   click() on ")
    assert "usage: 1 LLM call(s)" in out and err == ""


@pytest.mark.parametrize("command", ["extract", "observe"])
def test_extract_and_observe_honour_timeout(
    capsys: pytest.CaptureFixture[str],
    llm_server: LLMWireServer,
    no_model: None,
    monkeypatch: pytest.MonkeyPatch,
    pages_url: str,
    command: str,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-secret")
    monkeypatch.setenv("STAGEHAND_PY_MODEL", "openai/wire-model")
    monkeypatch.setenv("OPENAI_BASE_URL", llm_server.openai_base_url)
    found = {"elements": [{"element": 0, "description": "the Hi button"}]}
    # A model that takes a minute to answer (the server drops it when the test ends).
    llm_server.reply(openai_completion(content=json.dumps(found)), delay=60, times=3)
    started = time.monotonic()
    code, out, err = run_cli(
        capsys, command, pages_url + "hello.html", "the button", "--timeout", "3", "-q"
    )
    elapsed = time.monotonic() - started
    assert code == 1 and out == ""
    # The deadline ends it: either its own message or the request cut at the time left.
    assert "timeout_s" in err and "Traceback" not in err
    assert elapsed < 3 + 30  # a minute without the bound; generous for a loaded machine


def test_a_failure_is_one_line_on_stderr_and_exit_code_1(
    capsys: pytest.CaptureFixture[str], no_model: None, pages_url: str
) -> None:
    with socket.socket() as probe:  # a loopback port nobody listens on
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}/"
    code, out, err = run_cli(capsys, "observe", closed, "-q")
    assert code == 1 and out == ""
    assert err.startswith(f"error: Could not open {closed}") and err.count("\n") == 1

    code, _, err = run_cli(capsys, "act", pages_url + "hello.html", "say hi", "-q")
    assert code == 1
    assert err.startswith("error: No model configured") and err.count("\n") == 1


def test_an_act_that_fails_exits_1_with_its_reason(
    capsys: pytest.CaptureFixture[str],
    llm_server: LLMWireServer,
    no_model: None,
    monkeypatch: pytest.MonkeyPatch,
    pages_url: str,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-secret")
    skip = openai_tool_call("skipSection", {"reason": "no checkout button here"})
    llm_server.reply(openai_completion(tool_calls=[skip]))
    code, out, err = run_cli(
        capsys,
        "act",
        pages_url + "hello.html",
        "open the checkout",
        "--model=openai/wire-model",
        f"--base-url={llm_server.openai_base_url}",
        "-q",
    )
    assert code == 1
    assert "act('open the checkout') -> FAILED" in out  # what was tried, on stdout
    assert err.startswith("error: ") and err.count("\n") == 1


def test_a_bad_command_line_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["act", "http://127.0.0.1/"])
    assert stopped.value.code == 2
    assert "instruction" in capsys.readouterr().err


def test_demo_without_a_model_says_what_to_set_and_shows_the_prompt(
    capsys: pytest.CaptureFixture[str], no_model: None
) -> None:
    code, out, _ = run_cli(capsys, "demo")
    assert code == 0
    for needed in (
        "STAGEHAND_PY_MODEL=openai/gpt-4.1-mini",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "--base-url http://127.0.0.1:11434/v1 --model openai/llama3.1",
        "tools: doAction, skipSection",
        "Goal: Sign up for the coffee club as <|NAME|>",
        "<|PASSWORD|>",
    ):
        assert needed in out
    assert DEMO_VARIABLES["password"] not in out
    assert len(out.splitlines()) < 60  # one screen, give or take


def test_demo_runs_act_extract_and_observe_offline_with_fake(
    capsys: pytest.CaptureFixture[str], no_model: None
) -> None:
    code, out, err = run_cli(capsys, "demo", "--fake")
    assert code == 0, err
    assert "page check: the confirmation names 'Ada Lovelace'" in out
    # The name was typed from a variable: a secret, so the later extract on the same page
    # holds its placeholder, and the demo says why.
    assert "name='<|NAME|>', plan='Pro', monthly_price_eur=24.0, member_number='NW-" in out
    assert "(name is <|NAME|>: a value passed as a variable is a secret" in out
    assert "Ada Lovelace" not in out.split("2. extract")[1]
    assert "Open my dashboard" in out
    assert "act(observed)" in out and "(0 LLM call(s))" in out
    assert "Dashboard: your first bags ship on Monday." in out
    assert "usage:" in out
    assert DEMO_VARIABLES["password"] not in out + err


OBSERVED = {"elements": [{"element": 0, "description": "the Hi button", "method": "click"}]}


def test_environment_base_urls_reach_only_their_own_provider(
    capsys: pytest.CaptureFixture[str],
    llm_server: LLMWireServer,
    no_model: None,
    monkeypatch: pytest.MonkeyPatch,
    pages_url: str,
) -> None:
    page = pages_url + "hello.html"
    # STAGEHAND_PY_BASE_URL: an unprefixed model name is served by that OpenAI-compatible server.
    monkeypatch.setenv("STAGEHAND_PY_MODEL", "local-model")
    monkeypatch.setenv("STAGEHAND_PY_BASE_URL", llm_server.openai_base_url)
    llm_server.reply(openai_completion(tool_calls=[openai_tool_call("ObserveAnswer", OBSERVED)]))
    code, out, err = run_cli(capsys, "observe", page, "the button")
    assert code == 0, err
    assert "the Hi button" in out
    assert [body["model"] for body in llm_server.bodies] == ["local-model"]

    # An OpenAI base URL left in the environment for other tools never captures Anthropic calls.
    monkeypatch.delenv("STAGEHAND_PY_BASE_URL")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("STAGEHAND_PY_MODEL", "anthropic/claude-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-secret")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", llm_server.anthropic_base_url)
    llm_server.reply(anthropic_message([anthropic_tool_use("ObserveAnswer", OBSERVED)]))
    code, out, err = run_cli(capsys, "observe", page, "the button")
    assert code == 0, err
    assert "the Hi button" in out
    assert llm_server.bodies[-1]["model"] == "claude-test"


# ---------------------------------------------------------------- built for scripting (#15)


def _one_json_document(out: str) -> dict[str, object]:
    """stdout must be exactly one JSON object: what `| jq` reads with no cleaning."""
    assert out.endswith("\n") and out.count("\n") == 1, out[:500]
    document = json.loads(out)
    assert isinstance(document, dict)
    return document


def test_json_act_with_codegen_then_json_cache_commands(
    capsys: pytest.CaptureFixture[str],
    llm_server: LLMWireServer,
    no_model: None,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-secret")
    fill = {"method": "fill", "element": 1, "args": ["<|NAME|>"], "step": "type the name",
            "why": "asked", "completed": False}  # fmt: skip
    send = {"method": "click", "element": 2, "args": [], "step": "send",
            "why": "asked", "completed": True}  # fmt: skip
    llm_server.reply(openai_completion(tool_calls=[openai_tool_call("doAction", fill)]))
    llm_server.reply(openai_completion(tool_calls=[openai_tool_call("doAction", send)]))
    verdict = {"completed": True, "reason": "the title says sent"}
    llm_server.reply(openai_completion(tool_calls=[openai_tool_call("VerifyAnswer", verdict)]))
    cache = tmp_path / "cache"
    model = ["--model", "openai/wire-model", "--base-url", llm_server.openai_base_url]

    code, out, err = run_cli(
        capsys, "act", FORM_PAGE, "type <|NAME|> and send it", "--var",
        f"NAME={secret_values.PASSWORD}", *model, "--cache-dir", str(cache), "--json",
        "--codegen",
    )  # fmt: skip

    assert code == 0, err
    document = _one_json_document(out)
    assert document["ok"] is True and document["command"] == "act"
    result = document["result"]
    assert isinstance(result, dict) and result["success"] is True and result["cache"] == "miss"
    assert [a["method"] for a in result["actions"]] == ["fill", "click"]
    generated = str(document["playwright_code"])
    assert 'os.environ["NAME"]' in generated and "def run(page: Page)" in generated
    assert "act: type <|NAME|> and send it ..." in err and "usage: 3 LLM call(s)" in err
    for text in (out, err):
        assert secret_values.PASSWORD not in text

    code, out, _ = run_cli(capsys, "cache", "list", "--cache-dir", str(cache), "--json")
    listing = _one_json_document(out)
    [entry] = listing["entries"]  # type: ignore[misc]
    assert entry["instruction"] == "type <|NAME|> and send it" and entry["actions"] == 2
    code, out, _ = run_cli(
        capsys, "cache", "show", entry["key"][:8], "--cache-dir", str(cache), "--json", "--diff"
    )
    shown = _one_json_document(out)
    assert shown["entry"]["key"] == entry["key"]  # type: ignore[index]
    assert "never healed" in str(shown["diff"])
    code, out, _ = run_cli(capsys, "cache", "clear", "--cache-dir", str(cache), "--json")
    assert _one_json_document(out)["removed"] == 1


def test_json_errors_are_json_too_and_max_steps_applies(
    capsys: pytest.CaptureFixture[str],
    llm_server: LLMWireServer,
    no_model: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-secret")
    fill = {"method": "fill", "element": 1, "args": ["Ada"], "step": "type the name",
            "why": "asked", "completed": False}  # fmt: skip
    llm_server.reply(openai_completion(tool_calls=[openai_tool_call("doAction", fill)]))
    code, out, err = run_cli(
        capsys, "act", FORM_PAGE, "type Ada and send it", "--model", "openai/wire-model",
        "--base-url", llm_server.openai_base_url, "--max-steps", "1", "--timeout", "60", "--json",
    )  # fmt: skip
    assert code == 1
    document = _one_json_document(out)
    assert document["ok"] is False
    error = document["error"]
    assert isinstance(error, dict) and error["type"] == "ActError" and error["code"] == "MAX_STEPS"
    assert "max_steps=1" in str(error["message"])
    assert document["result"]["actions"][0]["method"] == "fill"  # type: ignore[index]
    last = err.splitlines()[-1]  # after the progress lines
    assert last.startswith("error: MAX_STEPS: Stopped after max_steps=1")
    assert llm_server.pending == 0 and len(llm_server.bodies) == 1


def test_json_snapshot_observe_extract_and_demo(
    capsys: pytest.CaptureFixture[str],
    llm_server: LLMWireServer,
    no_model: None,
    monkeypatch: pytest.MonkeyPatch,
    pages_url: str,
) -> None:
    page = pages_url + "hello.html"
    code, out, err = run_cli(capsys, "snapshot", page, "--json")
    assert code == 0, err
    snap = _one_json_document(out)
    assert snap["url"] == page and "0:<button>Hi</button>" in snap["chunks"][0]["text"]  # type: ignore[index]

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-secret")
    monkeypatch.setenv("STAGEHAND_PY_MODEL", "openai/wire-model")
    monkeypatch.setenv("STAGEHAND_PY_BASE_URL", llm_server.openai_base_url)
    llm_server.reply(openai_completion(tool_calls=[openai_tool_call("ObserveAnswer", OBSERVED)]))
    answer = {"data": {"text": "Hi"}, "complete": True}
    llm_server.reply(openai_completion(tool_calls=[openai_tool_call("ExtractAnswer", answer)]))
    code, out, err = run_cli(capsys, "observe", page, "the button", "--json")
    assert code == 0, err
    observed = _one_json_document(out)
    assert observed["results"][0]["description"] == "the Hi button"  # type: ignore[index]
    assert observed["llm_calls"] == 1 and "usage:" in err
    code, out, err = run_cli(capsys, "extract", page, "the button's label", "--json", "-q")
    assert code == 0, err
    assert _one_json_document(out)["data"] == "Hi"

    monkeypatch.delenv("STAGEHAND_PY_MODEL")
    code, out, err = run_cli(capsys, "demo", "--fake", "--json", "-q")
    assert code == 0, err
    demo = _one_json_document(out)
    assert demo["member_name_shown"] == "Ada Lovelace"
    assert demo["extract"]["plan"] == "Pro"  # type: ignore[index]
    assert demo["extract"]["name"] == "<|NAME|>"  # type: ignore[index]
    assert DEMO_VARIABLES["password"] not in out + err


def test_version_and_help_name_the_console_script(capsys: pytest.CaptureFixture[str]) -> None:
    from stagehand_py import __version__

    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out == f"pystagehand {__version__}\n"
    with pytest.raises(SystemExit):
        main(["--help"])
    help_text = capsys.readouterr().out
    assert help_text.startswith("usage: pystagehand") and "--json" in help_text


@pytest.mark.parametrize(
    ("variable", "value"),
    [("STAGEHAND_PY_MAX_STEPS", "ten"), ("STAGEHAND_PY_TIMEOUT", "soon"),
     ("STAGEHAND_PY_CACHE_MODE", "sometimes")],
)  # fmt: skip
def test_a_bad_environment_variable_is_one_line_naming_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    code, out, err = run_cli(capsys, "act", "http://127.0.0.1:9/", "say hi", "--json")
    assert code == 1
    assert err.startswith(f"error: The environment variable {variable}={value!r}")
    assert err.count("\n") == 1 and "Traceback" not in err
    error = _one_json_document(out)["error"]
    assert isinstance(error, dict) and error["type"] == "ConfigurationError"


def _run_into_a_closed_pipe(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    """Run the command line with stdout a pipe whose reader is already gone (`| head` done)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "stagehand_py", *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            env=env,
        )
    finally:
        os.close(write_end)
    return done.returncode, done.stderr


def test_output_into_a_closed_pipe_ends_quietly(tmp_path: Path, pages_url: str) -> None:
    cache = ActionCache(tmp_path)
    for n in range(3):
        cache.put(build_entry(cache, "x", url=f"https://a.example/{n}"))
    for args in (
        ("cache", "list", "--cache-dir", str(tmp_path)),
        ("--help",),
        ("snapshot", pages_url + "long.html"),
    ):
        code, err = _run_into_a_closed_pipe(*args)
        # 141 is what a shell reports for SIGPIPE; --help may finish writing into the buffer.
        assert code == 141 or (code == 0 and args == ("--help",)), (args, code, err)
        assert "Traceback" not in err and "BrokenPipe" not in err and "Exception" not in err, err
