"""The command line's output on failing commands and odd limits: a command whose call raises
after sending model requests still reports them (usage line, and ``llm_calls``/``usage`` in the
``--json`` error), with no form of a variable; a ``--timeout`` too long for Playwright's timers
opens the page instead of blaming the URL.

Commands run in-process in a worker thread against the loopback model server, as in
tests/test_cli.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests import secret_values
from tests.llm_wire_server import LLMWireServer, openai_completion, openai_error, openai_tool_call
from tests.test_cli import run_cli

pytestmark = pytest.mark.slow  # starts Chromium: left out of the inner loop

EMAIL = secret_values.EMAIL


@pytest.fixture
def wire(monkeypatch: pytest.MonkeyPatch, llm_server: LLMWireServer) -> list[str]:
    for name in ("STAGEHAND_PY_MODEL", "STAGEHAND_PY_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("STAGEHAND_PY_CACHE_DIR", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-secret")
    monkeypatch.setenv("SHOP_EMAIL", EMAIL)
    return ["--model", "openai/wire-model", "--base-url", llm_server.openai_base_url]


# Each command with both endings and both outputs (a browser each: not every product).
@pytest.mark.parametrize(
    ("command", "ending", "output"),
    [
        ("extract", "no usable answer", "json"),
        ("extract", "model error", "text"),
        ("observe", "no usable answer", "text"),
        ("observe", "model error", "json"),
        ("check", "no usable answer", "json"),
        ("check", "model error", "text"),
    ],
)
def test_a_call_that_raises_still_reports_the_requests_it_sent(
    capsys: pytest.CaptureFixture[str],
    llm_server: LLMWireServer,
    wire: list[str],
    pages_url: str,
    command: str,
    ending: str,
    output: str,
) -> None:
    if ending == "no usable answer":  # every attempt and re-ask is sent, then it gives up
        llm_server.reply(openai_completion(content="no JSON here"), times=8)
    else:
        llm_server.reply(openai_error("the model is overloaded"), status=400, times=3)
    # A GET form's answer page: the variable's value is in the URL the error may name.
    page = pages_url + "hostile/echo.html?email=" + EMAIL
    extra = ["--json"] if output == "json" else []
    code, out, err = run_cli(
        capsys, command, page, "what <|EMAIL|> signed up for", "--vars-env", "SHOP_",
        *wire, *extra,
    )  # fmt: skip

    sent = len(llm_server.requests)
    assert code == 1 and sent >= 1
    lines = err.splitlines()
    assert lines[-1].startswith("error: ") and "Traceback" not in err
    answered = sent if ending == "no usable answer" else 0  # each answer said 10 + 5 tokens
    usage = f"usage: {sent} LLM call(s), {10 * answered} prompt + {5 * answered} completion"
    assert lines[-2].startswith(usage), err
    if output == "json":
        document = json.loads(out)  # still the one JSON object on stdout
        assert document["ok"] is False and document["error"]["type"]
        assert document["llm_calls"] == sent and document["usage"]["requests"] == sent
        assert document["usage"]["prompt_tokens"] == 10 * answered
    else:
        assert out == ""  # a failed command has no result to print
    assert not [form for form in secret_values.FORMS if form in out + err]


@pytest.mark.parametrize("output", ["text", "json"])
def test_a_failure_before_any_request_adds_no_usage(
    capsys: pytest.CaptureFixture[str],
    wire: list[str],
    pages_url: str,
    output: str,
    tmp_path: Path,
) -> None:
    # require mode refuses observe (it always needs the model): nothing sent, one line.
    extra = ["--json"] if output == "json" else []
    code, out, err = run_cli(
        capsys, "observe", pages_url + "hello.html", "--cache-mode", "require", "-q",
        "--cache-dir", str(tmp_path), *wire, *extra,
    )  # fmt: skip
    assert code == 1 and "usage:" not in err and err.count("\n") == 1, err
    if output == "json":
        assert "llm_calls" not in json.loads(out)


OBSERVED = {"elements": [{"element": 0, "description": "the Hi button", "method": "click"}]}


@pytest.mark.parametrize(
    ("command", "timeout"),
    [("observe", "inf"), ("snapshot", "1e300"), ("agent", "3e6"), ("workflow", "inf")],
)
def test_a_timeout_playwright_cannot_time_is_refused_by_name(
    capsys: pytest.CaptureFixture[str],
    llm_server: LLMWireServer,
    wire: list[str],
    pages_url: str,
    command: str,
    timeout: str,
) -> None:
    # Playwright's timers hold 2**31-1 ms: a longer wait opened no page ("Timeout exceeded",
    # or a JSON error for inf) and the message blamed the URL.
    model = [] if command == "snapshot" else ["the button", *wire]
    code, out, err = run_cli(
        capsys, command, pages_url + "hello.html", *model, "--timeout", timeout, "--json"
    )
    assert code == 1 and err.count("\n") == 1, err
    assert err.startswith(f"error: --timeout {float(timeout):g}: a time budget is at most")
    assert json.loads(out)["error"]["type"] == "ConfigurationError"
    assert not llm_server.requests


def test_a_long_timeout_playwright_can_time_still_works(
    capsys: pytest.CaptureFixture[str],
    llm_server: LLMWireServer,
    wire: list[str],
    pages_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    llm_server.reply(openai_completion(tool_calls=[openai_tool_call("ObserveAnswer", OBSERVED)]))
    code, out, err = run_cli(
        capsys, "observe", pages_url + "hello.html", "the button", "--timeout", "2147483", "-q",
        *wire,
    )  # fmt: skip
    assert code == 0, err
    assert out.startswith("1. the Hi button") and err == ""
    # The environment's budget is checked as the option is, and named.
    monkeypatch.setenv("STAGEHAND_PY_TIMEOUT", "inf")
    code, _, err = run_cli(capsys, "snapshot", pages_url + "hello.html")
    assert code == 1 and err.startswith("error: $STAGEHAND_PY_TIMEOUT inf: a time budget")


@pytest.mark.parametrize("statement", ["the page greets <|EMAIL|>", f"the page greets {EMAIL}"])
def test_a_check_that_does_not_hold_reports_its_result_and_requests_in_json(
    capsys: pytest.CaptureFixture[str],
    llm_server: LLMWireServer,
    wire: list[str],
    pages_url: str,
    statement: str,
) -> None:
    answer = {"holds": False, "reason": "the greeting names nobody", "evidence": [0]}
    llm_server.reply(openai_completion(tool_calls=[openai_tool_call("CheckAnswer", answer)]))
    code, out, err = run_cli(
        capsys, "check", pages_url + "hostile/echo.html?email=" + EMAIL, statement,
        "--vars-env", "SHOP_", "--json", *wire,
    )  # fmt: skip
    assert code == 1, err
    document = json.loads(out)
    assert document["error"]["type"] == "CheckError"
    result = document["result"]
    assert result["passed"] is False and result["reason"] == "the greeting names nobody"
    assert result["llm_calls"] == 1 and result["usage"]["prompt_tokens"] == 10
    assert not [form for form in secret_values.FORMS if form in out + err]


@pytest.mark.parametrize(
    ("command", "value"), [("act", EMAIL), ("extract", EMAIL.upper()), ("observe", EMAIL)]
)
def test_the_progress_title_redacts_a_value_written_into_the_instruction(
    capsys: pytest.CaptureFixture[str],
    llm_server: LLMWireServer,
    wire: list[str],
    pages_url: str,
    command: str,
    value: str,
    tmp_path: Path,
) -> None:
    # The value is also a variable (from the environment): written out in the instruction by
    # mistake, it is still redacted, as the agent and workflow titles already were. (Require
    # mode: the call ends before any request, with nothing cached.)
    code, out, err = run_cli(
        capsys, command, pages_url + "hello.html", f"sign up as {value}", "--vars-env", "SHOP_",
        "--cache-mode", "require", "--cache-dir", str(tmp_path), *wire,
    )  # fmt: skip
    assert code == 1
    assert err.startswith(f"{command}: sign up as <|EMAIL|> ...\n"), err
    assert not [form for form in secret_values.FORMS if form in out + err]
