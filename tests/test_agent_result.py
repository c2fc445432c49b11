"""The run's record without a browser: save/load with screenshots beside the JSON, the history
entry, the clock, and agent settings."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from playwright.sync_api import Page

from stagehand_py import ConfigurationError, Settings
from stagehand_py.agent import ActionOutcome, AgentResult, AgentSettings, StepRecord
from stagehand_py.agent._clock import RunClock, RunTimedOut, StepTimedOut
from stagehand_py.agent._history import call_record
from stagehand_py.llm import Usage

NOW = datetime(2025, 1, 1, tzinfo=timezone.utc)


def result() -> AgentResult:
    step = StepRecord(
        number=1,
        started_at=NOW,
        ended_at=NOW,
        url="http://127.0.0.1/checkout.html",
        output={"next_goal": "fill", "actions": [{"action": "fill", "index": 2}]},
        results=[
            ActionOutcome(
                action="fill",
                params={"index": 2, "text": "<|EMAIL|>"},
                description="fill [2] <input> text='<|EMAIL|>'",
                selector="xpath=//input[@name='email']",
            ),
            ActionOutcome(action="click", status="not_run", note="an earlier action failed"),
        ],
        usage=Usage(requests=1, prompt_tokens=120, completion_tokens=30),
        screenshot=b"\x89PNG fake",
    )
    failed = StepRecord(number=2, started_at=NOW, error="the model request failed: 500")
    return AgentResult(
        task="sign up with <|EMAIL|>",
        success=False,
        final_text="Stopped",
        data={"fields": 1},
        reason="max_failures",
        steps=[step, failed],
        usage=Usage(requests=2, prompt_tokens=300, completion_tokens=40),
        started_at=NOW,
        ended_at=NOW,
        duration_s=3.5,
        conversation=[{"kind": "system", "role": "system", "content": "...", "images": 0}],
        page=object(),
    )


def test_save_writes_json_and_screenshots_beside_it_and_load_reads_them_back(
    tmp_path: Path,
) -> None:
    original = result()
    path = original.save(tmp_path / "runs" / "signup.json")
    saved = json.loads(path.read_text("utf-8"))
    assert saved["reason"] == "max_failures" and "page" not in saved
    assert saved["steps"][0]["screenshot_file"] == "signup_screenshots/step_001.png"
    assert "screenshot" not in saved["steps"][0]  # bytes never inlined
    assert saved["steps"][0]["timings"]["sdk_s"] == 0.0
    assert (tmp_path / "runs" / "signup_screenshots" / "step_001.png").read_bytes() == (
        b"\x89PNG fake"
    )
    loaded = AgentResult.load(path)
    assert loaded.steps[0].screenshot == b"\x89PNG fake"
    assert loaded.model_dump(exclude={"steps"}) == original.model_dump(exclude={"steps"})
    assert [s.results for s in loaded.steps] == [s.results for s in original.steps]
    assert loaded.page is None


def test_load_and_save_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="Cannot read an agent result"):
        AgentResult.load(tmp_path / "missing.json")
    (tmp_path / "other.json").write_text('{"hello": 1}')
    with pytest.raises(ConfigurationError, match="is not a saved agent result"):
        AgentResult.load(tmp_path / "other.json")
    (tmp_path / "a_file").write_text("x")
    with pytest.raises(ConfigurationError, match="Cannot save the agent result"):
        result().save(tmp_path / "a_file" / "run.json")


def test_a_step_fails_on_its_error_or_on_its_last_action_that_ran() -> None:
    ran = result().steps
    assert not ran[0].failed  # the failed-and-not-run click does not count; the fill was ok
    assert ran[1].failed
    bad = StepRecord(number=3, started_at=NOW, results=[ActionOutcome(action="x", status="error")])
    assert bad.failed


def test_the_run_becomes_one_history_entry_with_every_action() -> None:
    record = call_record(result())
    assert record.kind == "agent" and not record.success
    assert record.message == "max_failures: Stopped"
    assert [a.method for a in record.actions] == ["fill", "click"]
    summary = record.summary()
    assert "agent('sign up with <|EMAIL|>') -> FAILED" in summary
    assert "step 1: fill [2] <input> text='<|EMAIL|>' -> ok" in summary
    assert "step 1: click -> not run (an earlier action failed)" in summary
    text = result().summary()
    assert "step 2: " in text and "error: the model request failed: 500" in text


def test_the_clock_ends_steps_and_runs() -> None:
    now = [100.0]
    clock = RunClock(timeout_s=10, step_timeout_s=3, now=lambda: now[0])
    clock.start_step()
    now[0] = 102.0
    clock.check()
    assert clock.cap_ms(5000) == pytest.approx(1000)
    clock.extend_step(2)  # paused for two seconds
    now[0] = 104.0
    clock.check()
    now[0] = 105.5
    with pytest.raises(StepTimedOut, match="step_timeout_s=3"):
        clock.check()
    now[0] = 110.0
    with pytest.raises(RunTimedOut):
        clock.check_run()


def test_agent_settings_defaults_and_bad_values() -> None:
    settings = AgentSettings()
    assert (settings.max_steps, settings.max_actions_per_step, settings.max_failures) == (50, 3, 3)
    assert settings.use_vision is False
    assert Settings().agent == settings
    assert settings.updated(allowed_domains="*.shop.test").allowed_domains == ("*.shop.test",)
    for bad in (
        {"max_steps": 0},
        {"max_actions_per_step": 0},
        {"timeout_s": -1},
        {"use_vision": "sometimes"},
        {"allowed_domains": []},
        {"allowed_domains": [" "]},
        {"max_step": 5},
    ):
        with pytest.raises(ConfigurationError, match="Invalid agent setting"):
            settings.updated(**bad)
    with pytest.raises(ConfigurationError, match=r"agent\.max_failures"):
        Settings().updated(agent={"max_failures": 0})


def test_bad_agent_calls_fail_early_with_configuration_errors() -> None:
    from stagehand_py import Stagehand
    from stagehand_py.testing import FunctionLLM

    sh = Stagehand(llm=FunctionLLM())
    # A stand-in page that passes the page checks; nothing is ever done on it (the other
    # checks come first). A non-page object is refused before anything else.
    page: Any = mock.create_autospec(Page, instance=True)
    page.is_closed.return_value = False
    page.url = "https://shop.example/"
    with pytest.raises(ConfigurationError, match=r"needs a playwright\.sync_api Page, got"):
        sh.agent(object(), "buy a lamp")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="agent\\(\\) needs an instruction"):
        sh.agent(page, "  ")
    with pytest.raises(ConfigurationError, match="max_steps: Input should be greater"):
        sh.agent(page, "buy a lamp", max_steps=0)
    with pytest.raises(ConfigurationError, match="max_step: Extra inputs are not permitted"):
        sh.agent(page, "buy a lamp", max_step=5)
    with pytest.raises(ConfigurationError, match="Variable name 'e mail' is not valid"):
        sh.agent(page, "buy a lamp", variables={"e mail": "x"})
