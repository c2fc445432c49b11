"""Is a compiled check as strong as its statement? (pure)

A compiled check replays with no model, so it must fail whenever the statement becomes false.
The model proposes the assertions; these rules refuse a set that is visibly weaker than the
statement, and the check is then judged by the model on every run instead (never wrong, only
dearer). The rules are conservative on purpose: a statement they cannot follow falls to the
model, never to a weaker replay.

- every number, quoted text and variable placeholder of the statement appears in some
  assertion's expected value (``"the total is 42.00"`` needs an assertion expecting 42.00);
- a statement about text, a value or a count (``says``, ``value``, ``number``...) needs an
  assertion on text, a value or a count, not only one that an element is visible or in a
  state the statement does not name ("the status says ready" is not "the button is
  enabled");
- a statement about a state (``checked``, ``disabled``...) needs an assertion on that state;
- a statement about the URL needs ``to_have_url``;
- a negated statement (``no error is shown``, ``not checked``) needs an assertion that can
  carry the negation (``to_be_hidden``, ``not_to_contain_text``, a count of 0, or a state
  the statement names: ``to_be_enabled`` for "not disabled", never for "no error").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ._assertions import COUNT_KINDS, NEGATIVE_KINDS, PRESENCE_KINDS, TEXT_KINDS, CheckAssertion

_PLACEHOLDER = re.compile(r"<\|[A-Za-z_][A-Za-z0-9_]*\|>|%[A-Za-z_][A-Za-z0-9_]*%")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
# "text", “text”, 'text' (an apostrophe inside a word, as in isn't, opens nothing).
_QUOTED = re.compile(
    r"\"([^\"]+)\"|\u201c([^\u201d]+)\u201d|(?<!\w)'([^']+)'(?!\w)|\u2018([^\u2019]+)\u2019"
)
_CONTENT = re.compile(
    r"\b(say|says|said|saying|read|reads|text|value|values|contain|contains|containing|"
    r"equal|equals|count|number|total|titled|labell?ed|named|called)\b"
)
_CHECKED = re.compile(r"\b(checked|unchecked|ticked|unticked|selected|unselected)\b")
_ENABLED = re.compile(r"\b(enabled|disabled|greyed out|grayed out)\b")
_URL = re.compile(r"\b(url|address bar)\b")
_NEGATION = re.compile(
    r"\b(no|not|never|none|nothing|nobody|without|neither|nor|cannot|absent|missing|gone|"
    r"hidden|invisible|disappeared|unchecked|unticked|unselected|"
    r"isn't|aren't|doesn't|don't|hasn't|haven't|can't|won't)\b"
)
_STATE_KINDS = {
    "checked": frozenset({"to_be_checked", "not_to_be_checked"}),
    "enabled": frozenset({"to_be_enabled", "to_be_disabled"}),
}
_STATE_WORDS = {"checked": _CHECKED, "enabled": _ENABLED}
_CONTENT_KINDS = TEXT_KINDS | COUNT_KINDS


def _flat(text: str) -> str:
    return " ".join(text.lower().split())


def _expected_texts(assertions: Sequence[CheckAssertion]) -> list[str]:
    return [_flat(str(a.expected)) for a in assertions if a.expected is not None]


def _named_parts(statement: str) -> list[str]:
    """The statement's placeholders, quoted texts and numbers (outside placeholders)."""
    parts = _PLACEHOLDER.findall(statement)
    without = _PLACEHOLDER.sub(" ", statement)
    parts += [next(group for group in match if group) for match in _QUOTED.findall(without)]
    parts += _NUMBER.findall(_QUOTED.sub(" ", without))
    return [part for part in (p.strip() for p in parts) if part]


def _unquoted_words(statement: str) -> str:
    """The statement's own words, lower-cased: quoted texts and placeholders left out (the
    button "No thanks" is no negation)."""
    return _flat(_QUOTED.sub(" ", _PLACEHOLDER.sub(" ", statement))).replace("\u2019", "'")


def weaker_than(statement: str, assertions: Sequence[CheckAssertion]) -> str | None:
    """Why ``assertions`` could pass where ``statement`` (redacted: placeholders, not values)
    no longer holds, or None when no rule sees a gap (see the module docstring)."""
    if not assertions:
        return "no assertion was compiled"
    expected = _expected_texts(assertions)
    for part in _named_parts(statement):
        if not any(_flat(part) in text for text in expected):
            return f"the statement names {part!r}, which no compiled assertion checks"
    kinds = {a.kind for a in assertions}
    words = _unquoted_words(statement)
    named = _named_states(words)
    if _CONTENT.search(words) and not kinds & (_CONTENT_KINDS | named):
        return (
            "the statement is about text, a value or a count, and only presence or a state it "
            "does not name is checked"
        )
    if _CHECKED.search(words) and not kinds & _STATE_KINDS["checked"]:
        return "the statement is about a checked state, and no assertion checks it"
    if _ENABLED.search(words) and not kinds & _STATE_KINDS["enabled"]:
        return "the statement is about an enabled or disabled state, and none is checked"
    if _URL.search(words) and "to_have_url" not in kinds:
        return "the statement is about the URL, and no assertion checks it"
    if _NEGATION.search(words) and not _carries_negation(assertions, named):
        return "the statement is negated, and no compiled assertion carries the negation"
    return None


def _named_states(words: str) -> frozenset[str]:
    """The state assertions the statement's words call for (checked, enabled)."""
    named = [kinds for state, kinds in _STATE_KINDS.items() if _STATE_WORDS[state].search(words)]
    return frozenset().union(*named)


def _carries_negation(assertions: Sequence[CheckAssertion], named: frozenset[str]) -> bool:
    """An assertion that can say "not": on absence or text, or on a state the statement names
    ("not disabled"), never on one it does not ("no error is shown" is no enabled button)."""
    return any(
        (a.kind in NEGATIVE_KINDS and a.kind in _CONTENT_KINDS | PRESENCE_KINDS | named)
        or (a.kind in COUNT_KINDS and a.expected == 0)
        for a in assertions
    )
