"""Bad input to the public API: typed errors naming what was wrong (no browser needed)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from stagehand_py import ConfigurationError, ObserveResult, Stagehand
from stagehand_py._inputs import (
    check_action,
    check_observed,
    check_placeholders,
    check_schema,
    check_timeout,
)
from stagehand_py._variables import Variables
from stagehand_py.testing import ScriptedLLM
from tests import secret_values


@pytest.mark.parametrize(
    "bad",
    [
        [("email", secret_values.EMAIL)],
        secret_values.EMAIL,
        {secret_values.EMAIL},
        ("email", secret_values.EMAIL),
    ],
    ids=["list", "string", "set", "tuple"],
)
def test_variables_must_be_a_mapping(bad: object) -> None:
    with pytest.raises(ConfigurationError, match="variables must be a mapping") as caught:
        Variables(bad)  # type: ignore[arg-type]
    assert type(bad).__name__ in str(caught.value)
    assert secret_values.EMAIL not in str(caught.value)


@pytest.mark.parametrize("bad", [None, "https://example.com", 42, object()])
def test_act_through_the_stagehand_needs_a_page(bad: object) -> None:
    stagehand = Stagehand(llm=ScriptedLLM())
    for call in (
        lambda: stagehand.act(bad, "click the button"),  # type: ignore[arg-type]
        lambda: stagehand.extract(bad, "the title"),  # type: ignore[arg-type]
        lambda: stagehand.observe(bad, "the button"),  # type: ignore[arg-type]
    ):
        with pytest.raises(ConfigurationError, match=r"Stagehand\.\w+\(\) needs a playwright"):
            call()


@pytest.mark.parametrize("bad", [None, 42, ["click"], {"method": "click"}])
def test_act_needs_an_instruction_or_an_observe_result(bad: object) -> None:
    with pytest.raises(ConfigurationError, match="as a string, not"):
        check_action(bad)


def test_an_undefined_placeholder_in_the_instruction_is_refused() -> None:
    variables = Variables({"query": "lamp"})
    check_placeholders("act", "search for %query% and <|QUERY|>", variables)
    for text in ("search for %qeury%", "type <|EMAIL|> here"):
        with pytest.raises(ConfigurationError, match="undefined variable") as caught:
            check_placeholders("act", text, variables)
        assert "<|QUERY|>" in str(caught.value)  # says what was given


def test_the_model_writing_an_undefined_percent_placeholder_is_caught() -> None:
    assert Variables({"query": "x"}).unknown_placeholders("%password% and %query%") == ["PASSWORD"]
    assert Variables().unknown_placeholders("50% off, 100%") == []


@pytest.mark.parametrize(
    ("observed", "message"),
    [
        (ObserveResult(selector="xpath=//input", description="x", method="fill"), "needs 1"),
        (ObserveResult(selector="xpath=//input", description="x", method="press"), "needs 1"),
        (
            ObserveResult(selector="xpath=//a", description="x", method="click", arguments=["y"]),
            "needs 0",
        ),
        (ObserveResult(selector="xpath=//a", description="x", method="evaluate"), "not one"),
        (
            ObserveResult(
                selector="xpath=//input", description="x", method="fill", arguments=["<|NOPE|>"]
            ),
            "undefined variable",
        ),
    ],
)
def test_observe_results_are_checked_before_running(observed: ObserveResult, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        check_observed(observed, Variables())


def test_extract_schema_must_be_a_model_with_fields() -> None:
    class Product(BaseModel):
        name: str

    check_schema(Product)
    check_schema({"type": "object"})
    check_schema(None)
    with pytest.raises(ConfigurationError, match="pydantic's base class"):
        check_schema(BaseModel)
    with pytest.raises(ConfigurationError, match="pass the class"):
        check_schema(Product(name="x"))


@pytest.mark.parametrize(
    "bad",
    [
        0,
        -1,
        float("nan"),
        float("inf"),
        "5",
        True,
        10**400,
        -(10**400),
        pytest.param(10**5000, id="huge"),
    ],
)
def test_timeouts_are_positive_numbers(bad: object) -> None:
    with pytest.raises(ConfigurationError, match="positive number of seconds"):
        check_timeout("extract", bad)
    assert check_timeout("extract", None) is None
    assert check_timeout("observe", 2) == 2.0
