"""Pure parts of issue 15's phase 2: trace names, user instructions, script compaction, the
fakes' request context, and agent-run code generation (no browser)."""

from __future__ import annotations

from typing import Any

import pytest

from stagehand_py import Element, ElementNotFoundError, Snapshot
from stagehand_py._fake_support import answer_with_function
from stagehand_py._js_compact import compact_js
from stagehand_py._trace_names import action_group_name, call_group_name, step_group_name
from stagehand_py._variables import Variables
from stagehand_py.agent._history import ActionOutcome
from stagehand_py.codegen_agent import agent_playwright_code
from stagehand_py.llm import Message
from stagehand_py.prompts.user_instructions import (
    USER_INSTRUCTIONS_HEADER,
    combine_instructions,
    with_user_instructions,
)
from stagehand_py.testing import RequestContext
from tests import secret_values


def test_group_names() -> None:
    assert call_group_name("act", "fill the form") == "act: fill the form"
    assert call_group_name("observe", "  ") == "observe: (the page's main controls)"
    assert call_group_name("extract", "") == "extract: (the page's text)"
    name = action_group_name("fill", "5:<input name=email></input>", ["<|EMAIL|>"])
    assert name == "fill 5:<input name=email></input> with <|EMAIL|>"
    assert action_group_name("click", "3:<button>Go</button>") == "click 3:<button>Go</button>"
    assert step_group_name(2, "") == "agent step 2"


def test_group_names_are_redacted_one_line_and_short() -> None:
    from stagehand_py._async.browser.tracing import MAX_GROUP_CHARS, group_name

    values = Variables({"email": secret_values.EMAIL})
    name = group_name(f"act: type {secret_values.EMAIL}\n and then " + "x" * 400, values.redact)
    assert secret_values.EMAIL not in name and "<|EMAIL|>" in name
    assert "\n" not in name and len(name) == MAX_GROUP_CHARS


def test_user_instructions_join_the_system_prompt() -> None:
    messages = [Message(role="system", content="RULES"), Message(role="user", content="go")]
    out = with_user_instructions(messages, "Never click Delete.")
    assert out[0].content.startswith("RULES\n\n" + USER_INSTRUCTIONS_HEADER)
    assert out[0].content.endswith("User instructions:\nNever click Delete.")
    assert out[1] == messages[1] and messages[0].content == "RULES"  # not mutated
    no_system = with_user_instructions([Message(role="user", content="go")], "Be brief.")
    assert no_system[0].role == "system" and "Be brief." in no_system[0].content
    assert with_user_instructions(messages, "  ") == messages
    assert combine_instructions("a", None, " ", "b") == "a\nb"


def test_compact_js_drops_comments_and_indentation_only() -> None:
    source = "// head\n(x) => {\n  // why\n  const url = 'http://a//b';\n  return url;\n}\n"
    assert compact_js(source) == "(x) => {\nconst url = 'http://a//b';\nreturn url;\n}"
    spanning = "(x) => `a\n  // kept: inside a template\n`"
    assert compact_js(spanning) == spanning


def _snapshot() -> Snapshot:
    elements = [
        Element(index=0, tag="button", text="Cancel", selectors=["xpath=//button[1]"]),
        Element(index=1, tag="button", text="Save draft", selectors=["xpath=//button[2]"]),
        Element(index=2, tag="button", text="Save", selectors=["xpath=//button[3]"]),
        Element(index=3, tag="select", options=["Basic", "Pro"], selectors=["xpath=//select"]),
    ]
    return Snapshot(
        url="http://x.test/",
        title="t",
        viewport={"width": 800, "height": 600},
        scroll_y=0,
        elements=elements,
        chunks=[],
    )


def test_request_context_finds_elements_by_text() -> None:
    context = RequestContext("act", "save it", _snapshot(), (0,), frozenset({0, 1, 2, 3}))
    assert context.find("save") == 1  # contains, first shown
    assert context.find("Save", exact=True) == 2
    assert context.find("Pro", tag="select") == 3
    narrowed = RequestContext("act", snapshot=_snapshot(), shown=frozenset({0}))
    with pytest.raises(ElementNotFoundError, match=r"'Save'.*Shown: 0:button 'Cancel'"):
        narrowed.find("Save")
    assert RequestContext("extract").elements() == []


def test_function_llm_functions_take_two_or_three_arguments() -> None:
    context = RequestContext("act")
    seen: list[Any] = []

    def old(messages: list[Message], tools: object) -> str:
        return "old"

    def new(messages: list[Message], tools: object, ctx: RequestContext) -> str:
        seen.append(ctx)
        return "new"

    assert answer_with_function(old, [], [], context) == "old"
    assert answer_with_function(new, [], [], context) == "new" and seen == [context]
    assert answer_with_function(lambda *a: len(a), [], [], context) == 3


def _outcome(action: str, status: str = "ok", **fields: Any) -> ActionOutcome:
    return ActionOutcome(action=action, status=status, **fields)  # type: ignore[arg-type]


def test_agent_code_covers_each_action_kind_and_never_values() -> None:
    outcomes = [
        _outcome("navigate", params={"url": "http://shop.test/"}),
        _outcome(
            "fill",
            params={"index": 4, "text": "<|EMAIL|>"},
            selector="xpath=/html/body/input[1]",
            selectors=["xpath=/html/body/input[1]", "xpath=//*[@id='email']"],
        ),
        _outcome("click", status="error", params={"index": 9}, selector="xpath=//*[@id='bad']"),
        _outcome("press", params={"index": 4, "key": "Enter"}, selector="xpath=//*[@id='email']"),
        _outcome("scroll", params={"direction": "down", "pages": 2.0}),
        _outcome("wait", params={"seconds": 0.5}),
        _outcome("switch_tab", params={"tab": 1}),
        _outcome("extract", params={"instruction": "the price"}),
        _outcome("done", params={"success": True, "text": "ok"}),
    ]
    code = agent_playwright_code(outcomes, style="async", title="agent: buy")
    body = code.split("-> None:\n", 1)[1]
    assert code.startswith("# agent: buy\nimport os\n")
    assert body.splitlines() == [
        '    await page.goto("http://shop.test/")',
        '    await page.locator("#email").fill(os.environ["EMAIL"])',
        '    await page.locator("#email").press("Enter")',
        "    await page.mouse.wheel(0, 1200)",
        "    await page.wait_for_timeout(500)",
        "    page = page.context.pages[1]",
        "    await page.bring_to_front()",
        '    # extract "the price": read the page here',
    ]
    params = agent_playwright_code(outcomes[:2], variables="params", function_name="buy")
    assert "def buy(page: Page, email: str) -> None:" in params and "os.environ" not in params
