"""The ladder's selector strings, their readable form, and which tree nodes become lines."""

from __future__ import annotations

import importlib
import re
from typing import Any

import pytest

from stagehand_py import Element
from stagehand_py._snapshot import render_element
from stagehand_py.aria import public_form
from stagehand_py.aria._assemble import NodeFacts, Scroll, candidate_rungs
from stagehand_py.aria._ladder import (
    LADDER_ORDER,
    label_rung,
    normalized_text_pattern,
    normalized_text_rung,
    placeholder_rung,
    role_rung,
    text_rung,
)
from stagehand_py.aria._ladder import (
    testid_rung as make_testid_rung,
)
from stagehand_py.aria._lines import collect_lines, role_census
from stagehand_py.aria._parser import parse_aria_snapshot

AWKWARD = ["Save", 'Say "hi"', "back\\slash", "Größe: 42", "a  b", "O'Neil >> next"]


def _compiled_by_playwright() -> Any:
    """Playwright's own compiler of ``get_by_*`` locators into selector strings (private). Before
    1.65 it lives elsewhere and escapes non-ASCII names (equivalent selectors, other text)."""
    try:
        return importlib.import_module("playwright._impl.isomorphic.locator_utils")
    except ImportError:
        pytest.skip("compared with Playwright 1.65 and later, whose selector text this matches")


@pytest.mark.parametrize("value", AWKWARD)
def test_selectors_are_what_playwright_compiles(value: str) -> None:
    playwright_selectors = _compiled_by_playwright()
    assert role_rung("button", value).selector == playwright_selectors.get_by_role_selector(
        "button", name=value, exact=True
    )
    assert label_rung(value).selector == playwright_selectors.get_by_label_selector(
        value, exact=True
    )
    assert placeholder_rung(value).selector == playwright_selectors.get_by_placeholder_selector(
        value, exact=True
    )
    assert text_rung(value).selector == playwright_selectors.get_by_text_selector(value, exact=True)
    assert make_testid_rung(value).selector == playwright_selectors.get_by_test_id_selector(
        "data-testid", value
    )
    pattern = re.compile(normalized_text_pattern(value), re.IGNORECASE)
    assert normalized_text_rung(value).selector == playwright_selectors.get_by_text_selector(
        pattern
    )


def test_normalized_text_pattern_matches_case_and_spacing_only() -> None:
    pattern = re.compile(normalized_text_pattern("Add to  cart (2)"), re.IGNORECASE)
    assert pattern.match("  add TO\n cart (2) ")
    assert not pattern.match("Add to cart (3)")
    assert not pattern.match("Add to cart (2) now")


@pytest.mark.parametrize(
    ("selector", "frame", "expected"),
    [
        (role_rung("button", 'Say "hi"').selector, [],
         'page.get_by_role("button", name="Say \\"hi\\"", exact=True)'),
        (label_rung("Email").selector, ["css=#outer", "xpath=//iframe[1]"],
         'page.frame_locator("css=#outer").frame_locator("xpath=//iframe[1]")'
         '.get_by_label("Email", exact=True)'),
        (placeholder_rung("you@x").selector, [], 'page.get_by_placeholder("you@x", exact=True)'),
        (text_rung("Größe").selector, [], 'page.get_by_text("Größe", exact=True)'),
        (normalized_text_rung("Add it").selector, [],
         'page.get_by_text(re.compile("^\\\\s*Add\\\\s+it\\\\s*$", re.IGNORECASE))'),
        (make_testid_rung("buy").selector, [], 'page.get_by_test_id("buy")'),
        ("css=#buy", [], 'page.locator("css=#buy")'),
        ("xpath=/html/body[1]/a[2]", [], 'page.locator("xpath=/html/body[1]/a[2]")'),
        ("internal:role=heading[level=2]", [], 'page.get_by_role("heading", level=2)'),
    ],
)  # fmt: skip
def test_public_form(selector: str, frame: list[str], expected: str) -> None:
    assert public_form(selector, frame) == expected


PAGE = """\
- generic [ref=e1] [box=0,0,1280,700]:
  - heading "Shipping" [level=1] [ref=e2] [box=40,40,600,38]
  - group "Delivery speed" [ref=e3] [box=40,99,600,202]:
    - generic [ref=e4] [box=40,136,600,47]:
      - radio "Standard" [checked] [ref=e5] [box=45,139,13,13]
      - generic [ref=e6] [cursor=pointer] [box=40,136,356,47]: Standard
  - generic [ref=e7] [box=0,300,600,50]:
    - generic [ref=e8] [box=0,300,600,16]: First name
    - textbox "First name" [ref=e9] [box=0,320,600,30]
  - combobox "Size" [ref=e10] [box=0,360,80,20]:
    - option "S" [box=0,0,0,0]
    - option "M" [selected] [box=0,0,0,0]
  - paragraph [ref=e11] [box=0,400,600,36]:
    - text: A sturdy item,
    - emphasis [ref=e12] [box=84,400,57,17]: model 0
  - button [ref=e13] [box=0,450,60,20]:
    - img "x" [ref=e14] [box=2,452,10,10]
    - text: Save
  - button "Save" [ref=e15] [box=0,480,60,20]
  - button "Off" [disabled] [ref=e16] [box=0,510,60,20]
  - generic [aria-hidden] [ref=e17] [box=0,540,600,30]:
    - button "Ghost" [ref=e18] [box=0,540,60,20]
"""


def test_lines_from_a_tree() -> None:
    lines = collect_lines(parse_aria_snapshot(PAGE))
    shown = [(line.kind, line.role, line.name, line.text) for line in lines]
    assert shown == [
        ("content", "heading", "Shipping", "Shipping"),
        ("header", "group", "Delivery speed", ""),
        ("control", "radio", "Standard", ""),  # its clickable label is not listed again
        ("control", "textbox", "First name", ""),  # nor the visible label text
        ("control", "combobox", "Size", "M"),
        ("content", "text", "", "A sturdy item, model 0"),
        ("control", "button", "", "x Save"),
        ("control", "button", "Save", ""),
        ("control", "button", "Off", ""),
        ("control", "button", "Ghost", ""),
    ]
    assert lines[4].options == ["S", "M"]
    assert lines[8].attributes == {"disabled": ""}
    assert lines[-1].aria_hidden and not lines[-2].aria_hidden


def test_role_rung_proof_from_the_tree() -> None:
    roots = parse_aria_snapshot(PAGE)
    lines = collect_lines(roots)
    census = role_census(roots)
    by_name = {line.name: line for line in lines if line.kind == "control"}
    radio = candidate_rungs(by_name["Standard"], None, census)
    assert radio == [(role_rung("radio", "Standard"), True)]
    # A nameless button exists (its name was moved to its content): a named one is unproven.
    save = candidate_rungs(by_name["Save"], None, census)
    assert save == [(role_rung("button", "Save"), False)]
    # get_by_role cannot see an aria-hidden subtree: no role rung at all.
    assert candidate_rungs(by_name["Ghost"], None, census) == []


def test_rungs_follow_the_ladder_order() -> None:
    roots = parse_aria_snapshot(PAGE)
    line = next(line for line in collect_lines(roots) if line.name == "First name")
    facts = NodeFacts(
        tag="input",
        xpath="/html/body[1]/input[1]",
        css="#first",
        testid="first",
        placeholder="Jane",
        labels=["First name"],
        text="Hi",
        text_any_case=True,
    )
    kinds = [rung.kind for rung, _ in candidate_rungs(line, facts, role_census(roots))]
    assert kinds == list(LADDER_ORDER)
    proven = {rung.kind: ok for rung, ok in candidate_rungs(line, facts, role_census(roots))}
    assert proven == {
        "role": True, "label": False, "placeholder": True, "text": False,
        "text_normalized": False, "testid": True, "css": True, "xpath": True,
    }  # fmt: skip


SCROLLER = {"top": 50, "clientHeight": 600, "scrollTop": 900, "scrollHeight": 5000}


@pytest.mark.parametrize(
    ("top", "height", "inside", "container", "expected"),
    [
        (0, 20, False, None, 2),  # scrolled down 1100 px on a 540 px chunk grid
        (700, 2000, False, None, 3),  # a tall element counts where its top part is
        (100, 20, True, SCROLLER, 2),  # inside a scrolled container: 100 - 50 + 900 + 10
        (10, 20, False, SCROLLER, 2),  # a fixed header outside it: always on screen
    ],
)  # fmt: skip
def test_chunk_rule_matches_the_dom_view(
    top: float, height: float, inside: bool, container: dict[str, float] | None, expected: int
) -> None:
    scroll = Scroll(x=0, y=1100, width=1280, height=720, total=9000, container=container)
    chunk_h = scroll.chunk_height(0.75)
    assert scroll.chunk_of(top, height, inside, chunk_h) == expected


def test_rendered_lines() -> None:
    def line(**fields: object) -> str:
        return render_element(
            Element.model_validate(
                {"index": 3, "tag": "", "view": "aria", "selectors": ["internal:role=x"], **fields}
            )
        )

    assert line(role="button", name="Save") == "3:<button>Save"  # named by its content
    assert line(role="button", name="Close", text="X") == '3:<button name="Close">X'
    assert line(role="textbox", name='Say "hi"', text="typed") == (
        "3:<textbox name=\"Say 'hi'\">typed"
    )
    assert line(role="heading", name="Title", text="Title", attributes={"level": "2"}) == (
        "3:<heading level=2>Title"
    )
    assert (
        line(role="checkbox", name="Gift", attributes={"checked": ""}) == "3:<checkbox checked>Gift"
    )
    assert line(role="link", name="Help", attributes={"url": "/help"}) == '3:<link url="/help">Help'
    assert line(role="text", text="  two\n words ") == "3:two words"
    assert line(role="combobox", name="Size", text="M", options=["S", "M"]) == (
        '3:<combobox name="Size" options=[S|M]>M'
    )
    assert line(role="canvas", name="Chart", attributes={"size": "600x300"}) == (
        '3:<canvas name="Chart" size="600x300">'
    )
