"""Python source of a Playwright locator for one recorded selector, and how durable each kind
of selector is: the part of :mod:`stagehand_py.codegen` that reads selector strings.

Playwright's own ``internal:`` selectors (what its codegen and ``get_by_*`` compile to) turn
back into their ``get_by_*`` calls; an id or unique-attribute XPath becomes the CSS a person
would write; anything else stays a ``locator(...)`` of the selector as recorded. Pure.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from ._single_line import python_literal

_ID_XPATH = re.compile(r'^//\*\[@id=(?P<q>["\'])(?P<id>[^"\']*)(?P=q)\]$')
_ATTR_XPATH = re.compile(
    r'^//(?P<tag>[a-z][a-z0-9-]*)\[@(?P<attr>[a-z][a-z0-9_:-]*)=(?P<q>["\'])(?P<value>[^"\']*)(?P=q)\]'
    r'(?:\[@value=(?P<q2>["\'])(?P<value2>[^"\']*)(?P=q2)\])?$'
)
_CSS_IDENT = re.compile(r"^-?[A-Za-z_][A-Za-z0-9_-]*$")
# internal:role=button[name="Save"s][pressed=true]
_ROLE_ATTR = re.compile(
    r'\[(?P<key>[a-z-]+)=(?:(?P<text>"(?:[^"\\]|\\.)*")(?P<flag>[si]?)|(?P<bare>[^\]]+))\]'
)
_QUOTED = re.compile(r'^(?P<text>"(?:[^"\\]|\\.)*")(?P<flag>[si]?)$')
_ATTR_RUNG = re.compile(r'^\[(?P<attr>[a-z-]+)=(?P<text>"(?:[^"\\]|\\.)*")(?P<flag>[si]?)\]$')
_GET_BY_ATTR = {
    "placeholder": "get_by_placeholder",
    "alt": "get_by_alt_text",
    "title": "get_by_title",
}
_ROLE_OPTIONS = {"checked", "disabled", "expanded", "level", "pressed", "selected"}


def py_string(text: str) -> str:
    """A one-line Python string literal for ``text`` (JSON's escapes are Python's)."""
    return python_literal(text)


def durability(selector: str) -> int:
    """How well ``selector`` survives page changes: 0 best, larger worse."""
    body = selector.removeprefix("xpath=")
    if selector.startswith("internal:testid="):
        return 0
    if selector.startswith("internal:role="):
        return 1
    if selector.startswith(("internal:label=", "internal:attr=")):
        return 2
    if _ID_XPATH.match(body) or re.match(r"^css=#[^\s>+~.:\[]+$", selector):
        return 3
    if _ATTR_XPATH.match(body) or re.match(r"^css=[a-z][a-z0-9-]*\[[^\]]+\]$", selector):
        return 4
    if "normalize-space(.)=" in body or selector.startswith("internal:text="):
        return 5
    if body.startswith("//*[@id="):  # relative to an id'd ancestor
        return 6
    if body.startswith("/") or selector.startswith("css="):  # positional paths
        return 8
    return 7


def locator_expression(selector: str, frame: Sequence[str] = (), *, root: str = "page") -> str:
    """Python that builds a Playwright locator for ``selector`` inside ``frame``."""
    scope = root
    for frame_selector in frame:
        scope += f".frame_locator({py_string(frame_selector)})"
    return scope + "." + _locator_call(selector)


def _locator_call(selector: str) -> str:
    body = selector.removeprefix("xpath=")
    id_match = _ID_XPATH.match(body) if selector.startswith("xpath=") else None
    if id_match and _CSS_IDENT.match(id_match["id"]):
        return f"locator({py_string('#' + id_match['id'])})"
    attr_match = _ATTR_XPATH.match(body) if selector.startswith("xpath=") else None
    if attr_match:
        css = f"{attr_match['tag']}[{attr_match['attr']}={_css_value(attr_match['value'])}]"
        if attr_match["value2"] is not None:
            css += f"[value={_css_value(attr_match['value2'])}]"
        return f"locator({py_string(css)})"
    internal = internal_call(selector)
    if internal is not None:
        return internal
    if selector.startswith("css=") and not selector[4:].startswith(("/", "(")):
        selector = selector[4:]  # Playwright reads a bare selector as CSS
    return f"locator({py_string(selector)})"


def _css_value(value: str) -> str:
    """A CSS attribute value in single quotes (reads well inside a double-quoted string)."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def internal_call(selector: str) -> str | None:
    """``get_by_*`` for Playwright's own ``internal:`` selector strings, else None."""
    engine, _, rest = selector.partition("=")
    if engine == "internal:role":
        return _role_call(rest)
    if engine in ("internal:label", "internal:text"):
        quoted = _QUOTED.match(rest)
        if quoted is None:
            return None
        method = "get_by_label" if engine == "internal:label" else "get_by_text"
        return _text_call(method, quoted["text"], quoted["flag"])
    if engine in ("internal:attr", "internal:testid"):
        rung = _ATTR_RUNG.match(rest)
        if rung is None:
            return None
        if engine == "internal:testid":
            return f"get_by_test_id({py_string(json.loads(rung['text']))})"
        by_attr = _GET_BY_ATTR.get(rung["attr"])
        return _text_call(by_attr, rung["text"], rung["flag"]) if by_attr else None
    return None


def _text_call(method: str, quoted: str, flag: str) -> str:
    exact = ", exact=True" if flag == "s" else ""
    return f"{method}({py_string(json.loads(quoted))}{exact})"


def _role_call(rest: str) -> str | None:
    role, _, attributes = rest.partition("[")
    if not re.fullmatch(r"[a-z]+", role):
        return None
    attributes = "[" + attributes if attributes else ""
    options: list[str] = []
    consumed = 0
    for match in _ROLE_ATTR.finditer(attributes):
        if match.start() != consumed:
            return None
        consumed = match.end()
        key, bare = match["key"], match["bare"]
        if key == "name" and match["text"] is not None:
            options.append(f"name={py_string(json.loads(match['text']))}")
            if match["flag"] == "s":
                options.append("exact=True")
        elif key in _ROLE_OPTIONS and bare is not None:
            value = {"true": "True", "false": "False"}.get(bare, bare)
            if not re.fullmatch(r"True|False|\d+", value):
                return None
            options.append(f"{key}={value}")
        elif key == "include-hidden" and bare in ("true", "false"):
            options.append(f"include_hidden={bare.title()}")
        else:
            return None
    if consumed != len(attributes):
        return None
    return f"get_by_role({', '.join([py_string(role), *options])})"
