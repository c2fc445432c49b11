"""The shipped fakes: reply builders for every request kind, and sync/async mix-ups caught early."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from stagehand_py import AsyncStagehand, ConfigurationError, Settings, Stagehand
from stagehand_py.prompts.act import VerifyAnswer
from stagehand_py.prompts.observe import ObserveAnswer
from stagehand_py.pytest_plugin._fixtures import FakeSwitch as _FakeSwitch
from stagehand_py.testing import (
    AsyncFunctionLLM,
    AsyncScriptedLLM,
    FunctionLLM,
    ScriptedLLM,
    agent_output,
    extract_answer,
    observe_answer,
    observed,
    verify_answer,
)


class Price(BaseModel):
    amount: float
    currency: str


def test_builders_make_what_each_request_kind_validates() -> None:
    assert VerifyAnswer.model_validate(verify_answer(False, "no toast yet").model_dump()) == (
        VerifyAnswer(completed=False, reason="no toast yet")
    )
    answer = observe_answer(3, observed(7, "the search box", "fill", ["<|QUERY|>"]))
    assert ObserveAnswer.model_validate(answer.model_dump()).elements[1].arguments == ["<|QUERY|>"]
    assert [e.element for e in answer.elements] == [3, 7] and answer.elements[0].method == "click"
    assert observe_answer().elements == []
    assert extract_answer(Price(amount=9.5, currency="EUR")) == {
        "data": {"amount": 9.5, "currency": "EUR"},
        "complete": True,
    }
    assert extract_answer({"rows": []}, complete=False) == {"data": {"rows": []}, "complete": False}


def test_agent_output_is_a_plain_dict_in_the_agents_shape() -> None:
    step = agent_output(
        {"click": {"element": 3}},
        {"done": {"success": True, "text": "added"}},
        thinking="the lamp is the cheapest",
        next_goal="finish",
    )
    assert step == {
        "thinking": "the lamp is the cheapest",
        "evaluation_previous_goal": "",
        "memory": "",
        "next_goal": "finish",
        "actions": [{"click": {"element": 3}}, {"done": {"success": True, "text": "added"}}],
    }


@pytest.mark.parametrize(
    "fake",
    [ScriptedLLM(), FunctionLLM(chat=lambda m, t: "x"), _FakeSwitch(is_async=False)],
    ids=["ScriptedLLM", "FunctionLLM", "plugin switch"],
)
def test_a_sync_fake_in_async_stagehand_is_a_clear_error(fake: object) -> None:
    with pytest.raises(ConfigurationError, match=r"AsyncStagehand\(llm=...\) got the synchronous"):
        AsyncStagehand(llm=fake)  # type: ignore[arg-type]
    Stagehand(llm=fake)  # type: ignore[arg-type]  # the right pairing is fine


@pytest.mark.parametrize(
    "fake",
    [AsyncScriptedLLM(), AsyncFunctionLLM(), _FakeSwitch(is_async=True)],
    ids=["AsyncScriptedLLM", "AsyncFunctionLLM", "plugin switch"],
)
def test_an_async_fake_in_stagehand_is_a_clear_error(fake: object) -> None:
    with pytest.raises(ConfigurationError, match=r"use its sync twin \(ScriptedLLM|sync twin"):
        Stagehand(llm=fake)  # type: ignore[arg-type]
    AsyncStagehand(llm=fake)  # type: ignore[arg-type]


def test_the_real_clients_are_checked_too() -> None:
    from stagehand_py.providers import AsyncOpenAILLM, OpenAILLM

    sync_client = OpenAILLM("gpt-test", api_key="sk-test-not-secret")
    async_client = AsyncOpenAILLM("gpt-test", api_key="sk-test-not-secret")
    with pytest.raises(ConfigurationError, match="AsyncOpenAILLM"):
        AsyncStagehand(llm=sync_client)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="OpenAILLM"):
        Stagehand(llm=async_client)  # type: ignore[arg-type]


def test_an_object_without_the_model_contract_is_refused() -> None:
    with pytest.raises(ConfigurationError, match=r"chat\(\) and structured\(\)"):
        Stagehand(llm="openai/gpt-4.1-mini")  # type: ignore[arg-type]


def test_constructor_typos_list_every_accepted_argument() -> None:
    with pytest.raises(ConfigurationError) as typo:
        Stagehand(modle="openai/gpt-4.1-mini")
    message = str(typo.value)
    assert "'modle' (did you mean 'model'?)" in message
    for accepted in ("model", "llm", "cache_dir", "api_key", "base_url", "url_normalizer",
                     "settings", "prices", "max_steps", "cache_mode", "self_heal"):  # fmt: skip
        assert accepted in message
    with pytest.raises(ConfigurationError, match="'cache_directory' \\(did you mean 'cache_dir'"):
        AsyncStagehand(cache_directory="x")


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [
        ("STAGEHAND_PY_MAX_STEPS", "ten", "expected a whole number"),
        ("STAGEHAND_PY_MAX_STEPS", "0", "greater than or equal to 1"),
        ("STAGEHAND_PY_TIMEOUT", "soon", "expected a number"),
        ("STAGEHAND_PY_CACHE_MODE", "rw", "'read-write', 'read-only' or 'require'"),
        ("STAGEHAND_PY_CACHE_URL", "host", "'auto', 'full' or 'path'"),
    ],
)
def test_a_bad_environment_variable_names_itself(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, expected: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigurationError) as bad:
        Settings.from_env()
    assert f"{variable}={value!r}" in str(bad.value) and expected in str(bad.value)
    with pytest.raises(ConfigurationError, match=variable):
        Stagehand()  # also from Python, not only from the command line


def test_good_environment_values_apply(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STAGEHAND_PY_MAX_STEPS", " 4 ")
    monkeypatch.setenv("STAGEHAND_PY_CACHE_MODE", "read-only")
    settings = Settings.from_env(timeout_s=9)
    assert (settings.max_steps, settings.cache_mode, settings.timeout_s) == (4, "read-only", 9)


def test_require_mode_without_a_cache_is_a_configuration_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("STAGEHAND_PY_CACHE_DIR", raising=False)
    with pytest.raises(ConfigurationError, match="needs an action cache"):
        Stagehand(llm=ScriptedLLM(), cache_mode="require")
