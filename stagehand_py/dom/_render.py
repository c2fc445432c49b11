"""The text the model reads: one line per element, ``N:<tag attributes>text</tag>``.

The serializer sends page strings raw (``dom/serializer/``: no collapsing, no quote changes,
cut only at generous wire bounds), so everything that shapes them happens here, in this
order, for every page string (text, attribute values, option labels, hints):

1. ``redact``: the caller's hook sees the string exactly as the page has it, so a secret is
   found whatever the page did to its whitespace, quotes or length;
2. whitespace collapsed to single spaces: no page string can hold a line break, so only this
   module starts a line, and only with ``N:``;
3. capped at the budgets below, with an ellipsis that says how much is missing;
4. escaped: ``<`` and ``>`` as ``&lt;``/``&gt;`` (page text cannot forge element markup), and
   ``"`` inside attribute values as ``'`` (a value cannot close its attribute).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .._snapshot import Element

Redactor = Callable[[str], str]

# Budgets, in characters, of one line's parts: the model needs enough to recognise an element,
# no more. A form field's value is its content (a message being written, an address), so it
# gets a far larger budget than other attributes.
MAX_TEXT_CHARS = 150
MAX_ATTRIBUTE_CHARS = 80
MAX_VALUE_CHARS = 1000
MAX_OPTION_CHARS = 40
MAX_HINT_CHARS = 60
MAX_RENDERED_OPTIONS = 30

_ESCAPES = str.maketrans({"<": "&lt;", ">": "&gt;"})
# A variable placeholder put in by the caller's redactor must reach the model as written
# (<|NAME|>, the form the prompts teach), not escaped like page markup.
_ESCAPED_PLACEHOLDER = re.compile(r"&lt;\|([A-Za-z_][A-Za-z0-9_]*)\|&gt;")
_STATES = (("disabled", "disabled"), ("readonly", "readonly"), ("aria_hidden", "aria-hidden"))


def shape(raw: str, limit: int, cut: int = 0) -> str:
    """``raw`` with whitespace collapsed, capped at ``limit`` characters and escaped.

    ``cut``: characters the serializer already left out on the wire. A capped string ends in
    ``…(+N chars)``, N counting everything missing.
    """
    text = " ".join(raw.split())
    missing = len(text) - limit
    if missing > 0:
        text = text[:limit].rstrip()
    missing = max(missing, 0) + cut
    if missing:
        text += f"…(+{missing} chars)"
    if "<" in text or ">" in text:
        text = _ESCAPED_PLACEHOLDER.sub(r"<|\1|>", text.translate(_ESCAPES))
    return text


def unchanged(text: str) -> str:
    """The redactor of a caller that gave none: page strings stay as the page has them."""
    return text


def options_attribute(options: list[str], page: Redactor) -> str:
    """``options=[A|B|…+N]``: a list's first options, each shaped, and how many more."""
    shown = options[:MAX_RENDERED_OPTIONS]
    more = len(options) - len(shown)
    listed = "|".join(shape(page(o), MAX_OPTION_CHARS).replace("]", ")") for o in shown)
    return f"options=[{listed}{f'|…+{more}' if more else ''}]"


def _attribute_text(element: Element, text: str, page: Redactor) -> str:
    parts: list[str] = []
    cuts = element.truncated
    for key, value in element.attributes.items():
        limit = MAX_VALUE_CHARS if key == "value" else MAX_ATTRIBUTE_CHARS
        shown = shape(page(value), limit, cuts.get(key, 0) if cuts else 0)
        if shown == text and text:
            continue  # the model already reads it as the element's text
        parts.append(f'{key}="{shown.replace(chr(34), chr(39))}"')
    if element.options:
        parts.append(options_attribute(element.options, page))
    if element.hint:
        hint = shape(page(element.hint), MAX_HINT_CHARS).replace('"', "'")
        parts.append(f'hint="{hint}"')
    for field, word in _STATES:
        if getattr(element, field):
            parts.append(word)
    return (" " + " ".join(parts)) if parts else ""


def render_dom_element(element: Element, *, redact: Redactor | None = None) -> str:
    """``N:text`` for a text node, ``N:<tag attributes>text</tag>`` for an element.

    ``redact`` is applied to every raw page string before anything else (see the module
    docstring); ``None`` leaves them as the page has them.
    """
    page = redact or unchanged
    cuts = element.truncated
    text = shape(page(element.text), MAX_TEXT_CHARS, cuts.get("text", 0) if cuts else 0)
    if element.tag == "#text":
        return f"{element.index}:{text}"
    tag = element.tag.translate(_ESCAPES)
    return f"{element.index}:<{tag}{_attribute_text(element, text, page)}>{text}</{tag}>"
