"""``pystagehand mcp`` over real stdio with the official client: the tools, an act whose answer
carries its Playwright code, extract by JSON Schema, snapshots a section at a time, a secret
fill with no value in any answer, a timeout and bad arguments as error results."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from stagehand_py.cli._app import build_parser
from stagehand_py.testing import check_answer, expectation
from tests import secret_values
from tests.llm_wire_server import (
    LLMWireServer,
    ReceivedRequest,
    openai_completion,
    openai_tool_call,
    prompt_text,
)

TOOLS = {"navigate", "act", "observe", "check", "extract", "snapshot", "screenshot", "agent"}
_LINE = re.compile(r"^(\d+):(.*)$", re.MULTILINE)


def _element(request: ReceivedRequest, pattern: str) -> int:
    for match in _LINE.finditer(prompt_text(request.body)):
        if re.search(pattern, match.group(2)):
            return int(match.group(1))
    raise AssertionError(f"no element line matches {pattern!r}")


def _fill(pattern: str, value: str) -> Any:
    def body(request: ReceivedRequest) -> dict[str, Any]:
        step = {"method": "fill", "element": _element(request, pattern), "args": [value],
                "step": "type it", "why": "asked", "completed": True}  # fmt: skip
        return openai_completion(tool_calls=[openai_tool_call("doAction", step)])

    return body


def _heading_read(request: ReceivedRequest) -> dict[str, Any]:
    # With a cache and a schema, extract() asks where each value was read: it compiles.
    sources = {"/heading": [_element(request, r"^<h1")]}
    data = {"data": {"heading": "Sign in"}, "sources": sources, "complete": True}
    return openai_completion(tool_calls=[openai_tool_call("ExtractAnswer", data)])


def _heading_check(request: ReceivedRequest) -> dict[str, Any]:
    heading = _element(request, r"^<h1")
    said = check_answer(True, expectation("to_have_text", heading, "Sign in"), reason="it does")
    answer = said.model_dump(mode="json")
    return openai_completion(tool_calls=[openai_tool_call("CheckAnswer", answer)])


@asynccontextmanager
async def serving(
    llm_server: LLMWireServer, pages_url: str, tmp_path: Path, *extra: str
) -> AsyncIterator[Client]:
    """The server as a coding agent starts it, and a client talking to it over stdio. (Not a
    fixture: the stdio client must close in the task that opened it.)"""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STAGEHAND_PY_", "OPENAI"))}
    env.update(
        OPENAI_API_KEY="sk-test-not-secret",
        SHOP_EMAIL=secret_values.EMAIL,
        SHOP_PASSWORD=secret_values.PASSWORD,
    )
    origin = pages_url.rstrip("/")
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "stagehand_py",
            "mcp",
            "--model",
            "openai/wire-model",
            "--base-url",
            llm_server.openai_base_url,
            "--view",
            "dom",
            "--vars-env",
            "SHOP_",
            "--allowed-origins",
            origin,
            "--cache-dir",
            str(tmp_path / "cache"),
            "--max-chars",
            "600",
            "--timeout",
            "30",
            *extra,
        ],
        env=env,
        cwd=str(tmp_path),
    )
    async with Client(params, read_timeout_seconds=60) as client:
        yield client


def _answer(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    answer: dict[str, Any] = result.structured_content
    return answer


def _text(result: Any) -> str:
    return json.dumps(result.model_dump(mode="json"))


async def test_tools_are_listed_with_their_arguments(
    llm_server: LLMWireServer, pages_url: str, tmp_path: Path
) -> None:
    async with serving(llm_server, pages_url, tmp_path) as mcp:
        listed = await mcp.list_tools()
    assert {tool.name for tool in listed.tools} == TOOLS
    extract = next(tool for tool in listed.tools if tool.name == "extract")
    assert {"instruction", "schema", "timeout_s"} <= set(extract.input_schema["properties"])


async def test_act_with_a_secret_then_extract_and_snapshot(
    llm_server: LLMWireServer, pages_url: str, tmp_path: Path
) -> None:
    async with serving(llm_server, pages_url, tmp_path) as mcp:
        await _act_extract_snapshot(mcp, llm_server, pages_url)


async def _act_extract_snapshot(mcp: Client, llm_server: LLMWireServer, pages_url: str) -> None:
    opened = _answer(await mcp.call_tool("navigate", {"url": pages_url + "ci/signin.html"}))
    assert opened["title"].startswith("Sign in")

    llm_server.reply(_fill(r'type="email"', "<|EMAIL|>"))
    verdict = {"completed": True, "reason": "the e-mail is typed"}
    llm_server.reply(openai_completion(tool_calls=[openai_tool_call("VerifyAnswer", verdict)]))
    acted = await mcp.call_tool("act", {"instruction": "type <|EMAIL|> into the e-mail box"})
    answer = _answer(acted)
    assert answer["success"] and answer["cache"] == "miss", answer
    assert 'os.environ["EMAIL"]' in answer["playwright_code"]

    llm_server.reply(_heading_read)
    schema = {"type": "object", "properties": {"heading": {"type": "string"}}}
    read = await mcp.call_tool("extract", {"instruction": "the heading", "schema": schema})
    assert _answer(read)["data"] == {"heading": "Sign in"}

    llm_server.reply(_heading_check)
    checked = await mcp.call_tool("check", {"statement": "the heading says Sign in"})
    verdict_of = _answer(checked)
    assert verdict_of["holds"] and verdict_of["compiled"], verdict_of
    assert "to_have_text" in verdict_of["playwright_code"]

    shown = _answer(await mcp.call_tool("snapshot", {"section": 0}))
    assert shown["sections"] >= 1 and len(shown["text"]) <= 600
    assert 'type="email"' in shown["text"] or shown["cut"]
    for result in (opened, acted, read, checked, shown):
        for form in secret_values.FORMS:
            assert form not in json.dumps(result if isinstance(result, dict) else _text(result))
    for form in secret_values.FORMS:
        assert form not in json.dumps(llm_server.bodies)


async def test_a_timeout_and_bad_arguments_are_error_results(
    llm_server: LLMWireServer, pages_url: str, tmp_path: Path
) -> None:
    async with serving(llm_server, pages_url, tmp_path) as mcp:
        await _failures(mcp, llm_server, pages_url)


async def _failures(mcp: Client, llm_server: LLMWireServer, pages_url: str) -> None:
    await mcp.call_tool("navigate", {"url": pages_url + "hello.html"})
    llm_server.reply(_fill("input", "x"), delay=10)
    late = await mcp.call_tool("act", {"instruction": "type x", "timeout_s": 1})
    assert late.is_error and "time" in _text(late)

    elsewhere = await mcp.call_tool("navigate", {"url": "https://elsewhere.example/"})
    assert elsewhere.is_error and "--allowed-origins" in _text(elsewhere)
    missing = await mcp.call_tool("snapshot", {"section": 99})
    assert missing.is_error and "sections 0 to" in _text(missing)
    wrong = await mcp.call_tool("snapshot", {"view": "pixels"})
    assert wrong.is_error and "'dom' or 'aria'" in _text(wrong)
    typed = await mcp.call_tool("act", {"instruction": 42})
    assert typed.is_error
    # The server is still there after every failure.
    assert _answer(await mcp.call_tool("navigate", {"url": pages_url + "hello.html"}))


def test_every_option_of_the_command_is_documented() -> None:
    commands = next(a for a in build_parser()._actions if a.dest == "command")
    mcp = commands.choices["mcp"]  # type: ignore[index]
    options = [a for a in mcp._actions if a.option_strings and a.dest != "help"]
    assert {"--cdp-url", "--allowed-origins", "--max-cost", "--cache-mode"} <= {
        flag for a in options for flag in a.option_strings
    }
    assert [a.option_strings for a in options if not (a.help or "").strip()] == []


async def test_a_spending_cap_refuses_the_request_before_it_is_sent(
    llm_server: LLMWireServer, pages_url: str, tmp_path: Path
) -> None:
    cap = ("--max-total-tokens", "200", "--max-cost", "0.5", "--prices", "0.4,1.6")
    async with serving(llm_server, pages_url, tmp_path, *cap) as mcp:
        await mcp.call_tool("navigate", {"url": pages_url + "ci/signin.html"})
        refused = await mcp.call_tool("act", {"instruction": "type <|EMAIL|> into Email"})
    assert refused.is_error and "BudgetExceededError" in _text(refused)
    assert "max_total_tokens" in _text(refused)
    assert llm_server.requests == []
