"""Approvers without a browser: the console approver's four answers, rule matching, and the
check on what a callback returns."""

from __future__ import annotations

import io

import pytest

from stagehand_py import ConfigurationError
from stagehand_py.agent import (
    AgentState,
    ApprovalRule,
    Approve,
    Cancel,
    ConsoleApprover,
    Retry,
    RuleApprover,
    Skip,
)
from stagehand_py.agent._actions import output_model
from stagehand_py.agent._approval import check_decision

STATE = AgentState(
    step=4,
    max_steps=50,
    url="http://127.0.0.1/cart.html",
    elements={
        0: "0:<a href='index.html'>Continue shopping</a>",
        5: "5:<button>Delete Paper lantern lamp</button>",
        6: "6:<button id='pay'>Pay now</button>",
        7: '7:<input name="email" value="<|EMAIL|>"></input>',
    },
    time_left_s=30,
)


def proposal(*actions: dict[str, object]) -> object:
    return output_model(3).model_validate({"next_goal": "pay", "actions": list(actions)})


PAY = proposal({"action": "fill", "index": 7, "text": "<|EMAIL|>"}, {"action": "click", "index": 6})


@pytest.mark.parametrize(
    ("typed", "decision"),
    [
        ("a\n", Approve()),
        ("yes\n", Approve()),
        ("s\n", Skip("skipped on the console")),
        ("c\n", Cancel("cancelled on the console")),
        ("r\nuse the other button\n", Retry("use the other button")),
        ("x\nA\n", Approve()),  # an unknown answer is asked again
        ("", Cancel("no answer before the run's time ran out")),  # end of input
    ],
)
def test_console_approver_answers(typed: str, decision: object) -> None:
    shown = io.StringIO()
    approver = ConsoleApprover(input=io.StringIO(typed), output=shown)
    assert approver(4, PAY, STATE) == decision  # type: ignore[arg-type]
    printed = shown.getvalue()
    # Every proposed action is shown before any runs, secrets as placeholders only.
    assert "Step 4 on http://127.0.0.1/cart.html" in printed and "Goal: pay" in printed
    assert (
        '1. fill [7] <input name="email" value="<|EMAIL|>"></input> text=\'<|EMAIL|>\'' in printed
    )
    assert "2. click [6] <button id='pay'>Pay now</button>" in printed
    assert "[a]pprove [r]etry [s]kip [c]ancel? " in printed


def test_rule_approver_asks_only_when_a_rule_matches() -> None:
    asked: list[int] = []

    def ask(step: int, output: object, state: AgentState) -> Retry:
        asked.append(step)
        return Retry("not yet")

    approver = RuleApprover.for_clicks("pay|delete|submit", ask=ask)
    browse = proposal({"action": "click", "index": 0})
    assert approver(3, browse, STATE) == Approve()  # type: ignore[arg-type]
    assert approver(4, PAY, STATE) == Retry("not yet")  # type: ignore[arg-type]
    delete = proposal({"action": "click", "index": 5})
    assert approver(5, delete, STATE) == Retry("not yet")  # type: ignore[arg-type]
    assert asked == [4, 5]
    assert approver.asked == [
        ["click [6] <button id='pay'>Pay now</button>"],
        ["click [5] <button>Delete Paper lantern lamp</button>"],
    ]


def test_rules_combine_action_element_and_text_conditions() -> None:
    typing_email = ApprovalRule(actions=("fill", "type"), text=r"<\|EMAIL\|>")
    assert typing_email.matches(PAY, STATE) == [  # type: ignore[arg-type]
        'fill [7] <input name="email" value="<|EMAIL|>"></input> text=\'<|EMAIL|>\''
    ]
    leaving = ApprovalRule(actions=("navigate",), text=r"^https?://(?!127\.0\.0\.1)")
    go = proposal({"action": "navigate", "url": "https://elsewhere.example/"})
    assert leaving.matches(go, STATE) == ["navigate url='https://elsewhere.example/'"]  # type: ignore[arg-type]
    assert ApprovalRule(element="pay").matches(go, STATE) == []  # type: ignore[arg-type]


def test_bad_rules_and_bad_decisions_are_configuration_errors() -> None:
    with pytest.raises(ConfigurationError, match="not a valid regular expression"):
        ApprovalRule(element="pay(")
    with pytest.raises(ConfigurationError, match="at least one ApprovalRule"):
        RuleApprover([])
    with pytest.raises(ConfigurationError, match="returned bool; it must return Approve"):
        check_decision(True)
    assert check_decision(Skip()) == Skip()
