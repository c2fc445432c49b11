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

from ..dom._snapshot import MAX_ATTRIBUTE_CHARS, MAX_RENDERED_OPTIONS, MAX_TEXT_CHARS, Element

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


def _cap(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _value(text: str, limit: int = MAX_ATTRIBUTE_CHARS) -> str:
    return '"' + _cap(text, limit).replace('"', "'") + '"'


def render_aria_element(element: Element) -> str:
    """``N:text`` for text, ``N:<role name="..." states>text`` for anything else."""
    text = _cap(element.text, MAX_TEXT_CHARS)
    if element.role == "text":
        return f"{element.index}:{text}"
    parts = [element.role]
    if not text and element.role in NAME_AS_TEXT:
        text = _cap(element.name, MAX_TEXT_CHARS)
    elif element.name and element.name != element.text:
        parts.append("name=" + _value(element.name, MAX_TEXT_CHARS))
    for key, value in element.attributes.items():
        if value == "":
            parts.append(key)
        else:
            parts.append(f"{key}={value if value.isdigit() else _value(value)}")
    if element.options:
        shown = element.options[:MAX_RENDERED_OPTIONS]
        more = len(element.options) - len(shown)
        listed = "|".join(_cap(o, 40).replace("]", ")") for o in shown)
        parts.append(f"options=[{listed}{f'|…+{more}' if more else ''}]")
    return f"{element.index}:<{' '.join(parts)}>{text}"
