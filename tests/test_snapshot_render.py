"""Parsing and rendering of serializer output, with no browser: what the model reads."""

from __future__ import annotations

import json
from typing import Any

import pytest

from stagehand_py import ElementNotFoundError, PageError, SerializationError
from stagehand_py.dom import Chunk, order_chunks, parse_snapshot

# Rows as the serializer (dom/serializer/80_rows.js) writes them: tag, text, attributes,
# selectors (or the index of the row whose selectors are shared), frame index, chunk, box,
# interactive, [options, role, name].
FIXTURE: dict[str, Any] = {
    "url": "http://127.0.0.1:8000/form.html",
    "title": "Signup",
    "viewport": {"width": 1280, "height": 720},
    "scroll_y": 1100,
    "scroll_container": None,
    "chunk_height": 540,
    "frames": [['xpath=//*[@id="outer-frame"]', 'xpath=//*[@id="inner-frame"]']],
    "elements": [
        ["h1", "Create your account", {}, ["xpath=/html/body[1]/h1[1]"], -1, 0, [8, 8, 400, 37], 0],
        ["#text", "Already a member?", 0, ["xpath=/html/body[1]/p[1]"], -1, 0, [8, 60, 120, 18], 0],
        [
            "a",
            "Sign in",
            {"href": "/login", "title": "Sign in"},
            ["xpath=/html/body[1]/p[1]/a[1]"],
            -1,
            1,
            [130, 600, 50, 18],
            1,
            0,
            "link",
            "Sign in",
        ],
        ["#text", "today", 0, 1, -1, 1, [182, 600, 40, 18], 0],
        [
            "select",
            "",
            {"id": "country", "value": "jp"},
            ["xpath=/html/body[1]/select[1]", 'xpath=//*[@id="country"]'],
            -1,
            2,
            [8, 1200, 200, 24],
            1,
            ["Red", "Green", "Blue"],
            "combobox",
            "Country",
        ],
        [
            "input",
            "",
            {"id": "msg", "placeholder": 'Say "hi"', "type": "text"},
            ["xpath=/html/body[1]/input[1]", 'xpath=//*[@id="msg"]'],
            0,
            4,
            [40, 2300, 300, 24],
            1,
            0,
            "textbox",
            "Message",
        ],
        ["p", "x" * 400, {}, ["xpath=/html/body[1]/p[2]"], -1, 4, [8, 2400, 900, 200], 0],
    ],
}


def snapshot_json(**changes: Any) -> str:
    return json.dumps({**FIXTURE, **changes})


def test_rows_become_typed_elements() -> None:
    snap = parse_snapshot(snapshot_json())
    assert [e.index for e in snap.elements] == list(range(7))
    link = snap.element(2)
    assert link.tag == "a" and link.interactive and link.role == "link" and link.name == "Sign in"
    assert link.box is not None and (link.box.x, link.box.y) == (130, 600)
    assert snap.element(0).attributes == {} and not snap.element(0).interactive
    # A text node shares the selectors of the row it points at (here: its <p>).
    assert snap.element(3).selectors == snap.element(1).selectors == ["xpath=/html/body[1]/p[1]"]
    assert snap.element(4).options == ["Red", "Green", "Blue"]
    assert snap.element(5).frame == FIXTURE["frames"][0]
    assert snap.element(0).frame == []


def test_render_element_format() -> None:
    snap = parse_snapshot(snapshot_json())
    assert snap.render_element(0) == "0:<h1>Create your account</h1>"
    assert snap.render_element(1) == "1:Already a member?"
    # title equals the text: not repeated.
    assert snap.render_element(2) == '2:<a href="/login">Sign in</a>'
    assert snap.render_element(4) == (
        '4:<select id="country" value="jp" options=[Red|Green|Blue]></select>'
    )
    # Double quotes inside a value cannot break the attribute syntax.
    assert snap.render_element(5) == (
        '5:<input id="msg" placeholder="Say \'hi\'" type="text"></input>'
    )


def test_long_text_is_capped_saying_how_much_is_cut() -> None:
    line = parse_snapshot(snapshot_json()).render_element(6)
    assert line == "6:<p>" + "x" * 150 + "…(+250 chars)</p>"


def test_chunks_grouped_and_ordered_nearest_first() -> None:
    snap = parse_snapshot(snapshot_json())
    # scroll_y 1100 / 540 -> current chunk 2; at equal distance the chunk below comes first.
    assert snap.chunk_order() == [2, 1, 4, 0]
    assert [c.index for c in snap.chunks] == snap.chunk_order()
    chunk_two = snap.chunks[0]
    assert (chunk_two.top, chunk_two.bottom, chunk_two.element_indexes) == (1080, 1620, [4])
    assert snap.render_chunk(1) == '2:<a href="/login">Sign in</a>\n3:today'
    assert snap.render_all().count("\n") == 6


def test_order_chunks_ties_prefer_the_chunk_below() -> None:
    chunks = [Chunk(index=i, top=i * 100, bottom=(i + 1) * 100) for i in range(6)]
    assert [c.index for c in order_chunks(chunks, 250, 100)] == [2, 3, 1, 4, 0, 5]
    assert [c.index for c in order_chunks(chunks, 0, 100)] == [0, 1, 2, 3, 4, 5]
    assert [c.index for c in order_chunks(chunks, 599, 100)] == [5, 4, 3, 2, 1, 0]


def test_unknown_element_and_chunk_raise_clear_errors() -> None:
    snap = parse_snapshot(snapshot_json())
    with pytest.raises(ElementNotFoundError, match="no element number 99"):
        snap.element(99)
    with pytest.raises(PageError, match="Chunk 3 is not in the snapshot"):
        snap.render_chunk(3)


def test_empty_page() -> None:
    snap = parse_snapshot(snapshot_json(elements=[], frames=[]))
    assert snap.elements == [] and snap.chunks == [] and snap.chunk_order() == []
    assert snap.render_all() == ""


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        json.dumps({"url": "x"}),
        snapshot_json(elements=[["h1", "short row"]]),
        snapshot_json(elements=[["h1", "t", {}, ["xpath=/a"], 5, 0, [0, 0, 1, 1], 0]]),
    ],
)
def test_unreadable_output_raises_serialization_error(text: str) -> None:
    with pytest.raises(SerializationError, match="cannot read"):
        parse_snapshot(text)
