"""A model object of the user's own: one written to the model contract as first published
(no ``options=`` keyword) is adapted and works in act, observe and extract, as the Stagehand's
model and as a call's ``llm=``; one that cannot be called the contract's way is refused at
construction with a ConfigurationError naming what is wrong; a wrong answer type is a
ProviderError naming the method."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal

import pytest
from playwright.async_api import Page as AsyncPage
from pydantic import BaseModel

from stagehand_py import AsyncStagehand, ConfigurationError, ProviderError
from stagehand_py.llm import ChatResponse, Message, StructuredResponse, ToolCall, ToolSpec
from stagehand_py.llm._usage import Usage

PAGE = "<h1>Report 2026</h1><button onclick=\"this.textContent='Clicked'\">Hi</button>"


def _hi_number(messages: Sequence[Message]) -> int:
    found = re.search(r"^(\d+):<button[^>]*>Hi", messages[-1].content, re.MULTILINE)
    assert found, messages[-1].content
    return int(found.group(1))


def _answer(messages: Sequence[Message], schema: type[Any]) -> Any:
    """What the model would answer for each structured request a verb sends."""
    if schema.__name__ == "VerifyAnswer":
        return schema(completed=True, reason="the button says Clicked")
    if schema.__name__ == "ObserveAnswer":
        return schema.model_validate(
            {"elements": [{"element": _hi_number(messages), "description": "the Hi button"}]}
        )
    return schema.model_validate({"data": {"title": "Report 2026"}, "complete": True})


class FirstContractLLM:
    """The contract as first published: keyword-only tool_choice and max_retries, no options."""

    model = "first-contract"

    def __init__(self) -> None:
        self.calls = 0

    async def chat(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        tool_choice: Literal["auto", "required"] = "required",
    ) -> ChatResponse:
        self.calls += 1
        click = {"method": "click", "element": _hi_number(messages), "args": []}
        arguments = {**click, "step": "click Hi", "why": "asked", "completed": True}
        call = ToolCall(id=f"c{self.calls}", name="doAction", arguments=arguments)
        return ChatResponse(tool_calls=[call], usage=Usage(requests=1))

    async def structured(
        self, messages: Sequence[Message], schema: type[Any], *, max_retries: int = 2
    ) -> StructuredResponse[Any]:
        self.calls += 1
        return StructuredResponse(value=_answer(messages, schema))


class BareLLM:
    """Two positional parameters and nothing else (no keywords at all, no model name)."""

    def __init__(self) -> None:
        self.inner = FirstContractLLM()

    async def chat(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ChatResponse:
        return await self.inner.chat(messages, tools)

    async def structured(
        self, messages: Sequence[Message], schema: type[Any]
    ) -> StructuredResponse[Any]:
        return await self.inner.structured(messages, schema)


class Title(BaseModel):
    title: str


USER_MODELS = pytest.mark.parametrize("make", [FirstContractLLM, BareLLM], ids=["first", "bare"])
WHERE = pytest.mark.parametrize("where", ["session", "call"])


def _stagehand_and_options(llm: Any, where: str) -> tuple[AsyncStagehand, dict[str, Any]]:
    if where == "session":
        return AsyncStagehand(llm=llm), {}
    return AsyncStagehand(llm=FirstContractLLM()), {"llm": llm}


@USER_MODELS
@WHERE
@pytest.mark.no_sync_twin
async def test_act_observe_and_extract_with_a_model_without_options(
    async_page: AsyncPage, make: type[Any], where: str
) -> None:
    llm = make()
    stagehand, options = _stagehand_and_options(llm, where)
    page = stagehand.wrap(async_page)
    await page.set_content(PAGE)

    [found] = await page.observe("the Hi button", **options)
    assert found.description == "the Hi button"
    extracted = await page.extract("the report title", schema=Title, **options)
    assert extracted == Title(title="Report 2026")
    result = await page.act("click Hi", **options)
    assert result.success, result.message
    assert await page.locator("button").text_content() == "Clicked"
    # Every request was counted, answers without usage included.
    assert [r.llm_calls for r in stagehand.history] == [1, 1, 2]
    assert stagehand.usage.total.requests == 4


class NoStructured:
    model = "half"

    async def chat(self, messages: Any, tools: Any) -> ChatResponse:
        return ChatResponse()


class NotCallable(NoStructured):
    structured = "structured"


class NeedsTemperature(NoStructured):
    async def structured(self, messages: Any, schema: Any, *, temperature: float) -> Any:
        return None


class OneParameter(NoStructured):
    async def structured(self, messages: Any) -> Any:
        return None


@pytest.mark.parametrize(
    ("make", "named"),
    [
        (NoStructured, "without a structured() method"),
        (NotCallable, "whose structured is a str, not a method"),
        (NeedsTemperature, "requires the parameter 'temperature'"),
        (OneParameter, "takes 1 positional parameter"),
    ],
)
@WHERE
async def test_a_model_object_the_contract_cannot_call_is_refused_at_construction(
    async_page: AsyncPage, make: type[Any], named: str, where: str
) -> None:
    with pytest.raises(ConfigurationError, match=re.escape(named)):
        if where == "session":
            AsyncStagehand(llm=make())
        else:
            page = AsyncStagehand(llm=FirstContractLLM()).wrap(async_page)
            await page.observe("anything", llm=make())
    assert async_page.url == "about:blank"  # refused before the page was touched


class WrongAnswers(FirstContractLLM):
    async def chat(self, messages: Any, tools: Any, **keywords: Any) -> Any:
        return {"tool_calls": []}

    async def structured(self, messages: Any, schema: Any, **keywords: Any) -> Any:
        return {"title": "Report 2026"}


async def test_an_answer_of_the_wrong_type_is_a_provider_error(async_page: AsyncPage) -> None:
    stagehand = AsyncStagehand(llm=WrongAnswers())
    page = stagehand.wrap(async_page)
    await page.set_content(PAGE)
    with pytest.raises(ProviderError, match=r"WrongAnswers\.structured\(\).*returned a dict"):
        await page.extract("the report title", schema=Title)
    with pytest.raises(ProviderError, match=r"WrongAnswers\.structured\(\).*returned a dict"):
        await page.observe("the Hi button")
    result = await page.act("click Hi", raise_on_failure=False)
    assert result.code == "MODEL_ERROR" and "WrongAnswers.chat()" in result.message
    assert [r.llm_calls for r in stagehand.history] == [1, 1, 1]


class Raises(FirstContractLLM):
    """A model object whose own client fails: an HTTP library's error, or a bug of its own."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def chat(self, messages: Any, tools: Any, **keywords: Any) -> Any:
        raise self.error

    async def structured(self, messages: Any, schema: Any, **keywords: Any) -> Any:
        raise self.error


@pytest.mark.parametrize(
    "error", [RuntimeError("connection reset"), KeyError("choices")], ids=["runtime", "key"]
)
async def test_an_exception_of_the_model_object_is_a_counted_provider_error(
    async_page: AsyncPage, error: Exception
) -> None:
    stagehand = AsyncStagehand(llm=Raises(error))
    page = stagehand.wrap(async_page)
    await page.set_content(PAGE)
    said = rf"Raises\.structured\(\)': it raised {type(error).__name__}"
    with pytest.raises(ProviderError, match=said) as raised:
        await page.extract("the report title", schema=Title)
    assert raised.value.__cause__ is error  # the object's own traceback stays reachable
    with pytest.raises(ProviderError, match=said):
        await page.observe("the Hi button")
    result = await page.act("click Hi", raise_on_failure=False)
    assert result.code == "MODEL_ERROR" and "Raises.chat()': it raised" in result.message
    assert [r.llm_calls for r in stagehand.history] == [1, 1, 1]  # each failed request counted
