"""Merging the page's clickables into the tree's lines (pure): placed after their anchor,
covering the lines whose text they say, shortening the ones they say for the most part."""

from __future__ import annotations

from typing import Any

from stagehand_py.aria._clickables import FrameClickables, merge_clickables
from stagehand_py.aria._lines import Line
from stagehand_py.aria._parser import AriaNode


def _node(ref: str, role: str = "generic") -> AriaNode:
    return AriaNode(role=role, ref=ref)


def _item(kind: str, text: str, anchor: str = "", **more: Any) -> dict[str, Any]:
    return {"kind": kind, "tag": "span", "box": [1, 2, 30, 10], "text": text, "anchor": anchor,
            "xpath": "/html/body[1]/span[1]", **more}  # fmt: skip


def _shown(lines: list[Line]) -> list[str]:
    return [f"{line.kind}:{line.role}:{line.text or line.name}" for line in lines]


def test_items_follow_their_anchor_and_cover_the_line_whose_text_they_say() -> None:
    heading, actions = _node("e1", "heading"), _node("e2")
    lines = [
        Line("content", "heading", "", text="Quarterly report", node=heading),
        Line("control", "generic", "", text="Reply Forward", node=actions),
        Line("content", "text", "", text="Sent on Friday"),
    ]
    found = FrameClickables.read(
        {
            "clickables": [_item("text", "Reply", "e2"), _item("text", "Forward", "e2")],
            "covered": ["e2"],
        }
    )
    merged, facts = merge_clickables(lines, {"": found}, {"e1": heading, "e2": actions})
    assert _shown(merged) == [
        "content:heading:Quarterly report",
        "control:generic:Reply",
        "control:generic:Forward",
        "content:text:Sent on Friday",
    ]
    assert [facts[id(line)].xpath for line in merged[1:3]] == ["/html/body[1]/span[1]"] * 2


def test_a_line_said_for_the_most_part_keeps_the_rest_and_a_repeated_bare_text_goes() -> None:
    picker = _node("e5")
    lines = [
        Line("content", "text", "", text="Prev May 2027 Next 1 2", node=picker),
        Line("content", "text", "", text="Next"),  # the tree's bare text, said again below
    ]
    items = [_item("text", t, "e5") for t in ("Prev", "Next", "1", "2")]
    found = FrameClickables.read({"clickables": items, "rests": {"e5": "May 2027"}})
    merged, _ = merge_clickables(lines, {"": found}, {"e5": picker})
    assert _shown(merged) == [
        "content:text:May 2027",
        "control:generic:Prev",
        "control:generic:Next",
        "control:generic:1",
        "control:generic:2",
    ]


def test_an_icon_carries_its_hint_and_closed_root_items_come_first_without_an_anchor() -> None:
    lines = [Line("content", "text", "", text="Checkout")]
    icon = _item("icon", "", hint="ico ico-trash bin-closed")
    closed = _item(
        "control", "", role="checkbox", name="Gift wrap", checked=True,
        closed='stagehand-closed=["css=gift-wrap","label[1]/input[1]"]',
    )  # fmt: skip
    found = FrameClickables.read({"clickables": [closed, icon]})
    merged, facts = merge_clickables(lines, {"": found}, {})
    assert _shown(merged) == [
        "control:checkbox:Gift wrap",
        "control:generic:",
        "content:text:Checkout",
    ]
    assert merged[0].attributes == {"checked": ""}
    assert merged[1].attributes == {"hint": "ico ico-trash bin-closed"}
    assert [r.selector for r in facts[id(merged[0])].structural_rungs()] == [
        'stagehand-closed=["css=gift-wrap","label[1]/input[1]"]'
    ]
