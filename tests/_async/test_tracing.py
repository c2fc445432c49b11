"""Acts read in Playwright traces: named groups per call and per action, scripts sent once.

A trace is a zip of JSON lines; a ``tracing.group`` is a "before" event of method
``tracingGroup`` whose ``title`` is the name, and calls made inside it carry its id as their
``parentId``.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand
from stagehand_py.testing import (
    AsyncFunctionLLM,
    AsyncScriptedLLM,
    extract_answer,
    observe_answer,
)
from tests import secret_values
from tests._async.plan_llm import AsyncPlanLLM, Step
from tests.agent_plan import AgentPlan, Do, done

SIGN_IN = [
    Step("fill", r'^<input\b[^>]*type="email"', ["<|EMAIL|>"]),
    Step("fill", r'^<input\b[^>]*type="password"', ["<|PASSWORD|>"]),
    Step("select_option", r"^<select\b", ["pro"]),
]
# The instruction itself holds a secret the user typed by mistake: it must be redacted too.
INSTRUCTION = f"sign in as {secret_values.EMAIL} with <|PASSWORD|> on the Pro plan"
VARIABLES = {"email": secret_values.EMAIL, "password": secret_values.PASSWORD}


def _events(trace: Path) -> list[dict[str, Any]]:
    with zipfile.ZipFile(trace) as archive:
        lines = archive.read("trace.trace").decode("utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _groups(events: list[dict[str, Any]]) -> dict[str, tuple[str, str | None]]:
    """callId -> (title, parentId) of every tracing group."""
    return {
        e["callId"]: (e.get("title", ""), e.get("parentId"))
        for e in events
        if e.get("type") == "before" and e.get("method") == "tracingGroup"
    }


async def test_act_and_each_action_are_named_groups_without_values(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    tracing = async_page.context.tracing
    page = AsyncStagehand(llm=AsyncPlanLLM(SIGN_IN)).wrap(async_page)
    await page.goto(pages_url + "ci/signin.html")
    await tracing.start()
    await page.act(INSTRUCTION, variables=VARIABLES)
    [found] = await page.observe("the sign-in button", llm=AsyncScriptedLLM(observe_answer(1)))
    await tracing.stop(path=tmp_path / "trace.zip")

    groups = _groups(_events(tmp_path / "trace.zip"))
    titles = [title for title, _ in groups.values()]
    for secret in secret_values.ALL:
        assert not any(secret in title for title in titles), titles
    [act_id] = [cid for cid, (title, _) in groups.items() if title.startswith("act: ")]
    assert groups[act_id][0] == "act: sign in as <|EMAIL|> with <|PASSWORD|> on the Pro plan"
    actions = [title for title, parent in groups.values() if parent == act_id]
    assert len(actions) == 3, titles
    assert actions[0].startswith("fill ") and actions[0].endswith(" with <|EMAIL|>")
    assert "<input" in actions[0] and 'type="email"' in actions[0]
    assert actions[1].endswith(" with <|PASSWORD|>")
    assert actions[2].startswith("select_option ") and actions[2].endswith(" with pro")
    assert "observe: the sign-in button" in titles
    assert found.selector


@pytest.mark.no_sync_twin
async def test_extract_and_agent_steps_are_named_groups_without_values(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    tracing = async_page.context.tracing
    page = AsyncStagehand(llm=AsyncPlanLLM([])).wrap(async_page)
    await page.goto(pages_url + "ci/signin.html")
    plan = AgentPlan(
        [
            Do("fill", r'^<input\b[^>]*type="email"', text="<|EMAIL|>"),
            Do("fill", r'^<input\b[^>]*type="password"', text="<|PASSWORD|>"),
        ],
        done("signed in"),
    )
    await tracing.start()
    plans = await page.extract(
        f"the membership plans offered to {secret_values.EMAIL}",
        schema={"type": "object", "properties": {"plans": {"type": "array"}}},
        variables=VARIABLES,
        llm=AsyncScriptedLLM(extract_answer({"plans": ["Basic", "Pro"]})),
    )
    run = await page.agent(
        f"sign in as {secret_values.EMAIL} with <|PASSWORD|>",
        variables=VARIABLES,
        llm=AsyncFunctionLLM(structured=plan),
    )
    await tracing.stop(path=tmp_path / "trace.zip")
    assert plans == {"plans": ["Basic", "Pro"]} and run.success, run.summary()
    assert await page.locator("#email").input_value() == secret_values.EMAIL

    groups = _groups(_events(tmp_path / "trace.zip"))
    titles = [title for title, _ in groups.values()]
    for secret in secret_values.FORMS:
        assert not any(secret in title for title in titles), titles
    assert "extract: the membership plans offered to <|EMAIL|>" in titles
    [agent_id] = [cid for cid, (title, _) in groups.items() if title.startswith("agent: ")]
    assert groups[agent_id][0] == "agent: sign in as <|EMAIL|> with <|PASSWORD|>"
    steps = {title: cid for cid, (title, parent) in groups.items() if parent == agent_id}
    assert list(steps) == ["agent step 1", "agent step 2"], titles
    actions = [title for title, parent in groups.values() if parent == steps["agent step 1"]]
    assert len(actions) == 2, titles
    assert actions[0].startswith("fill [") and 'type="email"' in actions[0]
    assert actions[0].endswith("text='<|EMAIL|>'") and actions[1].endswith("text='<|PASSWORD|>'")


@pytest.mark.no_sync_twin
async def test_page_scripts_are_sent_once_per_document(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    tracing = async_page.context.tracing
    page = AsyncStagehand(llm=AsyncPlanLLM(SIGN_IN)).wrap(async_page)
    await page.goto(pages_url + "ci/signin.html")
    await tracing.start()
    await page.act("fill the form", variables=VARIABLES)
    # A navigation gives a new document: the scripts are installed there again, once.
    await page.goto(pages_url + "ci/signin.html")
    await page.act("type the email", variables=VARIABLES, llm=AsyncPlanLLM(SIGN_IN[:1]))
    await tracing.stop(path=tmp_path / "trace.zip")

    evaluates = [
        e
        for e in _events(tmp_path / "trace.zip")
        if e.get("type") == "before" and e.get("method") in ("evaluateExpression",)
    ]
    big = [e for e in evaluates if len(json.dumps(e.get("params", {}))) > 20_000]
    # The serializer (the only script this large) went out once per document: twice.
    assert len(big) == 2, [len(json.dumps(e["params"])) for e in evaluates]
    assert len(evaluates) > 6  # the later calls happened, as small stubs


@pytest.mark.no_sync_twin
async def test_installed_scripts_hide_from_the_page(async_page: AsyncPage, pages_url: str) -> None:
    page = AsyncStagehand(llm=AsyncPlanLLM(SIGN_IN[:1])).wrap(async_page)
    await page.goto(pages_url + "ci/signin.html")
    await page.act("type the email", variables=VARIABLES)
    listed = await async_page.evaluate("Object.keys(window).filter(k => k.includes('stagehand'))")
    own = await async_page.evaluate(
        "Object.getOwnPropertyNames(window).filter(k => k.startsWith('__stagehand_py_'))"
    )
    assert listed == []
    assert any("_serializer_" in name for name in own) and any("_settle_" in name for name in own)


@pytest.mark.no_sync_twin
async def test_groups_are_harmless_without_tracing_and_when_the_page_closes(
    async_page: AsyncPage, pages_url: str
) -> None:
    from stagehand_py._async.browser.tracing import AsyncTraceGroup

    page = AsyncStagehand(llm=AsyncPlanLLM(SIGN_IN[:1])).wrap(async_page)
    await page.goto(pages_url + "ci/signin.html")
    result = await page.act("type the email", variables=VARIABLES)  # no trace started
    assert result.success
    other = await async_page.context.new_page()
    async with AsyncTraceGroup(other, "closing inside", str):
        await other.close()


@pytest.mark.no_sync_twin
async def test_groups_are_opened_only_while_a_trace_is_recorded(
    async_page: AsyncPage, pages_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tracing = async_page.context.tracing
    opened: list[str] = []
    original = type(tracing).group

    async def counted(self: Any, name: str, **kwargs: Any) -> Any:
        opened.append(name)
        return await original(self, name, **kwargs)

    monkeypatch.setattr(type(tracing), "group", counted)
    page = AsyncStagehand(llm=AsyncPlanLLM([])).wrap(async_page)

    async def type_the_email() -> None:
        await page.goto(pages_url + "ci/signin.html")
        result = await page.act(
            "type the email", variables=VARIABLES, llm=AsyncPlanLLM(SIGN_IN[:1])
        )
        assert result.success, result.message

    await type_the_email()  # no trace yet: no round trips spent on names nobody records
    assert opened == []
    for chunk in ("first", "second"):  # recording, stopped, and recording again
        await tracing.start()
        await type_the_email()
        await tracing.stop(path=tmp_path / f"{chunk}.zip")
        titles = [title for title, _ in _groups(_events(tmp_path / f"{chunk}.zip")).values()]
        assert "act: type the email" in titles and titles == opened, titles
        opened.clear()
        await type_the_email()
        assert opened == []
