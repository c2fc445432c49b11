"""The command line against the "llama.cpp" profile of the loopback server: the demo runs end
to end (act with variables, verify, extract, observe) and its usage line counts every request
the server received, refused ones included; --max-tokens and --temperature reach the wire.

Commands run in-process in a worker thread, as in tests/test_cli.py."""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor

import pytest

from stagehand_py.cli import main
from stagehand_py.cli._demo_model import DemoModel, read_membership
from stagehand_py.llm import Message
from stagehand_py.prompts.act import ACT_TOOLS, VerifyAnswer
from stagehand_py.prompts.observe import ObserveAnswer
from tests.llm_llamacpp_profile import PROSE, LlamaCpp, TinyModel, Turn
from tests.llm_wire_server import LLMWireServer

pytestmark = pytest.mark.slow  # starts processes or runs long: left out of the inner loop


class DemoOverLlamaCpp:
    """The demo's stand-in model, answering as the model behind llama.cpp: prose unless a
    grammar holds it to a schema, then JSON."""

    def __init__(self) -> None:
        self.demo = DemoModel()

    def __call__(self, turn: Turn) -> str:
        if turn.schema is None:
            return PROSE
        messages = [Message.model_validate(m) for m in turn.messages]
        if {"name", "arguments"} <= set(turn.schema.get("properties") or {}):
            call = self.demo.chat(messages, list(ACT_TOOLS))
            return json.dumps({"name": call.name, "arguments": call.arguments})
        title = turn.schema.get("title")
        if title in ("VerifyAnswer", "ObserveAnswer"):
            schema = VerifyAnswer if title == "VerifyAnswer" else ObserveAnswer
            answer = self.demo.structured(messages, schema)
            return answer.model_dump_json() if not isinstance(answer, dict) else json.dumps(answer)
        return json.dumps({"data": read_membership(turn.prompt), "complete": True})


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with ThreadPoolExecutor(max_workers=1) as pool:
        code = pool.submit(main, list(args)).result(timeout=240)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_demo_counts_every_request(
    capsys: pytest.CaptureFixture[str], llm_server: LLMWireServer
) -> None:
    llm_server.use_profile(LlamaCpp(DemoOverLlamaCpp()))

    code, out, err = run_cli(
        capsys, "demo", "--model", "openai/smollm2", "--base-url", llm_server.openai_base_url, "-q"
    )

    assert code == 0, err
    assert "Welcome to the club" in out or "member" in out.lower()
    calls = int(re.search(r"usage: (\d+) LLM call", out).group(1))
    # The refused first tries (an empty 500, prose, a 500 on json_schema) count too.
    assert calls == len(llm_server.requests)
    assert calls >= 10


def test_max_tokens_and_temperature_on_the_command_line(
    capsys: pytest.CaptureFixture[str], llm_server: LLMWireServer, pages_url: str
) -> None:
    model = TinyModel(observe_pattern=r">Subscribe<")
    llm_server.use_profile(LlamaCpp(model))

    code, out, err = run_cli(
        capsys,
        "observe",
        pages_url + "llm/newsletter.html",
        "the subscribe button",
        "--model",
        "openai/smollm2",
        "--base-url",
        llm_server.openai_base_url,
        "--max-tokens",
        "act=100,observe=333",
        "--temperature",
        "0.2",
        "-q",
    )

    assert code == 0, err
    assert "click() on xpath=" in out and "button" in out
    [body] = llm_server.bodies
    assert (body["max_tokens"], body["temperature"]) == (333, 0.2)
