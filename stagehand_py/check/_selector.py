"""Tell a Playwright selector from a statement (pure).

A wrapped page is still a Playwright ``Page``, whose own ``check(selector)`` ticks a checkbox.
``page.check(...)`` keeps doing that for what is written as a selector, and judges a
statement otherwise. A statement is words separated by spaces; a selector here is text with
no space at all (``#agree``, ``input[name=terms]``), or text that opens like a selector (``#``,
``.``, ``[``, ``/``, ``(``, ``*``, an engine prefix such as ``css=``, ``text=``, ``xpath=``,
``internal:role=``), or uses selector syntax (`` >> ``, ``[attr]``, ``:has-text(``...).
"""

from __future__ import annotations

import re

_OPENS_LIKE_A_SELECTOR = re.compile(r"^(?:[#.\[/(*]|[a-z][a-z0-9_-]*(?::[a-z-]+)?=)")
_SELECTOR_SYNTAX = re.compile(r">>|\[[^\]\s]+[=\]]|:(?:has|has-text|text|is|not|nth|visible)\b")


def looks_like_selector(text: str) -> bool:
    """True when ``text`` is written as a Playwright selector, not as a statement."""
    stripped = text.strip()
    if not stripped:
        return False
    if not any(character.isspace() for character in stripped):
        return True
    return bool(_OPENS_LIKE_A_SELECTOR.match(stripped) or _SELECTOR_SYNTAX.search(stripped))
