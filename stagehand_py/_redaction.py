"""Find secret values in text in every form they take on the way out, and replace them.

A value typed into a page comes back changed: percent-encoded in a URL (``ada%40example.com``,
``+`` for spaces, lower- or upper-case hex, encoded twice in a redirect), entity-encoded in
HTML (``&#64;``, ``&quot;``), escaped in JSON (``\\u00e9``, ``\\"``) or in a regular
expression (``ada\\.lovelace``, in a pattern's repr too), with its quotes turned into other
quotes, its whitespace collapsed or dropped, its letters in another case. One
pattern per value accepts each of those forms character by character, so a page, a URL, a
log line or a trace file cannot carry the value past :meth:`Redactor.redact`.

Short values would match everywhere (a one-character PIN hides every ``1`` of a page), so a
value shorter than :data:`SHORT_VALUE_CHARS` is redacted only as a whole token (not inside a
longer word or number) and never inside the package's own numbering and markup (``12:``,
``<h1``, ``name="``, ``<|EMAIL|>``): the page stays readable and its element numbers intact.
"""

from __future__ import annotations

import bisect
import html.entities
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import quote, quote_plus

# Values shorter than this are redacted only as whole tokens, outside the package's markup.
SHORT_VALUE_CHARS = 6
# Longer values get their literal encoded forms only (a per-character pattern would be slow).
PATTERN_MAX_CHARS = 512
# Longer values still (bulk text rather than secrets) are matched exactly, with str.replace.
FORMS_MAX_CHARS = 1 << 16

_QUOTES = "\"'`\u2018\u2019\u201c\u201d"
# A space escaped by a backslash (a regex's re.escape, once or in its repr) counts too.
_WHITESPACE = (
    r"(?:\s|\+|%20|%2520|%09|%0A|%0D|&nbsp;|&#0*160;|&#x0*a0;|%C2%A0|\\[ntr]|\\u00a0|\\{1,2} )*"
)
# The package's own numbering and markup in rendered page text and step descriptions: an
# element number at a line start or before a tag, a tag name, an attribute name, a placeholder.
_MARKUP = re.compile(
    r"(?m)^\d+:|\b\d+:(?=<[A-Za-z])|</?[A-Za-z][\w:.-]*|(?<=\s)[A-Za-z_:][\w:.-]*(?==\")"
)
_PLACEHOLDER = re.compile(r"<\|[A-Za-z_]\w*\|>")


@lru_cache(maxsize=1)
def _entity_names() -> dict[str, list[str]]:
    """Each character's named HTML entities (``@`` -> ``commat``), from the HTML5 table."""
    names: dict[str, list[str]] = {}
    for name, char in html.entities.html5.items():
        if name.endswith(";") and len(char) == 1:
            names.setdefault(char, []).append(name[:-1])
    return names


def _escaped_forms(char: str) -> list[str]:
    """Literal spellings of ``char`` once encoded for URLs, HTML or JSON, or escaped by a
    backslash."""
    utf8 = char.encode("utf-8")
    forms = ["".join(f"%{b:02X}" for b in utf8), "".join(f"%25{b:02X}" for b in utf8)]
    if char.isalnum() and char.isascii():
        return forms
    code = ord(char)
    forms += [f"&#{code};", f"&#x{code:x};"]
    forms += [f"&{name};" for name in _entity_names().get(char, [])]
    if code > 0xFFFF:
        high, low = divmod(code - 0x10000, 0x400)
        forms.append(f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}")
    else:
        forms.append(f"\\u{code:04x}")
    # Backslash-escaped, once (JSON's \", a regex's re.escape) or twice (the repr of either).
    forms += ["\\" + char, "\\\\" + char]
    return forms


@lru_cache(maxsize=4096)
def _char_pattern(char: str) -> str:
    """A regex fragment matching ``char`` in any of its forms (case is left to re.I)."""
    chars = _QUOTES if char in _QUOTES else char
    forms = {re.escape(c) for c in chars}
    for c in chars:
        forms.update(re.escape(form) for form in _escaped_forms(c))
    forms.update({f"&#0*{ord(c)};" for c in chars if not c.isalnum()})
    forms.update({f"&#x0*{ord(c):x};" for c in chars if not c.isalnum()})
    ordered = sorted(forms, key=len, reverse=True)
    return ordered[0] if len(ordered) == 1 else "(?:" + "|".join(ordered) + ")"


def value_pattern(value: str) -> str:
    """The regex (without flags) matching ``value`` in every derived form."""
    value = value.strip()
    if len(value) > PATTERN_MAX_CHARS:
        forms = literal_forms(value)
        return "(?:" + "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True)) + ")"
    parts: list[str] = []
    for piece in re.split(r"(\s+)", value):
        if not piece:
            continue
        if piece.isspace():
            parts.append(_WHITESPACE)
        else:
            parts.extend(_char_pattern(c) for c in piece)
    return "".join(parts)


def literal_forms(value: str) -> set[str]:
    """The value and its common whole-string encodings (for long values and binary files)."""
    forms = {
        value,
        quote(value, safe=""),
        quote(value),
        quote_plus(value),
        quote_plus(value, safe=""),
        json.dumps(value)[1:-1],
        json.dumps(value, ensure_ascii=False)[1:-1],
        value.replace("&", "&amp;")
        .replace('"', "&quot;")
        .replace("<", "&lt;")
        .replace(">", "&gt;"),
        value.replace('"', "'"),
    }
    return {form for form in forms if form}


def stripped_length(value: str) -> int:
    """``len(value.strip())`` without copying a long value."""
    if len(value) > 4 * SHORT_VALUE_CHARS:
        return len(value)  # only the short/long distinction is asked of it
    return len(value.strip())


@dataclass(frozen=True)
class _Secret:
    name: str
    value: str  # the raw value (a SecretText for huge ones: never copied)
    short: bool

    def __repr__(self) -> str:  # never the value
        return f"_Secret({self.name!r})"


class Redactor:
    """Replaces every secret value (in any derived form) with its ``<|NAME|>`` placeholder.

    ``secrets`` are ``(name, value)`` pairs; the name is used upper-cased in the placeholder.
    Built once per set of values; :meth:`redact` is safe to call on any text, any number of
    times (placeholders are never matched again).
    """

    def __init__(self, secrets: Iterable[tuple[str, str]]) -> None:
        unique: dict[str, _Secret] = {}
        for name, value in secrets:
            # Huge values are matched with str.replace, which takes them as they are; a
            # copy of a megabyte value would only cost time.
            raw = value if len(value) > FORMS_MAX_CHARS else str.__str__(value)
            length = stripped_length(raw)
            if length and raw not in unique:
                unique[raw] = _Secret(name.upper(), raw, length < SHORT_VALUE_CHARS)
        # Longest first: a value that contains another is replaced whole.
        ordered = sorted(unique.values(), key=lambda s: len(s.value), reverse=True)
        self._huge = [s for s in ordered if len(s.value) > FORMS_MAX_CHARS]
        self._secrets = [s for s in ordered if len(s.value) <= FORMS_MAX_CHARS]
        self._pattern: re.Pattern[str] | None = None
        self._placeholder_names = {s.name for s in ordered}

    def __bool__(self) -> bool:
        return bool(self._secrets or self._huge)

    def __repr__(self) -> str:  # never the values
        return f"Redactor({len(self._secrets) + len(self._huge)} value(s))"

    @property
    def pattern(self) -> re.Pattern[str] | None:
        """One compiled alternation of every value's pattern (built on first use)."""
        if self._pattern is None and self._secrets:
            alternatives = []
            for index, secret in enumerate(self._secrets):
                body = value_pattern(secret.value)
                if secret.short:
                    body = rf"(?<!\w)(?:{body})(?!\w)"
                alternatives.append(f"(?P<s{index}>{body})")
            self._pattern = re.compile("|".join(alternatives), re.IGNORECASE)
        return self._pattern

    def redact(self, text: str) -> str:
        """``text`` with every secret replaced by its placeholder."""
        if not text or not self:
            return text
        text = str.__str__(text)
        for secret in self._huge:
            if len(secret.value) <= len(text):
                text = text.replace(secret.value, f"<|{secret.name}|>")
        pattern = self.pattern
        if pattern is None:
            return text
        protected = _Spans(text, self._placeholder_names)

        def replace(match: re.Match[str]) -> str:
            secret = self._secrets[int((match.lastgroup or "s0")[1:])]
            if protected.hit(match.start(), match.end(), markup=secret.short):
                return match.group(0)
            return f"<|{secret.name}|>"

        return pattern.sub(replace, text)

    def contains(self, text: str) -> bool:
        """True when ``text`` holds a secret in any form :meth:`redact` would replace."""
        return bool(text) and self.redact(text) != str.__str__(text)


class _Spans:
    """Where the package's markup and placeholders sit in a text (computed on first need)."""

    def __init__(self, text: str, names: set[str]) -> None:
        self._text = text
        self._names = names
        self._markup: list[tuple[int, int]] | None = None
        self._placeholders: list[tuple[int, int]] | None = None

    def hit(self, start: int, end: int, *, markup: bool) -> bool:
        if self._placeholders is None:
            found = [m.span() for m in _PLACEHOLDER.finditer(self._text)]
            found += [
                m.span()
                for m in re.finditer(r"%([A-Za-z_]\w*)%", self._text)
                if m.group(1).upper() in self._names
            ]
            self._placeholders = sorted(found)
        if _overlaps(self._placeholders, start, end):
            return True
        if not markup:
            return False
        if self._markup is None:
            self._markup = [m.span() for m in _MARKUP.finditer(self._text)]
        return _overlaps(self._markup, start, end)


def _overlaps(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    index = bisect.bisect_left(spans, (end, end))
    return any(s < end and start < e for s, e in spans[max(0, index - 8) : index])
