r"""The locator ladder: Playwright selector strings for each rung, and their readable form.

The rungs, in the order the ADR ranks them (most user-facing first)::

    role             get_by_role(role, name=..., exact=True)   internal:role=button[name="Save"s]
    label            get_by_label(text, exact=True)            internal:label="Email"s
    placeholder      get_by_placeholder(text, exact=True)      internal:attr=[placeholder="you@x"s]
    text             get_by_text(text, exact=True)             internal:text="Add to cart"s
    text_normalized  get_by_text(re.compile(..., re.I))        internal:text=/^\s*add\s+cart\s*$/i
    testid           get_by_test_id(value)                     internal:testid=[data-testid="buy"s]
    css              locator("css=...")                        css=#buy
    xpath            locator("xpath=...")                      xpath=/html/body[1]/button[2]

The strings are exactly what Playwright's own ``get_by_*`` methods compile to, so
``scope.locator(selector)`` (what ``locate_selectors`` does) resolves them, through frame
locators and open shadow roots alike; the cache stores them as they are. ``public_form`` turns
any stored selector back into readable Python (for display and code generation).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .._single_line import python_literal

RungKind = Literal[
    "role", "label", "placeholder", "text", "text_normalized", "testid", "css", "xpath"
]
LADDER_ORDER: tuple[RungKind, ...] = (
    "role",
    "label",
    "placeholder",
    "text",
    "text_normalized",
    "testid",
    "css",
    "xpath",
)
TEST_ID_ATTRIBUTE = "data-testid"
# Characters with a meaning in a JavaScript regular expression (escaped in text_normalized).
_REGEX_SPECIAL = re.compile(r"[\\^$.*+?()[\]{}|/]")


@dataclass(frozen=True)
class Rung:
    """One candidate locator: its kind (a ladder rung) and its Playwright selector string."""

    kind: RungKind
    selector: str


def _quoted(value: str) -> str:
    """A Playwright attribute-selector string (``escapeForAttributeSelector``), exact."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"s'


def role_rung(role: str, name: str) -> Rung:
    return Rung("role", f"internal:role={role}[name={_quoted(name)}]")


def label_rung(text: str) -> Rung:
    return Rung("label", "internal:label=" + json.dumps(text, ensure_ascii=False) + "s")


def placeholder_rung(text: str) -> Rung:
    return Rung("placeholder", f"internal:attr=[placeholder={_quoted(text)}]")


def text_rung(text: str) -> Rung:
    return Rung("text", "internal:text=" + json.dumps(text, ensure_ascii=False) + "s")


def normalized_text_pattern(text: str) -> str:
    """A JavaScript regex source matching ``text`` whole, any case, any run of whitespace."""
    words = [_REGEX_SPECIAL.sub(lambda m: "\\" + m.group(0), w) for w in text.split()]
    return r"^\s*" + r"\s+".join(words) + r"\s*$"


def normalized_text_rung(text: str) -> Rung:
    source = normalized_text_pattern(text)
    # As Playwright's escapeRegexForSelector: quotes escaped, ">>" cannot end the selector.
    source = re.sub(r"""(^|[^\\])(\\\\)*(["'`])""", r"\1\2\\\3", source).replace(">>", "\\>\\>")
    return Rung("text_normalized", f"internal:text=/{source}/i")


def testid_rung(value: str, attribute: str = TEST_ID_ATTRIBUTE) -> Rung:
    return Rung("testid", f"internal:testid=[{attribute}={_quoted(value)}]")


def css_rung(css: str) -> Rung:
    return Rung("css", css if css.startswith("css=") else "css=" + css)


def xpath_rung(xpath: str) -> Rung:
    return Rung("xpath", xpath if xpath.startswith("xpath=") else "xpath=" + xpath)


# ----------------------------------------------------------------- readable form
_ATTR_VALUE = re.compile(r'^"((?:[^"\\]|\\.)*)"([si])$')
_ROLE = re.compile(r"^internal:role=([a-z]+)((?:\[[^\]=]+=.*?\])*)$")
_ROLE_PROP = re.compile(r'\[([a-z-]+)=("(?:[^"\\]|\\.)*"[si]|[^\]]*)\]')
_NAMED_ATTR = re.compile(r"^internal:(attr|testid)=\[([^=\]]+)=(.*)\]$")


def _unquote_attribute(value: str) -> tuple[str, bool] | None:
    match = _ATTR_VALUE.match(value)
    if match is None:
        return None
    return re.sub(r"\\(.)", r"\1", match.group(1)), match.group(2) == "s"


def _py(value: str) -> str:
    return python_literal(value)


def _text_call(method: str, body: str) -> str | None:
    if body.startswith("/") and body.rfind("/") > 0:
        end = body.rfind("/")
        source = re.sub(r"\\([\"'`])", r"\1", body[1:end]).replace("\\>\\>", ">>")
        flags = ", re.IGNORECASE" if "i" in body[end + 1 :] else ""
        return f"{method}(re.compile({_py(source)}{flags}))"
    if body.endswith(("s", "i")):
        try:
            text = json.loads(body[:-1])
        except json.JSONDecodeError:
            return None
        exact = ", exact=True" if body.endswith("s") else ""
        return f"{method}({_py(text)}{exact})"
    return None


def _role_call(match: re.Match[str]) -> str | None:
    args = [_py(match.group(1))]
    for prop, raw in _ROLE_PROP.findall(match.group(2)):
        if prop == "name":
            unquoted = _unquote_attribute(raw)
            if unquoted is None:
                return None
            args.append(f"name={_py(unquoted[0])}")
            if unquoted[1]:
                args.append("exact=True")
        else:
            value = raw.capitalize() if raw in ("true", "false") else raw
            args.append(f"{prop.replace('-', '_')}={value}")
    return f"get_by_role({', '.join(args)})"


def _method_call(selector: str) -> str:
    if match := _ROLE.match(selector):
        call = _role_call(match)
        if call:
            return call
    for prefix, method in (("internal:label=", "get_by_label"), ("internal:text=", "get_by_text")):
        if selector.startswith(prefix):
            call = _text_call(method, selector[len(prefix) :])
            if call:
                return call
    if match := _NAMED_ATTR.match(selector):
        kind, attribute, raw = match.groups()
        unquoted = _unquote_attribute(raw)
        if unquoted is not None:
            value, exact = unquoted
            if kind == "testid" and attribute == TEST_ID_ATTRIBUTE:
                return f"get_by_test_id({_py(value)})"
            if kind == "attr" and attribute in {"placeholder", "alt", "title"}:
                method = {"placeholder": "get_by_placeholder", "alt": "get_by_alt_text"}.get(
                    attribute, "get_by_title"
                )
                return f"{method}({_py(value)}{', exact=True' if exact else ''})"
    return f"locator({_py(selector)})"


def public_form(selector: str, frame: Sequence[str] = ()) -> str:
    """Readable Python for a stored selector, e.g. ``page.get_by_role("button", name="Save",
    exact=True)``; frames become ``frame_locator(...)`` steps. Pure, for display and codegen."""
    steps = [f"frame_locator({_py(f)})" for f in frame]
    return ".".join(["page", *steps, _method_call(selector)])


def readable_ladder(element_view: str, selectors: Sequence[str], frame: Sequence[str]) -> list[str]:
    """An accessibility-tree element's ladder as readable calls (empty for a DOM element,
    whose selectors are XPaths the cache and the executor use as they are)."""
    return [public_form(s, frame) for s in selectors] if element_view == "aria" else []
