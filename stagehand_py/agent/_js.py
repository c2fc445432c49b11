"""Browser-side scripts of the agent, shipped as package data next to this module."""

from __future__ import annotations

import functools
from importlib import resources


@functools.cache
def load_agent_js(name: str) -> str:
    """The source of ``stagehand_py/agent/<name>``, read once."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
