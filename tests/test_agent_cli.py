"""``pystagehand agent`` over an OpenAI-compatible loopback server (the real openai client on
the wire), and ``stagehand_page.agent`` in a user's pytest suite with its failure report.

Commands run in-process in a worker thread, as in tests/test_cli.py; the plugin's inner suite
runs as a subprocess (Playwright's sync API allows one session per thread).
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from stagehand_py.cli import main
from tests import secret_values
from tests.agent_plan import find_element
from tests.llm_wire_server import (
    LLMWireServer,
    ReceivedRequest,
    openai_completion,
    openai_error,
    openai_tool_call,
    prompt_text,
)

pytestmark = pytest.mark.slow  # starts processes or runs long: left out of the inner loop


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with ThreadPoolExecutor(max_workers=1) as pool:
        code = pool.submit(main, list(args)).result(timeout=120)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def wire_model(monkeypatch: pytest.MonkeyPatch, llm_server: LLMWireServer) -> LLMWireServer:
    for name in ("STAGEHAND_PY_BASE_URL", "ANTHROPIC_API_KEY", "STAGEHAND_PY_CACHE_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-secret")
    monkeypatch.setenv("STAGEHAND_PY_MODEL", "openai/wire-model")
    monkeypatch.setenv("OPENAI_BASE_URL", llm_server.openai_base_url)
    return llm_server


def agent_answer(actions: Callable[[str], list[dict[str, Any]]], goal: str) -> Any:
    """A reply that reads the element numbers out of the prompt it answers."""

    def body(request: ReceivedRequest) -> dict[str, Any]:
        arguments = {
            "thinking": "t",
            "next_goal": goal,
            "actions": actions(prompt_text(request.body)),
        }
        return openai_completion(tool_calls=[openai_tool_call("AgentOutput", arguments)])

    return body


def test_agent_command_with_approval_progress_and_a_saved_run(
    capsys: pytest.CaptureFixture[str],
    wire_model: LLMWireServer,
    monkeypatch: pytest.MonkeyPatch,
    pages_url: str,
    tmp_path: Path,
) -> None:
    wire_model.reply(
        agent_answer(
            lambda prompt: [
                {
                    "action": "fill",
                    "index": find_element(prompt, 'name="email"'),
                    "text": "<|EMAIL|>",
                },
                {"action": "click", "index": find_element(prompt, "Place order")},
            ],
            "place the order",
        )
    )
    wire_model.reply(
        agent_answer(lambda _: [{"action": "done", "success": True, "text": "Ordered."}], "finish")
    )
    monkeypatch.setattr("sys.stdin", io.StringIO("a\na\n"))  # approve both steps
    saved = tmp_path / "run.json"

    code, out, err = run_cli(
        capsys,
        "agent",
        pages_url + "agent/checkout.html",
        "Order with <|EMAIL|>",
        "--var",
        f"EMAIL={secret_values.EMAIL}",
        "--approve",
        "--max-steps",
        "5",
        "--save",
        str(saved),
    )

    assert code == 0, err
    assert "agent('Order with <|EMAIL|>') -> ok (done) in 2 step(s)" in out
    assert f"saved: {saved}" in out and "usage: 2 LLM call(s)" in out
    # Live progress and the approval prompt on stderr, every proposed action shown first.
    assert "agent: Order with <|EMAIL|> ..." in err
    assert "agent step 1: place the order" in err
    assert "1. fill [" in err and "text='<|EMAIL|>'" in err and "2. click [" in err
    assert err.count("[a]pprove [r]etry [s]kip [c]ancel? ") == 2
    assert "agent step 1 action 2/2: click [" in err
    run = json.loads(saved.read_text("utf-8"))
    assert run["reason"] == "done" and run["steps"][0]["approval"] == "approved"
    assert [body["tools"][0]["function"]["name"] for body in wire_model.bodies] == [
        "AgentOutput",
        "AgentOutput",
    ]
    for text in (out, err, saved.read_text("utf-8"), json.dumps(wire_model.bodies)):
        assert secret_values.EMAIL not in text


def test_agent_command_that_does_not_succeed_exits_1_with_its_reason(
    capsys: pytest.CaptureFixture[str], wire_model: LLMWireServer, pages_url: str
) -> None:
    wire_model.reply(agent_answer(lambda _: [{"action": "scroll", "direction": "down"}], "look"))
    summary = {"thinking": "t", "text": "Saw the home page only."}
    wire_model.reply(openai_completion(tool_calls=[openai_tool_call("FinalSummary", summary)]))

    code, out, err = run_cli(
        capsys, "agent", pages_url + "agent/index.html", "Find the footer", "--max-steps", "1"
    )

    assert code == 1
    assert "-> FAILED (max_steps) in 2 step(s)" in out
    assert err.splitlines()[-1] == (
        "error: the agent ended with reason max_steps: Saw the home page only."
    )


def test_agent_command_json_is_one_object_on_stdout(
    capsys: pytest.CaptureFixture[str], wire_model: LLMWireServer, pages_url: str
) -> None:
    wire_model.reply(agent_answer(lambda _: [{"action": "scroll", "direction": "down"}], "look"))
    wire_model.reply(
        agent_answer(lambda _: [{"action": "done", "success": True, "text": "Seen."}], "finish")
    )
    code, out, err = run_cli(
        capsys, "agent", pages_url + "agent/index.html", "Look around", "--json", "-q"
    )
    assert code == 0, err
    document = json.loads(out)  # stdout holds the one JSON object and nothing else
    assert document["ok"] is True and document["command"] == "agent"
    assert document["result"]["reason"] == "done" and document["result"]["final_text"] == "Seen."
    assert "usage: 2 LLM call(s)" in err

    wire_model.reply(agent_answer(lambda _: [{"action": "scroll", "direction": "down"}], "look"))
    summary = {"thinking": "t", "text": "Gave up."}
    wire_model.reply(openai_completion(tool_calls=[openai_tool_call("FinalSummary", summary)]))
    code, out, err = run_cli(
        capsys, "agent", pages_url + "agent/index.html", "Look", "--json", "--max-steps", "1"
    )
    failed = json.loads(out)
    assert code == 1 and failed["ok"] is False
    assert "max_steps" in failed["error"]["message"]


@pytest.mark.parametrize("why", ["max_steps", "max_failures"])
def test_agent_command_json_failure_says_agent_failed_and_keeps_the_steps(
    capsys: pytest.CaptureFixture[str], wire_model: LLMWireServer, pages_url: str, why: str
) -> None:
    if why == "max_steps":
        wire_model.reply(agent_answer(lambda _: [{"action": "scroll"}], "look"))
        summary = {"thinking": "t", "text": "Gave up."}
        wire_model.reply(openai_completion(tool_calls=[openai_tool_call("FinalSummary", summary)]))
        limits = ["--max-steps", "1"]
    else:  # every request fails: three failed steps, then no summary either
        wire_model.reply(openai_error("the model is overloaded"), status=400, times=4)
        limits = []
    code, out, err = run_cli(
        capsys, "agent", pages_url + "agent/index.html", "Look", "--json", "-q", *limits
    )

    failed = json.loads(out)  # the one object, error and result together
    assert code == 1 and failed["ok"] is False, err
    assert failed["error"]["type"] == "AgentFailed" and failed["error"]["reason"] == why
    assert failed["result"]["reason"] == why
    steps = failed["result"]["steps"]
    assert len(steps) == (2 if why == "max_steps" else 4), steps
    requests = len(wire_model.requests)
    assert f"usage: {requests} LLM call(s)" in err


def test_agent_command_prints_the_requests_of_a_run_that_timed_out(
    capsys: pytest.CaptureFixture[str], wire_model: LLMWireServer, pages_url: str
) -> None:
    # The model answers only after the run's timeout: the request was sent, and counts.
    wire_model.reply(agent_answer(lambda _: [{"action": "scroll"}], "look"), delay=20)
    code, out, err = run_cli(
        capsys, "agent", pages_url + "agent/index.html", "Look", "--timeout", "8"
    )

    assert code == 1
    assert "-> FAILED (timeout) in 1 step(s)" in out
    assert len(wire_model.requests) == 1
    assert "usage: 1 LLM call(s)" in out, err


PLUGIN_SUITE = """
import os
from stagehand_py import take_snapshot


def _number_of(page, text):
    return next(e.index for e in take_snapshot(page).elements if e.text == text)


def test_agent_through_the_fixture(stagehand_page, stagehand_fake):
    stagehand_page.set_content("<button onclick=\\"document.title='paid'\\">Pay</button>")
    pay = {"action": "click", "index": _number_of(stagehand_page, "Pay")}
    stagehand_fake.queue(
        {"next_goal": "pay", "actions": [pay]}, {"actions": [{"action": "done", "text": "paid"}]}
    )
    result = stagehand_page.agent("pay")
    assert result.success and stagehand_page.title() == "paid"
    assert stagehand_fake.requests[0].options.kind == "agent"


def test_agent_failure_is_in_the_report(stagehand_page, stagehand_fake):
    stagehand_page.set_content("<p>Nothing to buy</p>")
    stagehand_fake.queue({"actions": [{"action": "done", "success": False, "text": "no button"}]})
    result = stagehand_page.agent("pay with <|PIN|>", variables={"pin": os.environ["INNER_SECRET"]})
    assert result.success
"""


def test_stagehand_page_agent_in_a_users_suite_and_its_failure_report(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INNER_SECRET", secret_values.PASSWORD)
    pytester.makepyfile(test_inner=PLUGIN_SUITE)

    result = pytester.runpytest_subprocess(
        "-p", "no:playwright-asyncio", "-p", "no:cacheprovider", "--stagehand-fake"
    )

    result.assert_outcomes(passed=1, failed=1)
    output = result.stdout.str()
    report = output.split("- stagehand -", 1)[-1]
    assert "agent('pay with <|PIN|>') -> FAILED" in report
    assert "step 1: done success=False -> ok" in report
    assert "failed: no button" in report
    assert secret_values.PASSWORD not in output


pytest_plugins = ["pytester"]


def test_agent_command_prints_the_runs_playwright_code(
    capsys: pytest.CaptureFixture[str], wire_model: LLMWireServer, pages_url: str
) -> None:
    fill = {"action": "fill", "text": "<|EMAIL|>"}
    wire_model.reply(
        agent_answer(
            lambda prompt: [{**fill, "index": find_element(prompt, 'name="email"')}], "type"
        )
    )
    wire_model.reply(
        agent_answer(lambda _: [{"action": "done", "success": True, "text": "Typed."}], "done")
    )
    url = pages_url + "agent/checkout.html"
    code, out, err = run_cli(
        capsys, "agent", url, "Type <|EMAIL|>", "--var", f"EMAIL={secret_values.EMAIL}",
        "--codegen", "--json", "-q",
    )  # fmt: skip
    assert code == 0, err
    generated = json.loads(out)["playwright_code"]
    assert generated.startswith("# agent: Type <|EMAIL|>\nimport os\n")
    assert f'page.goto("{url}")' in generated and '.fill(os.environ["EMAIL"])' in generated
    assert secret_values.EMAIL not in out + err


def _image_parts(body: dict[str, Any]) -> list[dict[str, Any]]:
    parts = [m.get("content") for m in body["messages"] if isinstance(m.get("content"), list)]
    return [p for content in parts for p in content if p.get("type") == "image_url"]


@pytest.mark.parametrize("vision", [True, False])
def test_agent_command_sends_a_screenshot_on_the_wire_only_with_vision(
    capsys: pytest.CaptureFixture[str], wire_model: LLMWireServer, pages_url: str, vision: bool
) -> None:
    finish = [{"action": "done", "success": True, "text": "Saw the shop."}]
    wire_model.reply(agent_answer(lambda _: finish, "finish"))
    args = ["agent", pages_url + "agent/index.html", "Look at the shop", "--max-steps", "2"]

    code, _, err = run_cli(capsys, *args, *(["--vision"] if vision else []))

    assert code == 0, err
    [body] = wire_model.bodies
    images = _image_parts(body)
    if not vision:
        assert images == []
        return
    # One screenshot, as an OpenAI image part of the newest user message (the agent's
    # structured request goes through the same provider code as chat()).
    [image] = images
    assert image["image_url"]["url"].startswith("data:image/png;base64,iVBOR")
    last = body["messages"][-1]
    assert last["role"] == "user" and image in last["content"]
