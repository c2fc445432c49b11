"""Which nodes of the accessibility tree become lines of the numbered list, and how.

Controls (a ref and an interactive role, or Playwright's ``cursor=pointer``) get a line each.
A subtree without controls becomes one content line (its text joined) when that fits in a
line, else its children are looked at in turn; a named container that holds controls (a
fieldset's ``group``, a ``dialog``) gets a header line so its name stays visible. Text that
only repeats the name of the control beside it (a visible label) is left out: the control's
line already says it. Pure Python.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from ..dom._render import MAX_TEXT_CHARS
from ._parser import AriaNode

CONTROL_ROLES = frozenset(
    {
        "button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox",
        "menuitemradio", "option", "textbox", "searchbox", "combobox", "listbox", "slider",
        "spinbutton", "treeitem", "gridcell",
    }
)  # fmt: skip
# Roles get_by_role cannot target (or that are not roles at all).
UNQUERYABLE_ROLES = frozenset({"generic", "text", "iframe", "fragment", "canvas"})
# Form controls a visible label repeats; a clickable label beside one is not listed again.
_LABELLED_ROLES = frozenset(
    {"checkbox", "radio", "switch", "textbox", "searchbox", "combobox", "slider", "spinbutton"}
)
_STATE_ORDER = ("checked", "selected", "pressed", "expanded", "disabled", "level", "invalid")
LineKind = Literal["control", "content", "header", "canvas"]


@dataclass
class Line:
    """One future element: what it shows and the tree node (if any) behind it."""

    kind: LineKind
    role: str
    frame_ref: str
    name: str = ""
    text: str = ""
    node: AriaNode | None = None
    anchor: AriaNode | None = None  # whose box places the line on the page
    attributes: dict[str, str] = field(default_factory=dict)
    options: list[str] = field(default_factory=list)
    aria_hidden: bool = False  # get_by_role cannot see it (aria-hidden here or above)


def _join(parts: Iterable[str]) -> str:
    """Pieces of text as one line: single spaces, none before closing punctuation."""
    out = ""
    for part in parts:
        part = " ".join(part.split())
        if not part:
            continue
        out += part if not out or part[0] in _NO_SPACE_BEFORE else " " + part
    return out


_NO_SPACE_BEFORE = frozenset(",.;:!?)]}%")


def is_control(node: AriaNode) -> bool:
    return bool(node.ref) and (node.role in CONTROL_ROLES or node.pointer)


def _attributes(node: AriaNode) -> dict[str, str]:
    shown: dict[str, str] = {}
    for state in _STATE_ORDER:
        value = node.states.get(state)
        if value is not None:
            shown[state] = "" if value == "true" else value
    for prop in ("placeholder", "url"):
        if prop in node.props:
            shown[prop] = node.props[prop]
    return shown


def _control_holders(roots: list[AriaNode]) -> set[int]:
    """``id()`` of every node that is or holds a control, in one pass (asking each node's
    subtree again would make the walk quadratic on a deep page)."""
    holders: set[int] = set()

    def visit(node: AriaNode) -> bool:
        held = is_control(node)
        for child in node.children:
            if isinstance(child, AriaNode) and visit(child):
                held = True
        if held:
            holders.add(id(node))
        return held

    for root in roots:
        visit(root)
    return holders


class _Collector:
    def __init__(self, holders: set[int]) -> None:
        self._holders = holders
        self.lines: list[Line] = []
        self.anchor: AriaNode | None = None  # the last node with a visible box, in order

    def visit(self, node: AriaNode, hidden: bool) -> list[Line]:
        """The lines of ``node`` (also appended to ``self.lines`` by the caller)."""
        hidden = hidden or "aria-hidden" in node.states
        if node.box is not None and node.box.visible:
            self.anchor = node
        if node.role == "iframe":
            return self.children(node, hidden)
        if is_control(node) and (node.role in CONTROL_ROLES or not self.holds_inner(node)):
            return self.control(node, hidden)
        # A container clickable only by its pointer cursor (a product card) that holds
        # controls is read as a container: its headings and text stay beside its controls.
        if not self.holds(node):
            text = _join(node.texts())
            leaf = not any(isinstance(c, AriaNode) for c in node.children)
            if len(text) <= MAX_TEXT_CHARS or leaf:
                return self.content(node, text, hidden)
        out: list[Line] = []
        if node.name and node.role not in UNQUERYABLE_ROLES:
            out.append(self.line("header", node, hidden, name=node.name))
        return out + self.children(node, hidden)

    def holds(self, node: AriaNode) -> bool:
        """``node`` is a control or holds one."""
        return id(node) in self._holders

    def holds_inner(self, node: AriaNode) -> bool:
        """A control below ``node`` (not ``node`` itself)."""
        return any(isinstance(c, AriaNode) and self.holds(c) for c in node.children)

    def line(
        self, kind: LineKind, node: AriaNode, hidden: bool, name: str = "", text: str = ""
    ) -> Line:
        anchor = node if node.box is not None and node.box.visible else self.anchor
        return Line(
            kind=kind,
            role=node.role,
            frame_ref=node.frame_ref,
            name=name,
            text=text,
            node=node,
            anchor=anchor,
            attributes=_attributes(node),
            aria_hidden=hidden,
        )

    def control(self, node: AriaNode, hidden: bool) -> list[Line]:
        line = self.line("control", node, hidden, name=node.name)
        nested: list[Line] = []
        if node.role == "combobox":
            options = [n for n in node.nodes() if n.role == "option" and n.name]
            line.options = [n.name for n in options]
            chosen = [n.name for n in options if "selected" in n.states]
            line.text = node.text or ", ".join(chosen)
        else:
            for child in node.children:  # controls inside a control (a listbox's options)
                if isinstance(child, AriaNode) and self.holds(child):
                    nested += self.children_of_kind(child, hidden)
            if not nested:
                text = _join(node.texts())
                line.text = text if text != _join([node.name]) else ""
        return [line, *nested]

    def children_of_kind(self, node: AriaNode, hidden: bool) -> list[Line]:
        if is_control(node):
            return self.control(node, hidden)
        nodes = [c for c in node.children if isinstance(c, AriaNode)]
        return [line for c in nodes for line in self.children_of_kind(c, hidden)]

    def content(self, node: AriaNode, text: str, hidden: bool) -> list[Line]:
        if node.role == "heading":
            return [self.line("content", node, hidden, name=node.name, text=text or node.name)]
        if node.role == "img" and not text.replace(node.name, "").strip():
            return []  # an image alone says nothing to act on (the DOM view omits it too)
        if not text:
            return []
        line = self.line("content", node, hidden, text=text)
        line.role, line.attributes = "text", {}
        return [line]

    def children(self, node: AriaNode, hidden: bool) -> list[Line]:
        groups: list[list[Line]] = []
        for child in node.children:
            if isinstance(child, str):
                text = _join([child])
                if text:
                    line = _text_line(_frame_of(node), text, self.anchor, hidden)
                    groups.append([line])
            else:
                groups.append(self.visit(child, hidden))
        kept = [group for i, group in enumerate(groups) if not _repeats_label(groups, i)]
        return [line for group in kept for line in group]


def _text_line(frame_ref: str, text: str, anchor: AriaNode | None, hidden: bool) -> Line:
    return Line(
        kind="content",
        role="text",
        frame_ref=frame_ref,
        text=text,
        anchor=anchor,
        aria_hidden=hidden,
    )


def _frame_of(node: AriaNode) -> str:
    return node.ref if node.role == "iframe" else node.frame_ref


def _repeats_label(groups: list[list[Line]], i: int) -> bool:
    """A lone text line, or a clickable label, that says what a neighbouring control's name
    already says."""
    group = groups[i]
    if len(group) != 1:
        return False
    line = group[0]
    said = line.text or line.name
    if not said or (line.kind == "control" and line.role != "generic"):
        return False
    if line.kind not in ("content", "control"):
        return False
    for j in (i - 1, i + 1):
        if 0 <= j < len(groups):
            for other in groups[j]:
                if (
                    other.kind == "control"
                    and other.name == said
                    and (line.kind == "content" or other.role in _LABELLED_ROLES)
                ):
                    return True
    return False


def collect_lines(roots: list[AriaNode]) -> list[Line]:
    """Every line of the list, in reading order."""
    collector = _Collector(_control_holders(roots))
    lines: list[Line] = []
    for root in roots:
        if root.role == "text":
            if root.text:
                lines.append(_text_line("", _join([root.text]), None, False))
        else:
            lines += collector.visit(root, False)
    return lines


@dataclass
class RoleCensus:
    """How many nodes of each (frame, role, name) the tree holds, for role-rung uniqueness.

    get_by_role sees a subset of the tree's nodes (the tree also lists visible elements that
    are aria-hidden), so a count of one in the tree proves at most one match, and that match
    is the node itself. Playwright blanks the name of some nodes whose content shows it
    (``removeRedundantNames``); where a role has such a nameless node in a frame, that proof
    does not hold and the rung must be checked in the browser (``blank``).
    """

    counts: Counter[tuple[str, str, str]]
    blank: set[tuple[str, str]]

    def unique(self, node: AriaNode) -> bool:
        return self.counts[(node.frame_ref, node.role, node.name)] == 1

    def provable(self, node: AriaNode) -> bool:
        return (node.frame_ref, node.role) not in self.blank


def role_census(roots: list[AriaNode]) -> RoleCensus:
    counts: Counter[tuple[str, str, str]] = Counter()
    blank: set[tuple[str, str]] = set()
    for root in roots:
        for node in root.nodes():
            counts[(node.frame_ref, node.role, node.name)] += 1
            if not node.name and node.role not in UNQUERYABLE_ROLES:
                blank.add((node.frame_ref, node.role))
    return RoleCensus(counts, blank)
