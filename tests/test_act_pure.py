"""The act loop's pure parts: reading the model's reply, variables, prompts."""

from __future__ import annotations

import pytest

from stagehand_py._act_decision import DoAction, InvalidReply, SkipSection, decide
from stagehand_py._config import Settings
from stagehand_py._errors import ConfigurationError
from stagehand_py._variables import Variables, placeholder
from stagehand_py.llm._messages import ChatResponse, ToolCall
from stagehand_py.prompts.act import ALLOWED_METHODS, DO_ACTION, build_act_messages


def _reply(name: str = "doAction", **arguments: object) -> ChatResponse:
    return ChatResponse(tool_calls=[ToolCall(id="c1", name=name, arguments=arguments)])


def _action(**overrides: object) -> ChatResponse:
    arguments: dict[str, object] = {
        "method": "click",
        "element": 3,
        "args": [],
        "step": "press the button",
        "why": "it submits",
        "completed": False,
    }
    arguments.update(overrides)
    return _reply(**arguments)


def test_a_well_formed_action_is_accepted() -> None:
    decision = decide(_action(method="fill", args=["<|EMAIL|>"]), {3})
    assert isinstance(decision, DoAction)
    assert (decision.method, decision.element, decision.args) == ("fill", 3, ["<|EMAIL|>"])


def test_skip_section() -> None:
    decision = decide(_reply("skipSection", reason="nothing here"), {1})
    assert isinstance(decision, SkipSection) and decision.reason == "nothing here"


@pytest.mark.parametrize(
    ("reply", "fragment"),
    [
        (ChatResponse(text="I would click submit"), "called no tool"),
        (_reply("runJavaScript", code="alert(1)"), "Unknown tool"),
        (_action(method="evaluate"), "not allowed"),
        (_action(method="__class__"), "not allowed"),
        (_action(element=99), "not in this section"),
        (_action(element="three"), "element number"),
        (_action(element=True), "element number"),
        (_action(method="fill", args=[]), "takes 1 argument"),
        (_action(method="click", args=["x"]), "takes 0 argument"),
        (_action(args={"a": 1}), "list of strings"),
        (_action(completed="maybe"), "true or false"),
    ],
)
def test_unusable_replies_say_what_was_wrong(reply: ChatResponse, fragment: str) -> None:
    decision = decide(reply, {3})
    assert isinstance(decision, InvalidReply)
    assert fragment in decision.error


def test_arguments_that_were_not_json_are_reported() -> None:
    call = ToolCall(id="c", name="doAction", raw_arguments="{method: click", arguments_error="x")
    decision = decide(ChatResponse(tool_calls=[call]), {1})
    assert isinstance(decision, InvalidReply) and "not a valid JSON object" in decision.error


def test_lenient_coercions() -> None:
    decision = decide(_action(element="3", completed="true", args="Enter", method="press"), {3})
    assert isinstance(decision, DoAction)
    assert decision.element == 3 and decision.completed and decision.args == ["Enter"]


def test_tool_schema_enumerates_exactly_the_allow_list() -> None:
    assert DO_ACTION.parameters["properties"]["method"]["enum"] == list(ALLOWED_METHODS)
    assert set(DO_ACTION.parameters["required"]) == {
        "method",
        "element",
        "args",
        "step",
        "why",
        "completed",
    }


def test_variables_substitute_redact_and_hide_values() -> None:
    variables = Variables({"email": "ada@example.com", "Password": "hunter2!"})
    assert variables.names == ["EMAIL", "PASSWORD"]
    assert variables.substitute("<|EMAIL|> / %password%") == "ada@example.com / hunter2!"
    assert variables.substitute("<|OTHER|>") == "<|OTHER|>"
    assert variables.unknown_placeholders("<|OTHER|> <|EMAIL|>") == ["OTHER"]
    text = "value=ada@example.com pw=hunter2!"
    assert variables.redact(text) == f"value={placeholder('email')} pw={placeholder('password')}"
    assert "hunter2" not in repr(variables)
    assert variables.contains_secret("xx hunter2! xx")


def test_longer_secret_is_redacted_before_its_prefix() -> None:
    variables = Variables({"short": "abc", "long": "abcdef"})
    assert variables.redact("abcdef abc") == "<|LONG|> <|SHORT|>"


@pytest.mark.parametrize("name", ["1abc", "a-b", "", "with space"])
def test_bad_variable_names_are_typed_errors(name: str) -> None:
    with pytest.raises(ConfigurationError, match="not valid"):
        Variables({name: "x"})


def test_duplicate_names_differing_in_case_are_refused() -> None:
    with pytest.raises(ConfigurationError, match="twice"):
        Variables({"email": "a", "EMAIL": "b"})


def test_act_prompt_names_variables_but_never_values() -> None:
    messages = build_act_messages(
        "log in",
        steps=["fill('<|EMAIL|>') on 1:<input>"],
        section_text="1:<input name=email>",
        section_number=1,
        section_count=3,
        variable_names=["EMAIL"],
        url="http://127.0.0.1/login",
    )
    text = "\n".join(m.content for m in messages)
    assert "<|EMAIL|>" in text and "Section 1 of 3" in text and "log in" in text


def test_settings_validate_and_read_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STAGEHAND_PY_MAX_STEPS", "4")
    assert Settings.from_env().max_steps == 4
    assert Settings.from_env(max_steps=7).max_steps == 7
    with pytest.raises(ConfigurationError, match="max_steps"):
        Settings.checked({"max_steps": 0})
    with pytest.raises(ConfigurationError, match="Known settings"):
        Settings().updated(max_stepz=3)
