"""Read the text of ``page.aria_snapshot(mode="ai", boxes=True)`` into a tree of nodes.

Playwright renders its accessibility tree as a YAML list; every line is one of::

    - text: Some words                      a text child ("- text: ..." values may be quoted)
    - <key>                                 a node without children
    - <key>: value                          a node with one text child (its inline text)
    - <key>:                                a node whose children follow, indented two spaces
    - /url: value                           a property of the node above (url, placeholder)

where ``<key>`` is ``role "JSON name" [attr] [attr=value] ...`` and is wrapped in single quotes
(``''`` for a quote) when YAML needs it. Attributes seen in Playwright 1.65: ``checked``,
``checked=mixed``, ``disabled``, ``expanded``, ``active``, ``invalid[=grammar|spelling]``,
``level=N``, ``pressed[=mixed]``, ``selected``, ``aria-hidden``, ``ref=eN`` (``fNeM`` inside
frames), ``cursor=pointer`` and ``box=x,y,width,height`` (rounded CSS px, in the viewport of the
node's own frame). This module is the only place that knows the format; it is pure Python.

Only ``\n`` ends a line. Playwright escapes the control characters of quoted values but
writes other line separators a page may put in a name, a placeholder or a text as they are
(U+0085, U+2028, U+2029 in names and in plain values): they stay inside the name or value they
belong to, so no page text can end a line early or forge a node. Names and values keep them
(a role locator matches the name as the page has it); every renderer of a line collapses them
with the rest of the whitespace (``dom._render.shape``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from .._errors import SerializationError

INDENT = 2
# Double-quoted YAML values as Playwright writes them (yamlEscapeValueIfNeeded).
_VALUE_ESCAPES = {"\\": "\\", '"': '"', "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


@dataclass(frozen=True)
class BoxPx:
    """A node's box in CSS px, relative to the viewport of the frame it lives in."""

    x: int
    y: int
    width: int
    height: int

    @property
    def visible(self) -> bool:
        return self.width > 0 and self.height > 0


@dataclass(slots=True)
class AriaNode:
    """One node of Playwright's accessibility tree.

    ``children`` mixes nodes and text (``str``) in document order; ``text`` is the node's
    inline text (``- button "Go": Go now`` gives ``text="Go now"``), else ``None``.
    ``frame_ref`` is the ref of the ``iframe`` node whose document holds this node ("" for the
    page itself).
    """

    role: str
    name: str = ""
    ref: str = ""
    box: BoxPx | None = None
    states: dict[str, str] = field(default_factory=dict)
    props: dict[str, str] = field(default_factory=dict)
    text: str | None = None
    children: list[AriaNode | str] = field(default_factory=list)
    frame_ref: str = ""

    @property
    def pointer(self) -> bool:
        """Playwright saw ``cursor: pointer`` on it (a click target, whatever its role)."""
        return self.states.get("cursor") == "pointer"

    def nodes(self) -> Iterator[AriaNode]:
        """This node and every node below it, in document order (iteratively: a chain of
        nested generators costs a step per level for every node of a deep tree)."""
        stack: list[AriaNode] = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(c for c in reversed(node.children) if isinstance(c, AriaNode))

    def texts(self) -> Iterator[str]:
        """Every piece of text in this subtree, in reading order (names of leaves included)."""
        if self.text is not None:
            yield self.text
        elif not self.children and self.name:
            yield self.name
        for child in self.children:
            if isinstance(child, str):
                yield child
            else:
                yield from child.texts()


# One item line; a key (role, optional JSON name, attributes) with what follows it; one
# attribute; a property line. Compiled once: a large page has thousands of lines.
_ITEM = re.compile(r"( *)- (.*)")
_KEY = re.compile(r'([\w-]+)(?: ("(?:[^"\\]|\\.)*"))?((?: \[[^\]]*\])*)')
_REST = re.compile(r"(?::(?: (.*))?)?")
_ATTRIBUTE = re.compile(r" \[([\w-]+)(?:=([^\]]*))?\]")
_PROPERTY = re.compile(r"/([\w-]+): (.*)")
# The common line in one match: indent, role, optional name, attributes, then ":" (opens a
# block) or ": value". A line it does not fit takes the general path above.
_PLAIN_LINE = re.compile(r'( *)- ([\w-]+)(?: ("(?:[^"\\]|\\.)*"))?((?: \[[^\]]*\])*)(:(?: (.*))?)?')


def _fail(line: int, what: str, text: str) -> SerializationError:
    return SerializationError(
        f"Cannot read line {line} of the accessibility snapshot ({what}: {text[:80]!r}). This is "
        "a bug in stagehand_py or a Playwright version it does not know; please report it with "
        "the page's URL."
    )


def _node_from_key(role: str, name: str | None, attributes: str, line: int) -> AriaNode:
    node = AriaNode(role=role)
    if name and "\\" not in name and name.startswith('"') and name.endswith('"'):
        node.name = name[1:-1]  # no escapes: the common case, without a JSON decode
    elif name:
        try:
            node.name = json.loads(name)
        except json.JSONDecodeError:
            raise _fail(line, "malformed name", name) from None
    if not attributes:
        return node
    for attribute, value in _ATTRIBUTE.findall(attributes):
        if attribute == "ref":
            node.ref = value
        elif attribute == "box":
            try:
                x, y, width, height = map(int, value.split(","))
            except ValueError:
                raise _fail(line, "malformed box", value) from None
            node.box = BoxPx(x, y, width, height)
        else:  # states (checked, level=2, ...) and cursor, kept as written
            node.states[attribute] = value or "true"
    return node


def _unquote_value(raw: str, line: int) -> str:
    """A YAML scalar as Playwright writes it: plain, "double-quoted" or 'single-quoted'."""
    if raw.startswith("'") and raw.endswith("'") and len(raw) >= 2:
        return raw[1:-1].replace("''", "'")
    if not (raw.startswith('"') and raw.endswith('"') and len(raw) >= 2):
        return raw
    out: list[str] = []
    i, body = 0, raw[1:-1]
    while i < len(body):
        char = body[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        code = body[i + 1 : i + 2]
        if code in _VALUE_ESCAPES:
            out.append(_VALUE_ESCAPES[code])
            i += 2
        elif code == "x" and len(body) >= i + 4:
            out.append(chr(int(body[i + 2 : i + 4], 16)))
            i += 4
        else:
            raise _fail(line, f"unknown escape \\{code}", raw)
    return "".join(out)


def _split_item(item: str, line: int) -> tuple[re.Match[str], str | None, bool]:
    """``(key match, value, opens_block)`` of one item (the text after ``- ``)."""
    if item.startswith("'"):  # a quoted key: 'role "name": with colon' [...]
        end = 1
        while True:
            end = item.find("'", end)
            if end < 0:
                raise _fail(line, "unterminated quoted key", item)
            if item[end + 1 : end + 2] != "'":
                break
            end += 2
        key, rest = item[1:end].replace("''", "'"), item[end + 1 :]
        match = _KEY.fullmatch(key)
    else:
        match = _KEY.match(item)
        rest = item[match.end() :] if match else ""
    tail = _REST.fullmatch(rest)
    if match is None or tail is None:
        raise _fail(line, "unexpected item", item)
    opens = rest == ":"
    return match, tail.group(1), opens


def parse_aria_snapshot(text: str) -> list[AriaNode]:
    """The top-level nodes of a snapshot; text lines at the top level become ``text`` nodes."""
    root = AriaNode(role="fragment")
    # (indent, node) of every open node; the root sits below any real indentation.
    stack: list[tuple[int, AriaNode]] = [(-INDENT, root)]
    # Not str.splitlines(): it also ends lines at U+0085, U+2028, \x1c... inside page text.
    for number, raw_line in enumerate(text.split("\n"), 1):
        plain = _PLAIN_LINE.fullmatch(raw_line)
        if plain is not None:
            indent, role, name, attributes, tail, value = plain.groups()
            opens = tail == ":"
        else:
            if not raw_line.strip():
                continue
            item_match = _ITEM.fullmatch(raw_line)
            if item_match is None:
                raise _fail(number, "expected '- '", raw_line)
            indent, item = item_match.group(1), item_match.group(2)
            if item.startswith("/"):
                _add_property(stack, len(indent), item, number)
                continue
            key, value, opens = _split_item(item, number)
            role, name, attributes = key.group(1), key.group(2), key.group(3)
        depth = len(indent)
        while stack[-1][0] >= depth:
            stack.pop()
        parent = stack[-1][1]
        if role == "text" and not name and not attributes:
            parent.children.append(_unquote_value(value or "", number))
            continue
        node = _node_from_key(role, name, attributes, number)
        node.frame_ref = parent.ref if parent.role == "iframe" else parent.frame_ref
        if value is not None:
            node.text = _unquote_value(value, number)
        parent.children.append(node)
        if opens:
            stack.append((depth, node))
    return [c if isinstance(c, AriaNode) else AriaNode(role="text", text=c) for c in root.children]


def _add_property(stack: list[tuple[int, AriaNode]], depth: int, item: str, line: int) -> None:
    """A ``/name: value`` line: a property of the node it is indented under."""
    while stack[-1][0] >= depth:
        stack.pop()
    prop = _PROPERTY.fullmatch(item)
    if prop is None:
        raise _fail(line, "malformed property", item)
    stack[-1][1].props[prop.group(1)] = _unquote_value(prop.group(2), line)
