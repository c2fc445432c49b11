"""The base of the settings models (``Settings``, ``AgentSettings``, ``WorkflowSettings``):
frozen, no unknown fields, and a bad value is a :class:`ConfigurationError` naming it."""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from ._errors import ConfigurationError

S = TypeVar("S", bound="SettingsModel")


class SettingsModel(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    # Which settings these are in messages: "agent" gives "Invalid agent setting(s): ...".
    _settings_of: ClassVar[str] = ""

    @classmethod
    def checked(cls: type[S], values: dict[str, Any]) -> S:
        """Validate ``values``; a bad or unknown setting is a :class:`ConfigurationError`."""
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or cls._settings_of}: {err['msg']}"
                for err in exc.errors()
            )
            known = ", ".join(cls.model_fields)
            kind = f"{cls._settings_of} " if cls._settings_of else ""
            raise ConfigurationError(
                f"Invalid {kind}setting(s): {problems}. Known {kind}settings: {known}."
            ) from None

    def updated(self: S, **changes: Any) -> S:
        """A copy with ``changes`` applied and validated (this one when there are none)."""
        if not changes:
            return self
        return self.checked({**self.model_dump(), **changes})
