"""Page text inside a line the package writes (a prompt line, a line of generated code).

Python's ``str.splitlines()`` (and many editors and models) end a line at more characters
than ``\\n``: ``\\r``, ``\\x0b``, ``\\x0c``, ``\\x1c``-``\\x1e``, U+0085, U+2028 and U+2029.
A page can put any of them in a title, a name or a placeholder, so page text that goes into a
line of ours passes through here first and cannot start a line of its own.
"""

from __future__ import annotations

import json

# Every character str.splitlines() ends a line at, "\n" included.
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
# The ones json.dumps(ensure_ascii=False) leaves as they are (it escapes the others).
_UNESCAPED_BY_JSON = {"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def one_line(text: str) -> str:
    """``text`` with every run of whitespace (line breaks of any kind included) as one space."""
    return " ".join(text.split())


def python_literal(text: str) -> str:
    """A one-line Python string literal for ``text`` (JSON's escapes are Python's)."""
    literal = json.dumps(text, ensure_ascii=False)
    for char, escape in _UNESCAPED_BY_JSON.items():
        literal = literal.replace(char, escape)
    return literal
