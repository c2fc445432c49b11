"""The browser-side scripts shipped next to this module, read once."""

from __future__ import annotations

import functools
from importlib import resources
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.abc import Traversable

# A part whose first line is this comment stands for the parts it names (a file or a
# directory, relative to this package): code two scripts share is written once.
_INCLUDE = "// include: "


def _parts(path: Traversable) -> list[str]:
    """The sources of the ``.js`` parts of a directory, in name order, includes expanded."""
    names = sorted((p for p in path.iterdir() if p.name.endswith(".js")), key=lambda p: p.name)
    if not names:
        raise FileNotFoundError(f"no .js parts in stagehand_py/dom/{path.name}/")
    sources: list[str] = []
    for part in names:
        text = part.read_text(encoding="utf-8")
        if text.startswith(_INCLUDE):
            shared = resources.files(__package__).joinpath(text.splitlines()[0][len(_INCLUDE) :])
            sources += _parts(shared) if shared.is_dir() else [shared.read_text(encoding="utf-8")]
        else:
            sources.append(text)
    return sources


@functools.cache
def load_js(name: str) -> str:
    """The source of ``stagehand_py/dom/<name>``, read once.

    ``name`` is a file (``"scroll.js"``) or a directory of parts (``"serializer"``): the
    directory's ``.js`` files, in name order, are the body of one ``(options) => {...}``
    function, so they share its scope while each stays small enough to read. A part whose
    first line is ``// include: shared/clickable.js`` stands for that file (or directory),
    which several scripts share.
    """
    path = resources.files(__package__).joinpath(name)
    if not path.is_dir():
        return path.read_text(encoding="utf-8")
    return "(options) => {\n" + "\n".join(_parts(path)) + "\n}"
