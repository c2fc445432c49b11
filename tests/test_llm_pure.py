"""Pure parts of the LLM layer: usage and prices, model strings, the guard, tool-call parsing,
and the client factory's configuration handling (no request is made)."""

from __future__ import annotations

import pytest

from stagehand_py._async.llm.anthropic import AsyncAnthropicLLM
from stagehand_py._async.llm.factory import create_llm
from stagehand_py._async.llm.openai import AsyncOpenAILLM
from stagehand_py._errors import ConfigurationError, MissingAPIKeyError, RealRequestsBlockedError
from stagehand_py._sync.llm.factory import create_llm as create_sync_llm
from stagehand_py._sync.llm.openai import OpenAILLM
from stagehand_py.llm import (
    ModelPrice,
    PriceTable,
    ToolSpec,
    Usage,
    UsageMeter,
    block_real_requests,
    check_request_allowed,
    real_requests_blocked,
)
from stagehand_py.llm._guard import is_loopback_url
from stagehand_py.llm._model_string import parse_model_string
from stagehand_py.llm._reply import MalformedReply, load_body
from stagehand_py.llm._tool_arguments import parse_arguments, tool_calls_from_text
from stagehand_py.prompts.act import ACT_TOOLS

ENV_VARS = (
    "STAGEHAND_PY_MODEL",
    "STAGEHAND_PY_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
)


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


# -- usage and prices ---------------------------------------------------------------------


def test_usage_adds_up() -> None:
    a = Usage(requests=1, prompt_tokens=100, completion_tokens=10, cached_tokens=40, wall_time_s=1)
    b = Usage(requests=2, prompt_tokens=50, completion_tokens=5, wall_time_s=0.5)

    total = a + b

    assert total == Usage(
        requests=3, prompt_tokens=150, completion_tokens=15, cached_tokens=40, wall_time_s=1.5
    )
    assert total.total_tokens == 165
    assert sum([a, b]) == total
    assert Usage() + a == a


def test_price_table_costs_cached_tokens_at_their_price() -> None:
    prices = PriceTable.of(
        {"gpt-4.1-mini": {"input": 0.4, "cached_input": 0.1, "output": 1.6}},
    )
    usage = Usage(requests=1, prompt_tokens=1_000_000, cached_tokens=500_000, completion_tokens=0)

    assert prices.cost("gpt-4.1-mini", usage) == pytest.approx(0.25)
    assert prices.cost("openai/gpt-4.1-mini", usage) == pytest.approx(0.25)
    assert prices.cost("claude-sonnet-4-5", usage) is None


def test_price_without_a_cached_price_uses_the_input_price() -> None:
    prices = PriceTable.of({"m": ModelPrice(input=2.0, output=8.0)})
    usage = Usage(prompt_tokens=500_000, cached_tokens=100_000, completion_tokens=250_000)
    assert prices.cost("m", usage) == pytest.approx(1.0 + 2.0)


def test_usage_meter_keeps_totals_per_kind() -> None:
    meter = UsageMeter(prices=PriceTable.of({"m": {"input": 1.0, "output": 2.0}}), model="m")
    meter.add("act", Usage(requests=2, prompt_tokens=1000, completion_tokens=100))
    meter.add("act", Usage(requests=1, prompt_tokens=500, completion_tokens=50))
    meter.add("extract", Usage(requests=1, prompt_tokens=200, completion_tokens=20))

    assert meter.of("act") == Usage(requests=3, prompt_tokens=1500, completion_tokens=150)
    assert meter.calls("act") == 2 and meter.calls("observe") == 0
    assert meter.of("observe") == Usage()
    assert set(meter.by_kind) == {"act", "extract"}
    assert meter.total.requests == 4 and meter.total.total_tokens == 1870
    assert meter.cost() == pytest.approx((1700 * 1.0 + 170 * 2.0) / 1_000_000)
    assert UsageMeter().cost("m") is None


def test_usage_meter_prices_each_model_used() -> None:
    prices = PriceTable.of({"a": {"input": 1.0, "output": 0.0}, "b": {"input": 3.0, "output": 0.0}})
    meter = UsageMeter(prices=prices)
    meter.add("act", Usage(prompt_tokens=1_000_000), model="a")
    meter.add("extract", Usage(prompt_tokens=1_000_000), model="b")

    assert meter.cost() == pytest.approx(4.0)
    assert meter.cost("b") == pytest.approx(6.0)
    assert set(meter.by_model) == {"a", "b"}
    meter.add("observe", Usage(prompt_tokens=1), model="unpriced")
    assert meter.cost() is None  # an estimate that leaves a model out would mislead


# -- model strings ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "provider", "name"),
    [
        ("openai/gpt-4.1-mini", "openai", "gpt-4.1-mini"),
        ("anthropic/claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5"),
        ("gpt-4o", "openai", "gpt-4o"),
        ("o4-mini", "openai", "o4-mini"),
        ("claude-haiku-4-5", "anthropic", "claude-haiku-4-5"),
        ("OpenAI/llama3.2:1b", "openai", "llama3.2:1b"),
    ],
)
def test_model_strings(text: str, provider: str, name: str) -> None:
    spec = parse_model_string(text)
    assert (spec.provider, spec.name) == (provider, name)


def test_unknown_providers_are_configuration_errors() -> None:
    with pytest.raises(ConfigurationError, match="Unknown model provider 'mistral'"):
        parse_model_string("mistral/mistral-large")
    with pytest.raises(ConfigurationError, match="'openai/llama3'"):
        parse_model_string("llama3")
    with pytest.raises(ConfigurationError, match="empty"):
        parse_model_string("  ")


def test_a_default_provider_covers_local_model_names() -> None:
    spec = parse_model_string("Qwen/Qwen2.5-7B", default_provider="openai")
    assert (spec.provider, spec.name) == ("openai", "Qwen/Qwen2.5-7B")
    assert parse_model_string("qwen2.5:0.5b", default_provider="openai").name == "qwen2.5:0.5b"


# -- the guard ----------------------------------------------------------------------------


def test_the_suite_runs_with_real_requests_blocked() -> None:
    assert real_requests_blocked()
    with pytest.raises(RealRequestsBlockedError, match=r"api\.openai\.com"):
        check_request_allowed("https://api.openai.com/v1/chat/completions", "gpt-4.1-mini")
    for url in ("http://127.0.0.1:8080/v1", "http://localhost:11434/v1", "http://[::1]:9/v1"):
        check_request_allowed(url, "local")  # loopback stays allowed


def test_the_switch_is_a_function_and_a_context_manager(clean_env: pytest.MonkeyPatch) -> None:
    with block_real_requests(False):
        assert not real_requests_blocked()
        check_request_allowed("https://api.anthropic.com/v1/messages", "claude")
        with block_real_requests():
            assert real_requests_blocked()
        assert not real_requests_blocked()
        with block_real_requests(None):
            assert not real_requests_blocked()
            clean_env.setenv("STAGEHAND_PY_BLOCK_REAL_LLM", "1")
            assert real_requests_blocked()
    assert real_requests_blocked()


@pytest.mark.parametrize(
    ("url", "loopback"),
    [
        ("http://127.0.0.1:1/v1", True),
        ("http://127.8.0.1/", True),
        ("http://LOCALHOST:1", True),
        ("http://[::1]:1", True),
        ("https://api.openai.com/v1", False),
        ("http://127.0.0.1.evil.example/", False),
        ("http://10.0.0.5:8000/v1", False),
    ],
)
def test_loopback_urls(url: str, loopback: bool) -> None:
    assert is_loopback_url(url) is loopback


# -- tool-call parsing --------------------------------------------------------------------


def test_argument_text_is_parsed_or_explained() -> None:
    assert parse_arguments('{"a": 1}') == ({"a": 1}, None)
    assert parse_arguments("") == ({}, None)
    assert parse_arguments({"a": 1}) == ({"a": 1}, None)
    args, error = parse_arguments('{"a": ')
    assert args == {} and error is not None and error.startswith("invalid JSON")
    assert parse_arguments("[1, 2]") == ({}, "expected a JSON object, got list")


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "skipSection", "arguments": {"reason": "r"}}',
        'Here you go: {"name": "skipSection", "parameters": {"reason": "r"}}',
        '```json\n{"tool": "skipSection", "args": {"reason": "r"}}\n```',
        '<tool_call>\n{"name": "skipSection", "arguments": {"reason": "r"}}\n</tool_call>',
        '{"tool_calls": [{"function": {"name": "skipSection", '
        '"arguments": "{\\"reason\\": \\"r\\"}"}}]}',
        '[{"name": "skipSection", "arguments": {"reason": "r"}}]',
    ],
)
def test_tool_calls_written_as_text(text: str) -> None:
    [call] = tool_calls_from_text(text, ACT_TOOLS)
    assert (call.name, call.arguments, call.arguments_error) == (
        "skipSection",
        {"reason": "r"},
        None,
    )


def test_text_that_is_not_a_call_of_an_offered_tool_is_ignored() -> None:
    assert tool_calls_from_text("I would click the button.", ACT_TOOLS) == []
    assert tool_calls_from_text('{"name": "rm_rf", "arguments": {}}', ACT_TOOLS) == []
    other = [ToolSpec(name="other", description="", parameters={})]
    assert tool_calls_from_text('{"name": "skipSection", "arguments": {}}', other) == []


# -- the factory --------------------------------------------------------------------------


def test_no_model_configured_says_what_to_set(clean_env: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigurationError) as caught:
        create_llm()
    message = str(caught.value)
    for needed in ("STAGEHAND_PY_MODEL", "OPENAI_API_KEY", "STAGEHAND_PY_BASE_URL"):
        assert needed in message


def test_missing_keys_name_the_variable(clean_env: pytest.MonkeyPatch) -> None:
    with pytest.raises(MissingAPIKeyError, match="OPENAI_API_KEY") as caught:
        create_llm("openai/gpt-4.1-mini")
    assert caught.value.env_var == "OPENAI_API_KEY"
    with pytest.raises(MissingAPIKeyError, match="ANTHROPIC_API_KEY"):
        create_llm("anthropic/claude-sonnet-4-5")
    with pytest.raises(MissingAPIKeyError, match="OPENAI_API_KEY"):
        create_sync_llm("gpt-4o")


def test_the_factory_reads_the_environment(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("STAGEHAND_PY_MODEL", "anthropic/claude-haiku-4-5")
    clean_env.setenv("ANTHROPIC_API_KEY", "sk-ant-env")
    llm = create_llm()
    assert isinstance(llm, AsyncAnthropicLLM) and llm.model == "claude-haiku-4-5"

    explicit = create_llm("openai/gpt-4.1-mini", api_key="sk-arg")
    assert isinstance(explicit, AsyncOpenAILLM) and explicit.model == "gpt-4.1-mini"
    assert explicit.endpoint == "https://api.openai.com/v1/chat/completions"


def test_a_local_server_needs_no_key(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("STAGEHAND_PY_MODEL", "qwen2.5:0.5b")
    clean_env.setenv("STAGEHAND_PY_BASE_URL", "http://localhost:11434/v1")

    llm = create_sync_llm()

    assert isinstance(llm, OpenAILLM) and llm.model == "qwen2.5:0.5b"
    assert llm.endpoint == "http://localhost:11434/v1/chat/completions"


# An integer of more digits than Python converts (4,300 by default) is a malformed answer, not
# a bare ValueError: in a tool call's arguments (re-asked) and in a response body.
@pytest.mark.parametrize("digits", [5000, 50_000])
def test_a_number_too_long_to_read_is_a_malformed_answer(digits: int) -> None:
    text = '{"count": ' + "9" * digits + "}"
    assert parse_arguments(text) == ({}, "invalid JSON: a number too long to read")
    with pytest.raises(MalformedReply, match="number too long"):
        load_body(text)
