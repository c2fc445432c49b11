"""Spending caps without a browser: the estimate of a request, the ledgers, holds and
refusals, the checks of the values, and the settings and environment variables."""

from __future__ import annotations

import threading

import pytest

from stagehand_py import BudgetExceededError, ConfigurationError, PriceTable, Settings, Usage
from stagehand_py.llm import ImagePart, Message, RequestOptions, ToolCall
from stagehand_py.llm._caps import (
    Budget,
    Estimate,
    Ledger,
    call_label,
    check_next_request,
    checked_caps,
    estimate_request,
    in_flight,
    scope_cap,
)
from stagehand_py.llm._options import DEFAULT_MAX_TOKENS

PRICES = PriceTable.of({"m": {"input": 1.0, "output": 2.0}})  # $ per million tokens


def _budget(*caps_of: tuple[str, Ledger, float | None, int | None]) -> Budget:
    caps = [scope_cap(scope, ledger, usd, tokens) for scope, ledger, usd, tokens in caps_of]
    return Budget(caps, prices=PRICES, call="act('log in')")


def test_an_estimate_counts_text_pictures_tools_and_the_whole_answer_budget() -> None:
    text = Message(role="user", content="x" * 400)  # 100 tokens at four characters each
    picture = Message(role="user", images=[ImagePart(data=b"png")])
    called = Message(
        role="assistant", tool_calls=[ToolCall(id="1", name="act", arguments={"a": 1})]
    )
    plain = estimate_request([text], RequestOptions(kind="act", max_tokens=300))
    assert plain == Estimate(prompt_tokens=104, answer_tokens=300)  # 4: the message's frame
    with_more = estimate_request(
        [text, picture, called],
        RequestOptions(kind="act", max_tokens=300),
        tools_text="t" * 40,
        image_tokens=500,
    )
    assert with_more.prompt_tokens == 104 + (4 + 500) + (4 + 3) + 10
    # No budget of its own: the default of its kind (what the providers send).
    extract = estimate_request([text], RequestOptions(kind="extract"))
    assert extract.answer_tokens == DEFAULT_MAX_TOKENS["extract"]
    assert estimate_request([text], None).answer_tokens == DEFAULT_MAX_TOKENS["other"]


def test_a_request_past_a_cap_is_refused_and_names_the_call_the_cap_and_the_spending() -> None:
    stagehand = Ledger()
    budget = _budget(("call", Ledger(), None, None), ("Stagehand", stagehand, 0.01, None))
    first = budget.admit("m", Estimate(4000, 1000), "act")  # up to $0.006
    first.settle(Usage(requests=1, prompt_tokens=3000, completion_tokens=500))  # $0.004
    assert stagehand.usd == pytest.approx(0.004) and stagehand.held.usd == 0

    with pytest.raises(BudgetExceededError) as refused:
        budget.admit("m", Estimate(5000, 1000), "verify")  # up to $0.007: past $0.01

    error = refused.value
    assert (error.cap, error.scope, error.call) == ("max_cost_usd", "Stagehand", "act('log in')")
    assert error.limit == 0.01
    assert error.spent == pytest.approx(0.004) and error.request == pytest.approx(0.007)
    assert error.usage == Usage()  # nothing of this model call was sent
    message = str(error)
    assert message.startswith("act('log in'): a model request (verify) was not sent")
    assert "up to $0.007000" in message and "$0.004000 spent so far" in message
    assert "this Stagehand past its max_cost_usd of $0.0100" in message
    assert "STAGEHAND_PY_MAX_COST_USD" in message
    assert stagehand.held.usd == 0  # a refused request holds nothing


def test_requests_in_flight_hold_their_worst_case_so_concurrent_calls_cannot_cross() -> None:
    shared = Ledger()
    one = _budget(("call", Ledger(), None, None), ("Stagehand", shared, None, 3000))
    two = _budget(("call", Ledger(), None, None), ("Stagehand", shared, None, 3000))
    held = one.admit("m", Estimate(1000, 1000), "extract")
    with pytest.raises(BudgetExceededError, match="2,000 tokens of it held by requests in flight"):
        two.admit("m", Estimate(500, 1000), "extract")
    held.settle(Usage(requests=1, prompt_tokens=900, completion_tokens=100))
    two.admit("m", Estimate(500, 1000), "extract")  # 1,000 spent + 1,500 now fits
    assert shared.usage.total_tokens == 1000 and shared.held.tokens == 1500
    assert (shared.calls, one.caps[0].ledger.calls) == (2, 1)


def test_holds_from_many_threads_never_cross_the_cap() -> None:
    shared = Ledger()
    admitted: list[bool] = []

    def ask() -> None:
        budget = _budget(("call", Ledger(), None, None), ("Stagehand", shared, None, 10_000))
        try:
            budget.admit("m", Estimate(500, 500), "act")
        except BudgetExceededError:
            admitted.append(False)
        else:
            admitted.append(True)

    threads = [threading.Thread(target=ask) for _ in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert admitted.count(True) == 10 and shared.held.tokens == 10_000


def test_a_further_request_of_one_model_call_is_checked_with_what_the_call_spent() -> None:
    call = Ledger()
    budget = _budget(("call", call, None, 5000), ("Stagehand", Ledger(), None, None))
    reservation = budget.admit("m", Estimate(1500, 1000), "extract")
    with in_flight(reservation):
        check_next_request(Usage())  # the first request: already held
        check_next_request(Usage(requests=1))  # a retry of a request that cost nothing
        check_next_request(Usage(requests=1, prompt_tokens=1500, completion_tokens=900))
        assert call.held.tokens == 2400 + 2500
        with pytest.raises(BudgetExceededError) as refused:
            check_next_request(Usage(requests=2, prompt_tokens=3000, completion_tokens=1800))
    error = refused.value
    assert error.usage.requests == 2  # what the model call sent before the refusal
    assert error.spent == 4800 and error.request == 2500
    assert "a further model request (extract, after 2 sent)" in str(error)
    reservation.settle(error.usage)
    assert call.usage.total_tokens == 4800 and call.held.tokens == 0
    check_next_request(Usage(requests=5, prompt_tokens=10**6))  # outside a call: no caps


def test_a_cost_cap_needs_a_price_for_the_model() -> None:
    budget = Budget(
        [scope_cap("call", Ledger(), 0.5, None)], prices=PRICES, call="extract('the price')"
    )
    with pytest.raises(ConfigurationError, match=r"no price for 'other-model'.*PriceTable\.of"):
        budget.admit("other-model", Estimate(10, 10), "extract")
    unpriced = Budget([scope_cap("call", Ledger(), None, 100)], prices=None)
    held = unpriced.admit("other-model", Estimate(10, 10), "extract")  # tokens need no price
    held.settle(Usage(requests=1, prompt_tokens=10))
    assert unpriced.caps[0].ledger.unpriced == 1


@pytest.mark.parametrize(
    ("usd", "tokens", "problem"),
    [
        (0, None, "max_cost_usd takes a positive number"),
        (-1.0, None, "max_cost_usd takes a positive number"),
        ("5", None, "max_cost_usd takes a positive number"),
        (True, None, "max_cost_usd takes a positive number"),
        (None, 0, "max_total_tokens takes a positive whole number"),
        (None, 1.5, "max_total_tokens takes a positive whole number"),
    ],
)
def test_bad_caps_are_configuration_errors(usd: object, tokens: object, problem: str) -> None:
    with pytest.raises(ConfigurationError, match=problem):
        checked_caps(usd, tokens)


def test_good_caps_pass_and_calls_are_named_briefly() -> None:
    assert checked_caps(1, 500) == (1.0, 500)
    assert checked_caps(None, None) == (None, None)
    assert call_label("act", "log in") == "act('log in')"
    assert call_label("observe", "") == "observe()"
    assert call_label("extract", "word " * 30).endswith("...')")


def test_the_stagehands_caps_are_settings_with_environment_variables() -> None:
    settings = Settings.from_env(
        environ={"STAGEHAND_PY_MAX_COST_USD": "2.5", "STAGEHAND_PY_MAX_TOTAL_TOKENS": "90000"}
    )
    assert (settings.max_cost_usd, settings.max_total_tokens) == (2.5, 90000)
    with pytest.raises(ConfigurationError, match="STAGEHAND_PY_MAX_COST_USD='-1'"):
        Settings.from_env(environ={"STAGEHAND_PY_MAX_COST_USD": "-1"})
    with pytest.raises(ConfigurationError, match="STAGEHAND_PY_MAX_TOTAL_TOKENS='lots'"):
        Settings.from_env(environ={"STAGEHAND_PY_MAX_TOTAL_TOKENS": "lots"})
