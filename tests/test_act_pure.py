"""The act loop's pure parts: reading the model's reply, variables, prompts."""

from __future__ import annotations

import pytest

from stagehand_py import Chunk, Element, Snapshot
from stagehand_py._act_decision import (
    DoAction,
    InvalidReply,
    SkipSection,
    TargetNotFound,
    decide,
    decide_all,
    scroll_percent,
)
from stagehand_py._config import Settings
from stagehand_py._errors import ConfigurationError
from stagehand_py._sections import SectionTracker, chunk_groups, first_group
from stagehand_py._variables import Variables, placeholder
from stagehand_py.llm._messages import ChatResponse, ToolCall
from stagehand_py.prompts.act import ACT_TOOLS, ALLOWED_METHODS, DO_ACTION, build_act_messages


def _reply(name: str = "doAction", **arguments: object) -> ChatResponse:
    return ChatResponse(tool_calls=[ToolCall(id="c1", name=name, arguments=arguments)])


_ARGS: dict[str, object] = {
    "method": "click",
    "element": 3,
    "args": [],
    "step": "press the button",
    "why": "it submits",
    "completed": False,
}


def _action(**overrides: object) -> ChatResponse:
    return _reply(**{**_ARGS, **overrides})


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
        (_action(element=99), "not in the part of the page shown"),
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


# ----------------------------------------------------------------- element numbers (#13, 5)
@pytest.mark.parametrize("written", ["²", "①", "٣", "3.5", "-1", "", " ", "1e3", 3.5, -2, None])
def test_an_element_number_not_written_in_ascii_digits_is_a_re_ask(written: object) -> None:
    decision = decide(_action(element=written), {3})
    assert isinstance(decision, InvalidReply)
    assert "digits 0-9" in decision.error and repr(written) in decision.error


@pytest.mark.parametrize("written", [3, "3", " 3 ", 3.0])
def test_element_numbers_the_model_may_write(written: object) -> None:
    decision = decide(_action(element=written), {3})
    assert isinstance(decision, DoAction) and decision.element == 3


# ----------------------------------------------------------------- batches, codes, confidence
def test_every_tool_call_of_a_reply_is_read_in_order() -> None:
    calls = [
        ToolCall(id="a", name="doAction", arguments={**_ARGS, "method": "fill", "args": ["x"]}),
        ToolCall(id="b", name="doAction", arguments={**_ARGS, "element": 4}),
        ToolCall(id="c", name="doAction", arguments={**_ARGS, "element": 99}),
    ]
    first, second, third = decide_all(ChatResponse(tool_calls=calls), {3, 4})
    assert isinstance(first, DoAction) and first.method == "fill"
    assert isinstance(second, DoAction) and second.element == 4
    assert isinstance(third, InvalidReply) and "not in the part of the page shown" in third.error
    [none] = decide_all(ChatResponse(text="hmm"), {3})
    assert isinstance(none, InvalidReply) and "targetNotFound" in none.error


def test_target_not_found_is_its_own_decision() -> None:
    decision = decide(_reply("targetNotFound", reason="no cart on this page"), {1})
    assert isinstance(decision, TargetNotFound) and decision.reason == "no cart on this page"


@pytest.mark.parametrize(
    ("given", "expected"), [(0.85, 0.85), ("0.5", 0.5), (1, 1.0), (None, None)]
)
def test_confidence_is_read(given: object, expected: float | None) -> None:
    arguments = {} if given is None else {"confidence": given}
    decision = decide(_action(**arguments), {3})
    assert isinstance(decision, DoAction) and decision.confidence == expected


@pytest.mark.parametrize("given", [1.5, -0.1, "high", True, float("nan")])
def test_a_confidence_out_of_range_is_a_re_ask(given: object) -> None:
    decision = decide(_action(confidence=given), {3})
    assert isinstance(decision, InvalidReply) and "0.00 to 1.00" in decision.error


# ----------------------------------------------------------------- method arguments
@pytest.mark.parametrize(
    ("arg", "ok"),
    [
        ("down", True),
        ("50%", True),
        ("100 %", True),
        ("0%", True),
        ("150%", False),
        ("sideways", False),
    ],
)
def test_scroll_takes_a_direction_or_a_percentage(arg: str, ok: bool) -> None:
    decision = decide(_action(method="scroll", args=[arg]), {3})
    assert isinstance(decision, DoAction) is ok
    assert scroll_percent("50%") == 50.0 and scroll_percent("up") is None


def test_drag_to_takes_another_element_shown() -> None:
    good = decide(_action(method="drag_to", args=["4"]), {3, 4})
    assert isinstance(good, DoAction) and good.target == 4
    for bad in (["9"], ["3"], ["the basket"]):
        decision = decide(_action(method="drag_to", args=bad), {3, 4})
        assert isinstance(decision, InvalidReply) and "drag_to" in decision.error


@pytest.mark.parametrize(
    ("args", "ok"),
    [
        (["<|RESUME|>"], True),
        (["%resume%", "<|COVER|>"], True),
        (["/etc/passwd"], False),
        (["C:\\Users\\ada\\cv.pdf"], False),
        (["<|RESUME|> /tmp/x"], False),
    ],
)
def test_files_are_only_ever_placeholders(args: list[str], ok: bool) -> None:
    decision = decide(_action(method="set_input_files", args=args), {3})
    assert isinstance(decision, DoAction) is ok
    if not ok:
        assert isinstance(decision, InvalidReply) and "placeholder" in decision.error


# ----------------------------------------------------------------- sections
def _snapshot(chunk_sizes: list[int]) -> Snapshot:
    elements, chunks, index = [], [], 0
    for chunk, size in enumerate(chunk_sizes):
        members = []
        for _ in range(size):
            elements.append(Element(index=index, tag="p", text=f"paragraph {index}", chunk=chunk))
            members.append(index)
            index += 1
        chunks.append(
            Chunk(index=chunk, top=chunk * 500, bottom=(chunk + 1) * 500, element_indexes=members)
        )
    return Snapshot(
        url="http://t/",
        title="t",
        viewport={"width": 1, "height": 1},
        scroll_y=0,
        elements=elements,
        chunks=chunks,
    )


def test_small_chunks_are_packed_up_to_the_budget() -> None:
    snapshot = _snapshot([2, 2, 2, 40])
    small = len(snapshot.render_chunk(0)) + 1
    assert chunk_groups(snapshot, 3 * small) == [[0, 1, 2], [3]]
    assert chunk_groups(snapshot, 0) == [[0], [1], [2], [3]]  # at least one chunk each
    assert first_group(snapshot, [2, 3, 0], 3 * small) == [2]
    assert chunk_groups(snapshot, 10**6, order=[3, 0]) == [[3, 0]]


def test_a_skipped_chunk_comes_back_only_when_its_content_changed() -> None:
    contents = {0: "1:<p>Order 48213</p>", 1: "2:<p>Footer</p>"}
    tracker = SectionTracker(max_reoffers=2)
    assert tracker.new_chunks([0, 1], contents.__getitem__) == [0, 1]
    tracker.mark_shown([0, 1], contents.__getitem__)
    assert tracker.new_chunks([0, 1], contents.__getitem__) == []
    contents[1] = "7:<p>Footer</p>"  # renumbered only: the same content
    assert tracker.new_chunks([0, 1], contents.__getitem__) == []
    for round_ in range(2):
        contents[0] = f"1:<p>Order 48213</p>\n2:<button>Track {round_}</button>"
        assert tracker.new_chunks([0, 1], contents.__getitem__) == [0]
        tracker.mark_shown([0], contents.__getitem__)
    contents[0] = "1:<p>changed a third time</p>"
    assert tracker.new_chunks([0, 1], contents.__getitem__) == []  # bounded
    tracker.forget([1])
    assert tracker.new_chunks([0, 1], contents.__getitem__) == [1]
    tracker.reset()
    assert tracker.new_chunks([0, 1], contents.__getitem__) == [0, 1]


def test_the_prompt_allows_batches_and_says_how_much_is_shown() -> None:
    messages = build_act_messages(
        "sign up",
        steps=[],
        section_text="1:<input name=email>",
        section_number=2,
        section_count=5,
        variable_names=[],
        sections_shown=3,
        unseen_after=1,
        notes=["action 2 of your last reply was not run: the page navigated"],
    )
    system, user = (m.content for m in messages)
    assert "several times in one reply" in system and "targetNotFound" in system
    assert "Sections 2-4 of 5" in user and "1 section(s) not shown yet" in user
    assert "Note: action 2 of your last reply was not run" in user
    whole = build_act_messages(
        "x",
        steps=[],
        section_text="",
        section_number=1,
        section_count=2,
        variable_names=[],
        sections_shown=2,
    )
    assert "This is the whole page." in whole[1].content
    assert "targetNotFound" in [tool.name for tool in ACT_TOOLS][2]
    assert DO_ACTION.parameters["properties"]["confidence"]["maximum"] == 1.0


def test_max_section_chars_setting() -> None:
    assert Settings().max_section_chars == 6000
    assert Settings.from_env(max_section_chars=0).max_section_chars == 0
    with pytest.raises(ConfigurationError, match="max_section_chars"):
        Settings.checked({"max_section_chars": -1})
