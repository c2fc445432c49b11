"""Emergency-mode triggers without a browser: the ADR's numbers, the clock the caller gives,
the order of the triggers, and what escalating switches."""

from __future__ import annotations

import pytest

from stagehand_py._async.agent.think import AsyncBoundedLLM
from stagehand_py._async.emergency import ActEmergency, AsyncEmergency
from stagehand_py._emergency import (
    EmergencyMonitor,
    EmergencySettings,
    changes_anything,
    plan_escalation,
)
from stagehand_py.agent._clock import RunClock
from stagehand_py.testing import AsyncScriptedLLM

NOTHING = (
    "nothing could be switched: no fallback_model is configured and the page is already read as DOM"
)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_three_failures_in_a_row_and_a_success_resets_them() -> None:
    monitor = EmergencyMonitor(now=Clock())
    for _ in range(2):
        monitor.attempt(ok=False)
    assert monitor.trigger() is None
    monitor.attempt(ok=True)
    monitor.attempt(ok=False)
    monitor.attempt(ok=False)
    assert monitor.trigger() is None
    monitor.attempt(ok=False)
    assert monitor.trigger() == ("failures", "3 failed attempts in a row")


def test_thirty_seconds_without_progress_on_the_callers_clock() -> None:
    clock = Clock()
    monitor = EmergencyMonitor(now=clock)
    clock.now += 29.5
    assert monitor.trigger() is None
    monitor.progress()
    clock.now += 29.9
    assert monitor.trigger() is None
    clock.now += 0.1
    assert monitor.trigger() == ("stall", "no progress for 30 s (limit 30 s)")


def test_low_confidence_needs_a_full_window_and_failures_count_zero() -> None:
    monitor = EmergencyMonitor(now=Clock())
    for confidence in (0.2, 0.1, 0.4, 0.2):
        monitor.attempt(ok=True, confidence=confidence)
    assert monitor.trigger() is None  # four attempts: the window is five
    monitor.attempt(ok=True, confidence=None)  # no confidence given: not averaged
    assert monitor.average_confidence() == pytest.approx(0.225)
    trigger = monitor.trigger()
    assert trigger is not None and trigger[0] == "low_confidence"
    assert trigger[1] == "average confidence 0.23 over the last 5 attempts (limit 0.3)"
    # Only the last five count: confident attempts push the low ones out.
    for _ in range(4):
        monitor.attempt(ok=True, confidence=0.9)
    assert monitor.trigger() is None
    monitor.attempt(ok=False)
    assert monitor.average_confidence() == pytest.approx(0.72)  # (0.9 x 4 + 0) / 5


def test_failures_come_first_and_reset_starts_an_item_afresh() -> None:
    clock = Clock()
    monitor = EmergencyMonitor(EmergencySettings(max_failures=2, stall_s=5), now=clock)
    monitor.attempt(ok=False)
    monitor.attempt(ok=False)
    clock.now += 60
    assert monitor.trigger() is not None and monitor.trigger()[0] == "failures"  # type: ignore[index]
    monitor.reset()
    assert monitor.trigger() is None and monitor.attempts == 0


def test_a_model_that_gives_no_confidence_is_judged_on_failures_only() -> None:
    monitor = EmergencyMonitor(now=Clock())
    for ok in (True, True, False, True, True, False):
        monitor.attempt(ok=ok)
    assert monitor.trigger() is None


def test_disabled_never_triggers() -> None:
    monitor = EmergencyMonitor(EmergencySettings(enabled=False), now=Clock())
    for _ in range(10):
        monitor.attempt(ok=False)
    assert monitor.trigger() is None


def test_the_plan_switches_model_and_view_or_says_what_it_could_not() -> None:
    full = plan_escalation(
        "stall", "no progress", attempt=4, model="small", fallback_model="large", view="aria"
    )
    assert full.model_switched and (full.model_after, full.view_after) == ("large", "dom")
    assert full.note == ""
    assert full.line() == (
        "emergency at attempt 4 [stall: no progress]: model small -> large, view aria -> dom"
    )
    view_only = plan_escalation(
        "failures", "3 failed", attempt=4, model="small", fallback_model=None, view="aria"
    )
    assert not view_only.model_switched and view_only.model_after == "small"
    assert view_only.note == "no fallback_model is configured: the model stays"
    nothing = plan_escalation(
        "failures", "3 failed", attempt=4, model="small", fallback_model=None, view="dom"
    )
    assert "nothing switched" in nothing.line()
    assert not changes_anything(nothing) and nothing.note == NOTHING


def test_an_escalation_that_can_switch_nothing_is_still_recorded_once() -> None:
    # act(): already DOM, no fallback. Recorded, but the loop is not started over (None).
    act = ActEmergency(EmergencySettings(), None, "dom")
    for _ in range(3):
        act.attempt(ok=False)
    assert act.escalate(4, "small") is None
    [recorded] = act.escalations
    assert (recorded.trigger, recorded.attempt, recorded.note) == ("failures", 4, NOTHING)
    assert not recorded.model_switched and recorded.view_after == "dom"
    assert act.escalate(5, "small") is None and len(act.escalations) == 1

    # The agent (and a checklist item): recorded and returned; model and view stay.
    primary = AsyncBoundedLLM(AsyncScriptedLLM(model="small"), RunClock(60, 60), 60)
    agent = AsyncEmergency(EmergencySettings(), primary, None, "dom")
    for _ in range(3):
        agent.monitor.attempt(ok=False)
    assert not agent.pending()  # nothing to switch: the run does not wait for it
    recorded = agent.escalate(4)
    assert recorded is not None and recorded.note == NOTHING
    assert agent.escalations == [recorded]
    assert agent.llm is primary and agent.view == "dom"
    assert agent.escalate(5) is None and len(agent.escalations) == 1
