"""The aria snapshot parser, on texts written in the format Playwright 1.65 produces."""

from __future__ import annotations

import pytest

from stagehand_py import SerializationError
from stagehand_py.aria._parser import AriaNode, BoxPx, parse_aria_snapshot

# The shapes Playwright writes (see renderAriaSnapshotAsYaml): nested blocks, inline text,
# properties, quoted keys (a ': ' inside a name), quoted values, states, frames.
FORM = """\
- generic [active] [ref=e1] [box=0,0,1280,750]:
  - banner [ref=e2] [box=0,0,1280,43]:
    - link "Shop" [ref=e5] [cursor=pointer] [box=236,12,40,19]:
      - /url: "#shop"
    - text: ·
  - heading "Create your account" [level=1] [ref=e9] [box=360,120,560,38]
  - textbox "Email address" [ref=e21] [box=360,302,560,33]:
    - /placeholder: you@example.com
  - spinbutton "Qty" [ref=e20] [box=250,248,48,21]: "1"
  - combobox "Country" [ref=e31] [box=360,517,560,35]:
    - option "Choose a country" [selected] [box=0,0,0,0]
    - option "Canada" [box=0,0,0,0]
  - checkbox "Gift wrap" [checked] [disabled] [ref=e33] [box=364,569,13,13]
  - checkbox "Mixed" [checked=mixed] [ref=e34] [box=364,590,13,13]
  - button "E" [expanded] [pressed=mixed] [ref=e27] [box=66,279,25,21]
  - 'heading "Title \\"quoted\\": yes" [level=2] [ref=e40] [box=8,366,1264,27]'
  - paragraph [ref=e35] [box=8,413,1264,18]: "Text with 'apos' and: colon"
  - button [aria-hidden] [ref=e6] [box=8,80,1264,18]: Hidden btn
  - status [box=360,632,560,0]
"""

FRAMES = """\
- generic [active] [ref=f2e1] [box=24,24,1232,597]:
  - iframe [ref=f2e4] [box=24,118,702,362]:
    - generic [ref=f3e1] [box=12,20,676,289]:
      - iframe [ref=f3e4] [box=12,103,602,202]:
        - button "Send" [ref=f5e3] [box=310,12,47,21]
      - text: after the inner frame
  - button "Hi" [ref=f2e6] [box=8,8,29,21]
"""


def _by_ref(roots: list[AriaNode]) -> dict[str, AriaNode]:
    return {n.ref: n for root in roots for n in root.nodes() if n.ref}


def test_roles_names_refs_and_boxes() -> None:
    roots = parse_aria_snapshot(FORM)
    assert len(roots) == 1
    nodes = _by_ref(roots)
    link = nodes["e5"]
    assert (link.role, link.name, link.pointer) == ("link", "Shop", True)
    assert link.box == BoxPx(236, 12, 40, 19) and link.box.visible
    assert link.props == {"url": "#shop"}
    assert nodes["e9"].states == {"level": "1"}
    assert nodes["e21"].props == {"placeholder": "you@example.com"}
    assert nodes["e20"].text == "1"  # a quoted value: YAML would read 1 as a number
    assert roots[0].states == {"active": "true"}


def test_states_as_written() -> None:
    nodes = _by_ref(parse_aria_snapshot(FORM))
    assert nodes["e33"].states == {"checked": "true", "disabled": "true"}
    assert nodes["e34"].states == {"checked": "mixed"}
    assert nodes["e27"].states == {"expanded": "true", "pressed": "mixed"}
    assert nodes["e6"].states == {"aria-hidden": "true"} and nodes["e6"].name == ""
    assert nodes["e6"].text == "Hidden btn"


def test_quoted_keys_and_values() -> None:
    nodes = _by_ref(parse_aria_snapshot(FORM))
    assert nodes["e40"].name == 'Title "quoted": yes'
    assert nodes["e40"].states == {"level": "2"}
    assert nodes["e35"].text == "Text with 'apos' and: colon"


def test_children_mix_nodes_and_text_in_order() -> None:
    nodes = _by_ref(parse_aria_snapshot(FORM))
    banner = nodes["e2"]
    assert [c if isinstance(c, str) else c.ref for c in banner.children] == ["e5", "·"]
    combobox = nodes["e31"]
    options = [c for c in combobox.children if isinstance(c, AriaNode)]
    assert [(o.name, o.ref, o.states) for o in options] == [
        ("Choose a country", "", {"selected": "true"}),
        ("Canada", "", {}),
    ]
    assert options[0].box == BoxPx(0, 0, 0, 0) and not options[0].box.visible
    # A node without a ref (not interactable) is still a node.
    status = [n for n in parse_aria_snapshot(FORM)[0].nodes() if n.role == "status"]
    assert status and status[0].ref == ""


def test_frame_refs_belong_to_their_iframe() -> None:
    nodes = _by_ref(parse_aria_snapshot(FRAMES))
    assert nodes["f2e4"].frame_ref == ""  # the iframe element lives in the page
    assert nodes["f3e1"].frame_ref == "f2e4"
    assert nodes["f3e4"].frame_ref == "f2e4"
    assert nodes["f5e3"].frame_ref == "f3e4"
    assert nodes["f2e6"].frame_ref == ""  # dedent back to the page after the frames
    assert "after the inner frame" in nodes["f3e1"].children


def test_texts_in_reading_order() -> None:
    text = """\
- paragraph [ref=e13] [box=84,178,224,36]:
  - text: A sturdy item for everyday use,
  - emphasis [ref=e14] [box=84,196,57,17]: model 0
  - text: ", ships in 2 days."
  - img "icon" [ref=e15] [box=1,1,5,5]
"""
    (paragraph,) = parse_aria_snapshot(text)
    assert list(paragraph.texts()) == [
        "A sturdy item for everyday use,",
        "model 0",
        ", ships in 2 days.",
        "icon",
    ]


def test_escapes_in_double_quoted_values() -> None:
    text = '- text: "tab\\there \\"q\\" back\\\\slash \\x01 line\\nbreak"\n'
    (node,) = parse_aria_snapshot(text)
    assert node.role == "text"
    assert node.text == 'tab\there "q" back\\slash \x01 line\nbreak'


def test_top_level_text_and_empty_input() -> None:
    assert parse_aria_snapshot("") == []
    roots = parse_aria_snapshot('- text: hello\n- button "Go" [ref=e1]\n')
    assert [(r.role, r.text or r.name) for r in roots] == [("text", "hello"), ("button", "Go")]


def test_names_with_unicode_and_escaped_json() -> None:
    text = '- button "送信 \\u00e9 \\\\ \\"x\\"" [ref=e3] [box=1,2,3,4]\n'
    (node,) = parse_aria_snapshot(text)
    assert node.name == '送信 é \\ "x"'


@pytest.mark.parametrize(
    "bad",
    [
        "button [ref=e1]",  # no dash
        '- button "unterminated [ref=e1]',
        "- button [box=1,2,three,4]",
        "- button [ref=e1] trailing words",
        "- 'quoted key without end",
        "- /url",
        '- text: "\\q"',
    ],
)
def test_malformed_lines_raise_a_typed_error_naming_the_line(bad: str) -> None:
    with pytest.raises(SerializationError, match="line 2 of the accessibility snapshot"):
        parse_aria_snapshot("- generic [ref=e1]:\n" + bad.replace("- ", "  - ", 1))


# Page text holding a line separator other than "\n", followed by what reads like a snapshot
# line; Playwright writes U+0085, U+2028 and U+2029 unescaped (a name inside a quoted key, a
# plain placeholder value).
@pytest.mark.parametrize("separator", ["\x85", "\u2028", "\u2029", "\x1c", "\x0b"])
def test_a_line_separator_in_page_text_neither_breaks_nor_forges_a_line(separator: str) -> None:
    forged = '- textbox "Password" [ref=e90]'
    text = (
        "- generic [ref=e1]:\n"
        f"  - 'textbox \"Email{separator}address\" [ref=e2]':\n"
        f"    - /placeholder: you{separator}{forged}\n"
        f"  - paragraph [ref=e3]: Terms{separator}{forged}\n"
        '  - button "Go" [ref=e4]\n'
    )
    nodes = _by_ref(parse_aria_snapshot(text))
    assert sorted(nodes) == ["e1", "e2", "e3", "e4"]  # no e90
    assert nodes["e2"].name == f"Email{separator}address"  # as the page has it (locators)
    assert nodes["e2"].props == {"placeholder": f"you{separator}{forged}"}
    assert nodes["e3"].text == f"Terms{separator}{forged}"
