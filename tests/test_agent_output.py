"""The model's answer, without a browser: the closed action set, ``done`` alone, the action
limit, navigation URLs and domains, and the checks against the state shown."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from stagehand_py._variables import Variables
from stagehand_py.agent import AgentState, TabInfo
from stagehand_py.agent._actions import ACTION_NAMES, output_model
from stagehand_py.agent._checks import answer_problems
from stagehand_py.agent._navigation import domain_allowed, navigation_problem, url_problem

Output = output_model(3)


def parse(*actions: dict[str, object]) -> object:
    return Output.model_validate({"thinking": "t", "next_goal": "g", "actions": list(actions)})


def state() -> AgentState:
    return AgentState(
        step=1,
        max_steps=10,
        url="http://127.0.0.1/",
        tabs=[TabInfo(id=0, url="http://127.0.0.1/", current=True), TabInfo(id=1, url="x")],
        elements={3: '3:<input name="q"></input>', 4: "4:<button>Search</button>"},
    )


def test_every_action_of_the_closed_set_parses() -> None:
    samples = {
        "click": {"index": 1},
        "fill": {"index": 1, "text": "<|EMAIL|>"},
        "type": {"index": 1, "text": "lamp"},
        "select_option": {"index": 1, "option": "Price"},
        "check": {"index": 1},
        "uncheck": {"index": 1},
        "press": {"index": 1, "key": "Enter"},
        "hover": {"index": 1},
        "scroll": {"direction": "down", "pages": 0.5},
        "navigate": {"url": "https://example.com/a"},
        "go_back": {},
        "switch_tab": {"tab": 1},
        "close_tab": {"tab": 1},
        "wait": {"seconds": 2},
        "extract": {"instruction": "the prices", "schema": {"type": "object"}},
        "done": {"success": False, "text": "not found", "data": {"total": 3}},
    }
    assert set(samples) == set(ACTION_NAMES)
    for name, fields in samples.items():
        parsed = parse({"action": name, **fields})
        assert parsed.actions[0].action == name  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        ([{"action": "evaluate", "script": "alert(1)"}], "does not match any of the expected tags"),
        ([{"action": "click", "selector": "#buy"}], "Extra inputs are not permitted"),
        ([{"action": "click"}], "Field required"),
        ([{"action": "click", "index": -1}], "greater than or equal to 0"),
        ([{"action": "done", "text": "ok"}, {"action": "click", "index": 1}], "must be the only"),
        ([{"action": "click", "index": i} for i in range(4)], "at most 3 items"),
        ([], "at least 1 item"),
        ([{"action": "navigate", "url": "javascript:alert(1)"}], "only http and https"),
        ([{"action": "navigate", "url": "file:///etc/passwd"}], "only http and https"),
        ([{"action": "navigate", "url": "data:text/html,<b>x</b>"}], "only http and https"),
        ([{"action": "scroll", "direction": "sideways"}], "'up', 'down', 'top' or 'bottom'"),
    ],
)
def test_invalid_answers_fail_validation_with_a_message_for_the_re_ask(
    actions: list[dict[str, object]], message: str
) -> None:
    with pytest.raises(ValidationError, match=message):
        parse(*actions)


def test_the_schema_sent_to_the_model_carries_the_action_limit() -> None:
    schema = output_model(2).model_json_schema()
    assert schema["properties"]["actions"]["maxItems"] == 2
    assert schema["properties"]["actions"]["minItems"] == 1
    assert output_model(2) is output_model(2)  # one class per limit


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("https://shop.example/cart", None),
        ("http://127.0.0.1:8000/", None),
        ("JavaScript:alert(1)", "only http and https"),
        ("ftp://files.example/x", "only http and https"),
        ("shop.example/cart", "only http and https"),
        ("https://", "has no host"),
        ("http://[::1", "not a valid URL"),
    ],
)
def test_url_problems(url: str, problem: str | None) -> None:
    found = url_problem(url)
    assert (found is None) if problem is None else (problem in (found or ""))


@pytest.mark.parametrize(
    ("url", "patterns", "allowed"),
    [
        ("https://shop.example/a", ["shop.example"], True),
        ("https://SHOP.example./a", ["shop.example"], True),
        ("https://www.shop.example/a", ["*.shop.example"], True),
        ("https://shop.example/a", ["*.shop.example"], True),
        ("https://evilshop.example/a", ["*.shop.example"], False),
        ("https://shop.example@evil.example/a", ["shop.example"], False),
        ("https://shop.example.evil.example/", ["shop.example"], False),
        ("http://127.0.0.1:8000/x", ["127.0.0.1:8000"], True),
        ("http://127.0.0.1:9000/x", ["127.0.0.1:8000"], False),
        ("http://127.0.0.1:9000/x", ["127.0.0.1"], True),
        ("http://shop.example/", ["https://shop.example"], False),
        ("https://anything.example/", ["*"], True),
        ("https://anything.example/", None, True),
    ],
)
def test_allowed_domains_are_glob_patterns_on_the_host(
    url: str, patterns: list[str] | None, allowed: bool
) -> None:
    assert domain_allowed(url, patterns) is allowed


def test_navigation_problem_names_the_host_and_the_patterns() -> None:
    problem = navigation_problem("https://evil.example/x", ["*.shop.example"])
    assert problem == "evil.example is not in allowed_domains (*.shop.example)"


def test_answers_are_checked_against_the_state_they_answer() -> None:
    variables = Variables({"email": "a@b.c"})
    good = parse(
        {"action": "fill", "index": 3, "text": "<|EMAIL|>"}, {"action": "click", "index": 4}
    )
    assert answer_problems(good, state(), variables=variables, allowed_domains=None) == []  # type: ignore[arg-type]
    bad = parse(
        {"action": "click", "index": 9},
        {"action": "fill", "index": 3, "text": "<|PASSWORD|>"},
        {"action": "switch_tab", "tab": 5},
    )
    problems = answer_problems(bad, state(), variables=variables, allowed_domains=None)  # type: ignore[arg-type]
    assert problems == [
        "action 1 (click): element 9 is not in the current state (elements shown: 3-4); "
        "scroll first if it is out of view",
        "action 2 (fill): unknown variable(s) PASSWORD (available: <|EMAIL|>)",
        "action 3 (switch_tab): there is no tab 5 (open tabs: 0, 1)",
    ]
    away = parse({"action": "navigate", "url": "https://evil.example/"})
    [problem] = answer_problems(
        away, state(), variables=variables, allowed_domains=("*.shop.test",)
    )  # type: ignore[arg-type]
    assert "evil.example is not in allowed_domains" in problem
