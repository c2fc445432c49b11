"""Fixtures of the checkout suite: the shop served locally, and a model for the SDK.

The stagehand_py plugin gives ``stagehand`` and ``stagehand_page`` (pytest-playwright's
``page`` with act/extract/observe) and supplies a Chromium when Playwright's own is missing.
Here we override its ``stagehand_llm`` fixture: with no model configured, a FunctionLLM plays
the model's part from each instruction's plan, so the suite runs offline.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from stagehand_py.llm import Message, ToolCall, ToolSpec
from stagehand_py.testing import FunctionLLM, do_action, skip_section

PAGES = Path(__file__).resolve().parent.parent / "pages"
LINE = re.compile(r"^(\d+):(.*)$", re.MULTILINE)

# instruction -> the actions a model would take: (method, [anchor text, ] element pattern, args)
PLANS: dict[str, list[tuple[str, str, list[str]]]] = {
    "add the blue mug to the cart": [("click", r"Blue mug.*?^\d+:<button\b[^>]*>Add to cart", [])],
    "fill the shipping form with <|NAME|>, <|EMAIL|> and card <|CARD|>, express delivery": [
        ("fill", r"^\d+:<input\b[^>]*name=\"name\"", ["<|NAME|>"]),
        ("fill", r"^\d+:<input\b[^>]*email", ["<|EMAIL|>"]),
        ("fill", r"^\d+:<input\b[^>]*card", ["<|CARD|>"]),
        ("click", r"^\d+:<(input|label)\b[^>]*(express|Express)", []),
    ],
}
OBSERVE = {"add to cart": r"^<button\b[^>]*>Add to cart"}


def _number(section: str, pattern: str) -> int | None:
    """The element number of the last line of the first match (anchors may come before it)."""
    match = re.search(pattern, section, re.MULTILINE | re.DOTALL)
    if match is None:
        return None
    last_line = section[: match.end()].rsplit("\n", 1)[-1]
    return int(last_line.split(":", 1)[0])


def plan_chat(messages: list[Message], tools: list[ToolSpec]) -> ToolCall:
    prompt = next(m.content for m in reversed(messages) if m.role == "user")
    goal = re.search(r"^Goal: (.*)$", prompt, re.MULTILINE)
    plan = PLANS.get(goal.group(1) if goal else "", [])
    done = len(re.findall(r"^\d+\. ", prompt.split("Variables available")[0], re.MULTILINE))
    if done >= len(plan):
        return skip_section("the plan has nothing more")
    method, pattern, args = plan[done]
    element = _number(prompt, pattern)
    if element is None:
        return skip_section("not in this section")
    return do_action(method, element, args, completed=done + 1 == len(plan))


def plan_structured(messages: list[Message], schema: type[BaseModel]) -> dict[str, Any]:
    prompt = messages[-1].content
    if schema.__name__ == "VerifyAnswer":
        return {"completed": True, "reason": "planned steps done"}
    instruction = prompt.split("\n", 1)[0].lower()
    for words, pattern in OBSERVE.items():
        if words in instruction:
            found = [
                int(m.group(1)) for m in LINE.finditer(prompt) if re.search(pattern, m.group(2))
            ]
            return {"elements": [{"element": n, "description": words} for n in found]}
    return {"elements": []}


@pytest.fixture(scope="session")
def stagehand_llm(pytestconfig: pytest.Config) -> FunctionLLM | None:
    """The configured model (STAGEHAND_PY_MODEL, or --stagehand-model), else the offline plan."""
    if os.environ.get("STAGEHAND_PY_MODEL") or pytestconfig.getoption("--stagehand-model"):
        return None
    return FunctionLLM(chat=plan_chat, structured=plan_structured, model="checkout-plan")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="session")
def shop_url() -> Iterator[str]:
    """examples/pages served on 127.0.0.1 (trailing slash)."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(PAGES))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()
