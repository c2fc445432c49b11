"""The browser-side scripts shipped next to this module, read once."""

from __future__ import annotations

import functools
from importlib import resources


@functools.cache
def load_js(name: str) -> str:
    """The source of ``stagehand_py/dom/<name>``, read once.

    ``name`` is a file (``"settle.js"``) or a directory of parts (``"serializer"``): the
    directory's ``.js`` files, in name order, are the body of one ``(options) => {...}``
    function, so they share its scope while each stays small enough to read.
    """
    path = resources.files(__package__).joinpath(name)
    if not path.is_dir():
        return path.read_text(encoding="utf-8")
    parts = sorted((p for p in path.iterdir() if p.name.endswith(".js")), key=lambda p: p.name)
    if not parts:
        raise FileNotFoundError(f"no .js parts in stagehand_py/dom/{name}/")
    body = "\n".join(p.read_text(encoding="utf-8") for p in parts)
    return "(options) => {\n" + body + "\n}"
