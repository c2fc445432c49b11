"""OpenTelemetry spans: one per call, per model request and per page action, nested as they
run, with what they cost and how they ended, and no value given as a variable anywhere."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand, PriceTable, StagehandTimeoutError
from stagehand_py._spans import page_origin
from stagehand_py.llm import Message
from stagehand_py.testing import AsyncScriptedLLM, extract_answer
from tests import secret_values
from tests._async.plan_llm import AsyncPlanLLM, Step
from tests.otel_spans import children, every_text, span_exporter

SIGN_IN = [
    Step("fill", r'^<input\b[^>]*type="email"', ["<|EMAIL|>"]),
    Step("fill", r'^<input\b[^>]*type="password"', ["<|PASSWORD|>"]),
]
# The same steps as the aria view shows the elements.
ARIA_SIGN_IN = [
    Step("fill", r'^<textbox name="Email', ["<|EMAIL|>"]),
    Step("fill", r'^<textbox name="Password', ["<|PASSWORD|>"]),
]
VARIABLES = {"email": secret_values.EMAIL, "password": secret_values.PASSWORD}
PRICES = PriceTable.of({"plan": {"input": 1.0, "output": 2.0}})


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = span_exporter()
    yield exporter
    exporter.clear()


def _named(finished: tuple[ReadableSpan, ...], name: str) -> list[ReadableSpan]:
    return [s for s in finished if s.name == name]


@pytest.mark.parametrize("view", ["dom", "aria"])
@pytest.mark.no_sync_twin
async def test_an_act_is_one_span_over_its_model_requests_and_actions(
    async_page: AsyncPage, pages_url: str, spans: InMemorySpanExporter, view: str
) -> None:
    plan = AsyncPlanLLM(SIGN_IN if view == "dom" else ARIA_SIGN_IN)
    stagehand = AsyncStagehand(llm=plan, snapshot=view, prices=PRICES)
    page = stagehand.wrap(async_page)
    await page.goto(pages_url + "ci/signin.html")
    result = await page.act("sign in as <|EMAIL|> with <|PASSWORD|>", variables=VARIABLES)
    assert result.success, result

    finished = spans.get_finished_spans()
    [act] = _named(finished, "stagehand.act")
    assert act.parent is None and act.status.status_code is not StatusCode.ERROR
    said = dict(act.attributes or {})
    assert said["stagehand.view"] == view and said["gen_ai.request.model"] == "plan"
    assert said["url.origin"] == page_origin(pages_url) and said["url.origin"].count("/") == 2
    assert said["stagehand.llm_calls"] == result.llm_calls >= 1
    assert said["gen_ai.usage.input_tokens"] == result.usage.prompt_tokens > 0
    assert said["stagehand.cost_usd"] == pytest.approx(result.usage.prompt_tokens / 1e6)
    inside = children(finished, act)
    requests = [s for s in inside if s.name == "stagehand.model_request"]
    actions = [s for s in inside if s.name == "stagehand.action"]
    assert len(requests) >= 1 and len(actions) == 2, [s.name for s in inside]
    assert sum(dict(r.attributes or {})["gen_ai.usage.input_tokens"] for r in requests) == (
        result.usage.prompt_tokens
    )
    assert str(dict(actions[0].attributes or {})["stagehand.step"]).endswith("with <|EMAIL|>")
    assert secret_values.EMAIL not in every_text(finished)


@pytest.mark.no_sync_twin
async def test_a_cached_replay_has_no_model_request_spans(
    async_page: AsyncPage, pages_url: str, spans: InMemorySpanExporter, tmp_path: Path
) -> None:
    for llm in (AsyncPlanLLM(SIGN_IN), AsyncScriptedLLM()):
        page = AsyncStagehand(llm=llm, cache_dir=tmp_path).wrap(async_page)
        await page.goto(pages_url + "ci/signin.html")
        spans.clear()
        result = await page.act("sign in as <|EMAIL|> with <|PASSWORD|>", variables=VARIABLES)
        assert result.success, result

    finished = spans.get_finished_spans()
    [act] = _named(finished, "stagehand.act")
    assert dict(act.attributes or {})["stagehand.cache"] == "hit"
    assert dict(act.attributes or {})["stagehand.llm_calls"] == 0
    assert not _named(finished, "stagehand.model_request")
    assert [s.name for s in children(finished, act)] == ["stagehand.action"] * 2


@pytest.mark.no_sync_twin
async def test_an_extract_span_holds_its_request(
    async_page: AsyncPage, pages_url: str, spans: InMemorySpanExporter
) -> None:
    page = AsyncStagehand(llm=AsyncScriptedLLM(extract_answer({"plans": ["Basic"]}))).wrap(
        async_page
    )
    await page.goto(pages_url + "ci/signin.html")
    instruction = f"the plans offered to {secret_values.EMAIL}"
    schema = {"type": "object", "properties": {"plans": {"type": "array"}}}
    await page.extract(instruction, schema=schema, variables=VARIABLES)

    finished = spans.get_finished_spans()
    [extract] = _named(finished, "stagehand.extract")
    assert [s.name for s in children(finished, extract)] == ["stagehand.model_request"]
    step = str(dict(extract.attributes or {})["stagehand.step"])
    assert step == "extract: the plans offered to <|EMAIL|>"
    for form in secret_values.FORMS:
        assert form not in every_text(finished)


@pytest.mark.parametrize("password", [secret_values.PASSWORD, secret_values.PASSWORD.upper()])
@pytest.mark.no_sync_twin
async def test_a_failed_call_is_an_error_span_without_values(
    async_page: AsyncPage, pages_url: str, spans: InMemorySpanExporter, password: str
) -> None:
    # The model answers too late: the call times out and its span says so; the instruction
    # held the password (in some case) by mistake, and no span shows it.
    page = AsyncStagehand(llm=_HungLLM()).wrap(async_page)
    await page.goto(pages_url + "ci/signin.html")
    with pytest.raises(StagehandTimeoutError):
        await page.act(f"type {password} into the password box", variables=VARIABLES, timeout_s=1)

    finished = spans.get_finished_spans()
    [act] = _named(finished, "stagehand.act")
    assert act.status.status_code is StatusCode.ERROR
    assert dict(act.attributes or {})["stagehand.error.code"] == "TIMEOUT"
    assert [e.name for e in act.events] == ["exception"]
    assert dict(act.attributes or {})["stagehand.llm_calls"] == 1  # the abandoned request
    # The request's own span ends with the request: at once when the call cancels it; in the
    # sync API, when the thread that still waits for the model gives up.
    for request in _named(finished, "stagehand.model_request"):
        assert request.parent is not None and request.parent.span_id == act.context.span_id
    for form in secret_values.FORMS:
        assert form not in every_text(finished)


class _HungLLM:
    """A model whose every request hangs (longer than any test waits)."""

    model = "hung"

    async def chat(self, messages: Sequence[Message], tools: Any, **options: Any) -> Any:
        await asyncio.sleep(20)
        raise AssertionError("a hung request was waited for")

    async def structured(self, messages: Sequence[Message], schema: Any, **options: Any) -> Any:
        await asyncio.sleep(20)
        raise AssertionError("a hung request was waited for")
