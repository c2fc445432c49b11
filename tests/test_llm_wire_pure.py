"""Pure parts of the LLM wire layer: request options, the capability ladder's judgement of
errors, schema stripping, request bodies (no null content, re-asks a template that drops
tool messages still shows), replies read from raw bodies, retry decisions, error text."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel, Field

from stagehand_py import Settings
from stagehand_py._errors import ConfigurationError
from stagehand_py.llm import DEFAULT_MAX_TOKENS, Message, ToolCall, request_options
from stagehand_py.llm._anthropic_wire import parse_message
from stagehand_py.llm._error_text import status_reason, summarize
from stagehand_py.llm._ladder import CapabilityLadder, refuses_tools, rejects_feature
from stagehand_py.llm._openai_wire import chat_body, structured_body, wire_messages
from stagehand_py.llm._reply import MalformedReply, parse_completion
from stagehand_py.llm._retry import Failure, fits_before, retry_wait
from stagehand_py.llm._schema_strip import strip_schema
from stagehand_py.llm._structured_answer import answer_of, has_answer
from stagehand_py.prompts.act import ACT_TOOLS

# -- request options -------------------------------------------------------------------------


def test_request_options_use_per_kind_defaults() -> None:
    options = request_options(Settings(), "extract", timeout_s=12.5)

    assert options.kind == "extract"
    assert options.max_tokens == DEFAULT_MAX_TOKENS["extract"]
    assert options.temperature is None  # the server's own: reasoning models reject others
    assert options.timeout_s == 12.5
    assert DEFAULT_MAX_TOKENS["act"] < DEFAULT_MAX_TOKENS["extract"]


def test_request_options_follow_the_settings() -> None:
    everywhere = Settings(max_tokens=300, temperature=0.2)
    per_kind = Settings(max_tokens={"extract": 9000})

    assert request_options(everywhere, "verify").max_tokens == 300
    assert request_options(everywhere, "act").temperature == 0.2
    assert request_options(per_kind, "extract").max_tokens == 9000
    assert request_options(per_kind, "act").max_tokens == DEFAULT_MAX_TOKENS["act"]
    assert request_options(Settings(), "act", timeout_s=-1.0).timeout_s == pytest.approx(0.001)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("700", 700),
        ("act=200, extract=8000", {"act": 200, "extract": 8000}),
        ("500,extract=8000", {**dict.fromkeys(DEFAULT_MAX_TOKENS, 500), "extract": 8000}),
    ],
)
def test_max_tokens_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, text: str, expected: object
) -> None:
    monkeypatch.setenv("STAGEHAND_PY_MAX_TOKENS", text)
    monkeypatch.setenv("STAGEHAND_PY_TEMPERATURE", "0.3")

    settings = Settings.from_env()

    assert settings.max_tokens == expected
    assert settings.temperature == 0.3


@pytest.mark.parametrize("bad", ["lots", "act=0", "summary=100", "-5"])
def test_bad_max_tokens_is_a_configuration_error(monkeypatch: pytest.MonkeyPatch, bad: str) -> None:
    monkeypatch.setenv("STAGEHAND_PY_MAX_TOKENS", bad)

    with pytest.raises(ConfigurationError, match="max_tokens"):
        Settings.from_env()


# -- the ladder's judgement of errors --------------------------------------------------------


def test_feature_refusals_step_down() -> None:
    assert rejects_feature(500, "", "required")  # llama.cpp: an empty 500
    assert rejects_feature(400, "model tiny does not support tools", "required")
    assert rejects_feature(500, "response_format.type: Input should be 'text'", "json_schema")
    assert rejects_feature(422, "tool_choice: unexpected value 'required'", "required")
    assert refuses_tools("registry.ollama.ai/library/gemma:2b does not support tools")
    assert not refuses_tools("tool_choice 'required' is not supported")


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (401, "Incorrect API key provided (tool access)"),
        (403, "This key may not use tools"),
        (429, "Rate limit reached for tool calls"),
        (400, "This model's maximum context length is 8192 tokens; tools included"),
        (400, "Requested tokens exceed context window of 4096 (n_ctx) with tools"),
        (400, "messages[1].content: unknown field 'foo'"),  # a bad request, not the feature
        (503, ""),  # an overloaded server
        (500, "CUDA out of memory"),
        # llama.cpp's answer to "content": null names the tool message type: still not a
        # refusal of tools, but an error about the conversation.
        (500, "messages.2.ChatCompletionRequestToolMessage.content: Input should be a string"),
        # Ollama, when the model writes a malformed call: the model's error, not the feature's.
        (500, 'error parsing tool call: raw=\'{"name": "doAction", "arguments": {"element": 3\''),
        (500, "failed to parse tool call arguments as JSON"),
        (500, "Error: could not parse the function call the model produced"),
    ],
)
def test_real_errors_never_step_down(status: int, message: str) -> None:
    for strategy in ("required", "auto", "json_schema", "json_object"):
        assert not rejects_feature(status, message, strategy), (status, message, strategy)


def test_the_ladder_remembers_per_shape_and_only_goes_down() -> None:
    ladder = CapabilityLadder(enabled=True)

    assert ladder.learn("tools", "json_object")
    assert not ladder.learn("tools", "auto")  # never back up
    assert ladder.strategies("tools") == ("json_object", "text")
    assert ladder.current("structured") == "required"
    assert CapabilityLadder(enabled=False).strategies("tools") == ("required",)


# -- schemas for local servers ---------------------------------------------------------------


class Account(BaseModel):
    code: str = Field(pattern=r"^NW-\d{5}$")
    email: str = Field(json_schema_extra={"format": "email"})
    pattern: str  # a property that happens to be named like a keyword
    format: int = Field(multiple_of=5)


def test_stripping_drops_keywords_not_properties() -> None:
    schema = Account.model_json_schema()

    stripped = strip_schema(schema)

    assert '"pattern": "^NW' in json.dumps(schema)
    assert "multipleOf" not in json.dumps(stripped)
    assert '"format": "email"' not in json.dumps(stripped)
    assert set(stripped["properties"]) == {"code", "email", "pattern", "format"}
    assert stripped["properties"]["code"] == {"title": "Code", "type": "string"}
    assert stripped["required"] == schema["required"]


def test_compat_bodies_send_stripped_schemas_and_openai_gets_them_whole() -> None:
    schema = Account.model_json_schema()
    for strategy in ("required", "json_object"):
        local = structured_body("m", [], "Account", schema, strategy, sampling={}, compat=True)
        remote = structured_body("m", [], "Account", schema, strategy, sampling={}, compat=False)
        assert "^NW" not in json.dumps(local)
        assert "^NW" in json.dumps(remote)


# -- request messages -----------------------------------------------------------------------


def reask(call: ToolCall) -> list[Message]:
    return [
        Message(role="system", content="Drive the page."),
        Message(role="user", content="Click Buy.\n3:<button>Buy</button>"),
        Message(role="assistant", tool_calls=[call]),
        Message(
            role="tool", tool_call_id=call.id, content="Element 9 is not shown.", is_error=True
        ),
    ]


def test_a_reask_never_sends_null_content() -> None:
    call = ToolCall(id="c1", name="doAction", arguments={"element": 9})
    for compat in (True, False):
        for strategy in ("required", "auto", "json_schema", "json_object", "text"):
            body = chat_body(
                "m",
                reask(call),
                ACT_TOOLS,
                strategy,
                tool_choice="required",
                sampling={},
                compat=compat,
            )
            assert all(isinstance(m["content"], str) for m in body["messages"]), strategy


def test_compat_repeats_tool_results_for_templates_that_drop_them() -> None:
    call = ToolCall(id="c1", name="doAction", arguments={"element": 9})

    local = wire_messages(reask(call), compat=True)
    remote = wire_messages(reask(call), compat=False)

    shown = [m for m in local if m["role"] in ("system", "user", "assistant")]
    assert "Element 9 is not shown." in shown[-1]["content"]  # seen without the tool message
    assert '"element": 9' in shown[-2]["content"]  # the call, as text, in the assistant turn
    assert [m["role"] for m in remote] == ["system", "user", "assistant", "tool"]
    assert remote[2]["content"] == ""


def test_calls_without_a_valid_name_or_answer_travel_as_text() -> None:
    nameless = ToolCall(id="c1", name="", arguments={"element": 3})
    unanswered = ToolCall(id="c2", name="doAction", arguments={"element": 3})
    messages = [
        *reask(nameless),
        Message(role="assistant", tool_calls=[unanswered]),
        Message(role="user", content="Go on."),
    ]

    wire = wire_messages(messages, compat=False)

    assert not any("tool_calls" in m for m in wire)  # the API would reject either call
    assert wire[3] == {"role": "user", "content": "Tool error: Element 9 is not shown."}


# -- replies read from raw bodies -----------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"", "empty"),
        (b"<html>502 Bad Gateway</html>", "not JSON: <html>502"),
        (b'{"id": "chatcmpl-1", "choices": [{"message": {"content": "hel', "cut off"),
        (b"[1, 2]", "a JSON list"),
        (b'{"id": "x", "choices": []}', "no choices"),
        (b'{"error": {"message": "overloaded"}}', "error with status 200"),
    ],
)
def test_bodies_that_are_no_completion(raw: bytes, reason: str) -> None:
    with pytest.raises(MalformedReply, match=reason):
        parse_completion(raw, 0.1)


def test_odd_but_readable_completions() -> None:
    nameless = {"id": None, "type": "function", "function": {"name": None, "arguments": "{}"}}
    body = {
        "choices": [
            {"message": {"content": [{"type": "text", "text": "a"}, "b"], "tool_calls": [nameless]}}
        ],
        "usage": {"prompt_tokens": "many", "completion_tokens": 4},
    }

    reply = parse_completion(json.dumps(body), 0.5)

    assert reply.text == "ab"
    [call] = reply.tool_calls
    assert call.id and call.name == "" and call.arguments_error is not None
    assert (reply.usage.requests, reply.usage.prompt_tokens, reply.usage.completion_tokens) == (
        1,
        0,
        4,
    )
    empty = parse_completion(json.dumps({"choices": [{"message": None}]}), 0.1)
    assert (empty.tool_calls, empty.text) == ([], "") and "no message" in empty.problem


def test_anthropic_bodies() -> None:
    with pytest.raises(MalformedReply, match="not a message"):
        parse_message(b"{}", 0.1)
    for content in (None, {}):
        reply = parse_message(json.dumps({"id": "m", "type": "message", "content": content}), 0.1)
        assert reply.tool_calls == [] and "no content list" in reply.problem
    odd = {"type": "message", "content": [{}, {"type": "tool_use", "name": None, "input": None}]}
    [call] = parse_message(json.dumps(odd), 0.1).tool_calls
    assert call.name == "" and call.arguments_error


def test_structured_answers_from_calls_or_text() -> None:
    from stagehand_py.llm._reply import Reply

    written = Reply(text='Here: {"name": "Verdict", "arguments": {"ok": true}}')
    bare = Reply(text='```json\n{"ok": false}\n```')
    prose = Reply(text="I think it worked.")

    assert answer_of(written, "Verdict")[1] == {"ok": True}
    assert answer_of(bare, "Verdict")[1] == {"ok": False}
    assert answer_of(prose, "Verdict")[2] is not None and not has_answer(prose, "Verdict")
    assert not has_answer(Reply(), "Verdict")  # nothing: the server ignored the format
    assert has_answer(Reply(problem="no message"), "Verdict")  # an odd reply is re-asked


# -- retries and messages -------------------------------------------------------------------


def test_retry_decisions() -> None:
    assert retry_wait(Failure("timeout"), 0, 2) is None  # the server may still be working
    assert retry_wait(Failure("status", status=401), 0, 2) is None
    assert retry_wait(Failure("status", status=500), 2, 2) is None
    assert retry_wait(Failure("status", status=429, retry_after=0.25), 0, 2) == 0.25
    assert retry_wait(Failure("status", status=429, retry_after=600.0), 0, 2) is None
    assert retry_wait(Failure("status", status=400, should_retry=True), 0, 2) is not None
    assert fits_before(None, 30.0) and fits_before(5.0, 1.0) and not fits_before(1.5, 1.0)


def test_error_text_is_short_and_says_what_to_try() -> None:
    dump = (
        "7 validation errors for CreateChatCompletionRequest\nmessages.2.content\n"
        "  Input should be a valid string [type=string_type, input_value=None, "
        "input_type=NoneType]\n" + "more\n" * 30
    )

    assert summarize(dump) == (
        "messages.2.content: Input should be a valid string (input: None) "
        "(and 6 more validation errors)"
    )
    assert "empty body" in status_reason(500, "") and "log" in status_reason(500, "")
    assert "larger context" in status_reason(400, "maximum context length is 4096 tokens")
    assert "API key" in status_reason(401, "invalid key")


def test_what_llama_cpps_server_really_sends() -> None:
    # Captured from llama-cpp-python 0.3.36 (scripts/local-server-smoke.sh): its refusal of
    # json_schema, a FastAPI dump followed by a traceback...
    refusal = (
        "1 validation error: {'type': 'literal_error', 'loc': ('body', 'response_format', "
        "'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', "
        "'ctx': {'expected': \"'text' or 'json_object'\"}}\n\n  File \"/venv/llama_cpp/server/"
        'app.py", line 376, in create_chat_completion\n    POST /v1/chat/completions'
    )
    assert summarize(refusal) == "response_format.type: Input should be 'text' or 'json_object'"
    assert rejects_feature(500, refusal, "json_schema")
    # ...and a grammar-held answer with a raw newline inside a string, which strict JSON refuses.
    reply = parse_completion(
        json.dumps(
            {
                "choices": [
                    {
                        "message": {
                            "content": '{"name": "skipSection", '
                            '"arguments": {"reason": "no\nbutton"}}'
                        }
                    }
                ]
            }
        ),
        0.1,
    ).with_text_calls(ACT_TOOLS)
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [
        ("skipSection", {"reason": "no\nbutton"})
    ]
