"""Read a ``.env`` file (pure): ``NAME=value`` lines, the common dialect, no interpolation.

- blank lines and lines starting with ``#`` are skipped; ``export NAME=value`` is accepted;
- ``NAME`` is letters, digits and underscores, not starting with a digit;
- ``"double quoted"`` values understand ``\\n``, ``\\t``, ``\\r``, ``\\"`` and ``\\\\`` and may
  span lines; ``'single quoted'`` values are taken as written and may span lines;
- unquoted values end at a `` #`` comment and are stripped;
- ``${OTHER}`` is kept as written (no interpolation: a value never pulls in another);
- a name given twice keeps its last value;
- a UTF-8 byte-order mark at the start of the file (as some Windows editors write) is skipped.

Errors name the line and what is wrong with it, never the value.
"""

from __future__ import annotations

import re

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}
_BYTE_ORDER_MARK = "\ufeff"


class DotenvError(ValueError):
    """A line of a ``.env`` file that cannot be read (``line`` is 1-based)."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


def _unescape(body: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), "\\" + m.group(1)), body, flags=re.S)


def _quoted(text: str, quote: str, start: int, line: int) -> tuple[str, int]:
    """The quoted value opening at ``text[start]``, and where it ends."""
    position = start + 1
    while position < len(text):
        char = text[position]
        if char == "\\" and quote == '"':
            position += 2
            continue
        if char == quote:
            body = text[start + 1 : position]
            return (_unescape(body) if quote == '"' else body), position + 1
        position += 1
    raise DotenvError(line, f"the value's {quote} quote is never closed")


def parse_dotenv(text: str) -> dict[str, str]:
    """The names and values of a ``.env`` file's text (see the module docstring)."""
    values: dict[str, str] = {}
    text = text.removeprefix(_BYTE_ORDER_MARK)
    position, line = 0, 1
    while position < len(text):
        end = text.find("\n", position)
        end = len(text) if end < 0 else end
        raw = text[position:end]
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            position, line = end + 1, line + 1
            continue
        if stripped.startswith("export ") or stripped.startswith("export\t"):
            stripped = stripped[len("export") :].lstrip()
        name, sep, rest = stripped.partition("=")
        name = name.strip()
        if not sep:
            raise DotenvError(line, "expected NAME=value")
        if not _NAME.match(name):
            raise DotenvError(line, "the name must be letters, digits and underscores")
        rest = rest.lstrip()
        if rest[:1] in ("'", '"'):
            offset = position + raw.index(rest[0], raw.index("="))  # the opening quote
            value, after = _quoted(text, rest[0], offset, line)
            closing = text.find("\n", after)
            closing = len(text) if closing < 0 else closing
            trailing = text[after:closing].strip()
            if trailing and not trailing.startswith("#"):
                raise DotenvError(line, "unexpected text after the closing quote")
            line += text.count("\n", position, closing)
            position = closing + 1
            line += 1
        else:
            value = re.split(r"\s+#", rest, maxsplit=1)[0].strip()
            position, line = end + 1, line + 1
        values[name] = value
    return values
