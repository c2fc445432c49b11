"""Errors read as a Playwright user expects: a timeout is a builtin ``TimeoutError``, an act
error shows its code, and every "no model" error names what to set."""

from __future__ import annotations

import pytest

from stagehand_py import (
    ActError,
    ActResult,
    ActTimeoutError,
    ConfigurationError,
    StagehandTimeoutError,
)
from stagehand_py._async.emergency import WithFallback
from stagehand_py._sync.emergency import WithFallback as SyncWithFallback
from stagehand_py.llm._model_string import no_model_configured


def test_a_stagehand_timeout_is_a_builtin_timeout_error() -> None:
    assert issubclass(StagehandTimeoutError, TimeoutError)
    assert issubclass(ActTimeoutError, TimeoutError)
    with pytest.raises(TimeoutError) as caught:
        raise StagehandTimeoutError("extract() ran out of time after 2 s.")
    assert str(caught.value) == "extract() ran out of time after 2 s."  # not "[Errno ...]"


@pytest.mark.parametrize(
    ("error", "code"), [(ActError, "TARGET_NOT_FOUND"), (ActTimeoutError, "TIMEOUT")]
)
def test_an_act_error_shows_its_code(error: type[ActError], code: str) -> None:
    result = ActResult(success=False, message="No Save button.", instruction="save", code=code)
    raised = error("No Save button.", result)
    assert str(raised) == f"{code}: No Save button."
    assert raised.args == ("No Save button.",)  # the message itself is unchanged
    assert str(error(f"{code}: said once", result)) == f"{code}: said once"


def test_an_act_error_without_a_code_is_its_message() -> None:
    result = ActResult(success=False, message="stopped", instruction="save")
    assert str(ActError("stopped", result)) == "stopped"


@pytest.mark.parametrize("source", [WithFallback, SyncWithFallback], ids=["async", "sync"])
def test_an_act_without_a_model_says_what_to_set(source: type[WithFallback]) -> None:
    with pytest.raises(ConfigurationError) as raised:
        source(primary=None, fallback=None)()
    message = str(raised.value)
    assert message.startswith("act() needs a model, and none is configured.")
    assert "model=" in message and "STAGEHAND_PY_MODEL=" in message


def test_the_no_model_message_names_each_way_to_set_one() -> None:
    message = str(no_model_configured("observe()"))
    for way in ("model=", "llm=", "STAGEHAND_PY_MODEL=", "--stagehand-model", "BASE_URL="):
        assert way in message
