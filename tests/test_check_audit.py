"""check()'s strength rules, audited: an assertion on a state the statement does not name
neither says its text nor carries its negation (pure, no browser)."""

from __future__ import annotations

import pytest

from stagehand_py.check import CheckAssertion
from stagehand_py.check._strength import weaker_than


def _a(kind: str, expected: str | int | None = None) -> CheckAssertion:
    return CheckAssertion(kind=kind, selectors=["css=#x"], expected=expected)


@pytest.mark.parametrize(
    ("statement", "assertions", "gap"),
    [
        ("the status says ready", [_a("to_be_enabled")], "text, a value or a count"),
        ("the status text reads ready", [_a("to_be_checked")], "text, a value or a count"),
        ("no error is shown", [_a("to_be_enabled")], "negated"),
        ("the page shows no error", [_a("not_to_be_checked")], "negated"),
        ("the banner is not visible", [_a("to_be_disabled")], "negated"),
    ],
)
def test_an_unnamed_state_is_not_the_statement(
    statement: str, assertions: list[CheckAssertion], gap: str
) -> None:
    why = weaker_than(statement, assertions)
    assert why is not None and gap in why


@pytest.mark.parametrize(
    ("statement", "assertions"),
    [
        ("the checkbox labelled Gift wrap is checked", [_a("to_be_checked")]),
        ("the button named Pay is disabled", [_a("to_be_disabled")]),
        ("the Pay button is not disabled", [_a("to_be_enabled")]),
        ("the newsletter box is not ticked", [_a("not_to_be_checked")]),
        ("the status says ready", [_a("to_contain_text", "ready")]),
        ("no error is shown", [_a("not_to_contain_text", "error")]),
    ],
)
def test_a_named_state_still_compiles(statement: str, assertions: list[CheckAssertion]) -> None:
    assert weaker_than(statement, assertions) is None
