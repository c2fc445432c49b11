"""The settings a call may override are typed keywords naming the settings' own fields."""

from __future__ import annotations

from stagehand_py import AgentSettings, Settings, WorkflowSettings
from stagehand_py._async.options import (
    ActOptions,
    AgentOptions,
    ExtractOptions,
    ObserveOptions,
    SpendingCaps,
    WorkflowOptions,
    limits_in,
)
from stagehand_py._limits import AgentLimits, SettingsLimits, WorkflowLimits


def test_each_limits_dict_names_every_field_of_its_settings_model() -> None:
    # The fields a verb takes as its own keywords instead are left out: act's instructions,
    # and the spending caps every verb takes (the call's own caps, not the Stagehand's).
    own = {"instructions", *SpendingCaps.__optional_keys__}
    assert set(SettingsLimits.__optional_keys__) == set(Settings.model_fields) - own
    assert set(AgentLimits.__optional_keys__) == set(AgentSettings.model_fields) - {"snapshot"}
    assert set(WorkflowLimits.__optional_keys__) == set(WorkflowSettings.model_fields) - {"sitemap"}


def test_every_verb_takes_the_spending_caps_as_its_own_keywords() -> None:
    caps = set(SpendingCaps.__optional_keys__)
    assert caps == {"max_cost_usd", "max_total_tokens"}
    for options in (ActOptions, ExtractOptions, ObserveOptions, AgentOptions, WorkflowOptions):
        assert caps <= set(options.__optional_keys__), options.__name__
    # A call's cap never becomes a settings override (that would be the Stagehand's cap).
    assert limits_in({"max_cost_usd": 0.1, "max_total_tokens": 9, "max_steps": 3}) == {
        "max_steps": 3
    }
