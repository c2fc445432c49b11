"""The settings a call may override are typed keywords naming the settings' own fields."""

from __future__ import annotations

from stagehand_py import AgentSettings, Settings, WorkflowSettings
from stagehand_py._limits import AgentLimits, SettingsLimits, WorkflowLimits


def test_each_limits_dict_names_every_field_of_its_settings_model() -> None:
    # The one field each verb takes as its own keyword instead is left out.
    assert set(SettingsLimits.__optional_keys__) == set(Settings.model_fields) - {"instructions"}
    assert set(AgentLimits.__optional_keys__) == set(AgentSettings.model_fields) - {"snapshot"}
    assert set(WorkflowLimits.__optional_keys__) == set(WorkflowSettings.model_fields) - {"sitemap"}
