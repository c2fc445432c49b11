"""The browser-side script shipped next to this module, read once."""

from __future__ import annotations

import functools
from importlib import resources


@functools.cache
def load_js(name: str) -> str:
    """The source of ``stagehand_py/extract/<name>``, read once."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
