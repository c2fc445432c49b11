"""The command line's output carries no form of a variable (issue #13, item 2).

``pystagehand act`` on a page that puts the typed email in its URL (a GET form, percent-
encoded) and echoes it in its text, a button and an attribute; the model is an OpenAI-compatible
loopback server, spoken to by the real ``openai`` client. Neither what the command prints
(text or ``--json``, with ``--codegen``), nor what it logs, nor what went over the wire holds
any derived form of the value.
"""

from __future__ import annotations

import json
import logging
from concurrent.futures import ThreadPoolExecutor

import pytest

from stagehand_py.cli import main
from tests import secret_values
from tests.llm_wire_server import LLMWireServer, openai_completion, openai_tool_call

pytestmark = pytest.mark.slow  # starts processes or runs long: left out of the inner loop

EMAIL = secret_values.EMAIL


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    # In a worker thread: this suite's own sync Playwright session is live in the main one.
    with ThreadPoolExecutor(max_workers=1) as pool:
        code = pool.submit(main, list(args)).result(timeout=120)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _action(method: str, element: int, args: list[str], completed: bool) -> dict[str, object]:
    arguments = {"method": method, "element": element, "args": args, "step": method}
    arguments.update(why="asked", completed=completed)
    return openai_completion(tool_calls=[openai_tool_call("doAction", arguments)])


def _subscribe_and_continue(server: LLMWireServer) -> None:
    """Fill the email (element 3), subscribe (4); on the echoing page, continue (3)."""
    server.reply(_action("fill", 3, ["<|EMAIL|>"], completed=False))
    server.reply(_action("click", 4, [], completed=False))
    server.reply(_action("click", 3, [], completed=True))
    verdict = {"completed": True, "reason": "welcome shown"}
    server.reply(openai_completion(tool_calls=[openai_tool_call("VerifyAnswer", verdict)]))


def _leaks(*texts: str) -> list[str]:
    return [form for form in secret_values.FORMS for text in texts if form in text]


@pytest.fixture
def wire_model(monkeypatch: pytest.MonkeyPatch, llm_server: LLMWireServer) -> list[str]:
    for name in ("STAGEHAND_PY_MODEL", "STAGEHAND_PY_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("STAGEHAND_PY_CACHE_DIR", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-secret")
    _subscribe_and_continue(llm_server)
    return ["--model", "openai/wire-model", "--base-url", llm_server.openai_base_url]


@pytest.mark.parametrize("output", ["text", "json"])
def test_act_on_an_echoing_page_prints_no_form_of_the_value(
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    llm_server: LLMWireServer,
    wire_model: list[str],
    pages_url: str,
    output: str,
) -> None:
    extra = ["--json", "--codegen"] if output == "json" else []
    with caplog.at_level(logging.DEBUG):
        code, out, err = _run(
            capsys, "act", pages_url + "hostile/echo.html", "subscribe with <|EMAIL|>, continue",
            "--var", f"email={EMAIL}", *wire_model, *extra,
        )  # fmt: skip

    assert code == 0, err
    sent = json.dumps(llm_server.bodies)
    # The value was really used: the page's URL and text carried it to the third request.
    assert "email=<|EMAIL|>" in sent and "Continue as <|EMAIL|>" in sent
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert not _leaks(out, err, sent, logged)
    if output == "json":
        result = json.loads(out)["result"]
        assert [a["method"] for a in result["actions"]] == ["fill", "click", "click"]
        # The continue button is still found by a selector that does not quote the value.
        assert result["actions"][2]["selectors"]
        assert "os.environ" in json.loads(out)["playwright_code"]
    else:
        assert "-> ok" in out and "fill('<|EMAIL|>')" in out
