"""The line the model sees for an element of the accessibility-tree view.

Same ``N:<...>`` form as the DOM view, built from the role instead of the tag, and without a
closing tag (the line ends where the element does)::

    4:<button>Save
    5:<link url="/help">Help
    6:<button name="Close">X
    7:<textbox name="Email address" placeholder="you@example.com">ada@example.com
    9:<combobox name="Country" options=[Choose a country|Canada|Japan]>Choose a country
    12:<heading level=2>Public profile
    15:<canvas name="Sales chart" size="600x300">
    16:Join to track orders and save your favourites.

Roles named by their content (a button, a link, a tab...) and toggles show the name where the
DOM view shows the text; a form field's name is its label and is written ``name="..."``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..dom._render import (
    MAX_ATTRIBUTE_CHARS,
    MAX_TEXT_CHARS,
    MAX_VALUE_CHARS,
    Redactor,
    options_attribute,
    shape,
    unchanged,
)

if TYPE_CHECKING:
    from .._snapshot import Element

# Roles whose name is shown where the DOM view shows text: those named by their content
# (ARIA "name from content"), and toggles, whose label is their only text. A form field's
# text is its value, so its name stays an attribute.
NAME_AS_TEXT = frozenset(
    {
        "button", "link", "tab", "menuitem", "menuitemcheckbox", "menuitemradio", "option",
        "treeitem", "gridcell", "heading", "cell", "columnheader", "rowheader", "generic",
        "checkbox", "radio", "switch",
    }
)  # fmt: skip


# Roles a user acts on: one of these without any unique rung is marked, so the model does
# not take it for a control it can use (issue #17's pre-check).
LOCATABLE_ROLES = frozenset(
    {
        "button", "link", "tab", "menuitem", "menuitemcheckbox", "menuitemradio", "option",
        "treeitem", "gridcell", "checkbox", "radio", "switch", "textbox", "searchbox",
        "combobox", "listbox", "slider", "spinbutton",
    }
)  # fmt: skip
NO_LOCATOR = "no-locator"

_ROLE_ESCAPES = str.maketrans({"<": "&lt;", ">": "&gt;", " ": "_"})


def _value(text: str, limit: int = MAX_ATTRIBUTE_CHARS) -> str:
    return '"' + shape(text, limit).replace('"', "'") + '"'


def render_aria_element(element: Element, *, redact: Redactor | None = None) -> str:
    """``N:text`` for text, ``N:<role name="..." states>text`` for anything else.

    Page strings go through ``redact`` first, then the DOM view's shaping
    (:func:`stagehand_py.dom._render.shape`: whitespace collapsed, capped, ``<``/``>``
    escaped), so neither view lets the page start a line or forge markup.
    """
    page = redact or unchanged
    text = shape(page(element.text), MAX_TEXT_CHARS)
    if element.role == "text":
        return f"{element.index}:{text}"
    parts = [element.role.translate(_ROLE_ESCAPES)]
    if not element.selectors and element.role in LOCATABLE_ROLES:
        parts.append(NO_LOCATOR)  # the pre-check found no rung: shown, never actionable
    if not text and element.role in NAME_AS_TEXT:
        text = shape(page(element.name), MAX_TEXT_CHARS)
    elif element.name and element.name != element.text:
        parts.append("name=" + _value(page(element.name), MAX_TEXT_CHARS))
    for key, value in element.attributes.items():
        if key.startswith("."):
            continue  # kept for the SDK, not for the model (see _assemble.HIDDEN_URL)
        if value == "":
            parts.append(key)
        else:
            limit = MAX_VALUE_CHARS if key == "value" else MAX_ATTRIBUTE_CHARS
            parts.append(f"{key}={value if value.isdigit() else _value(page(value), limit)}")
    if element.options:
        parts.append(options_attribute(element.options, page))
    return f"{element.index}:<{' '.join(parts)}>{text}"
