"""Pure checks of the elements a doAction targets (stagehand_py._act_targets), the list
containers the act loop searches, and the aria view as extract()'s page text."""

from __future__ import annotations

from typing import Any

from stagehand_py import Snapshot
from stagehand_py._act_decision import DoAction, SkipSection
from stagehand_py._act_targets import (
    canvas_choice,
    canvas_message,
    offered,
    refused,
    same_element,
)
from stagehand_py._async.act.vlist import searchable
from stagehand_py.aria._ladder import readable_ladder
from stagehand_py.aria._render import render_aria_element
from stagehand_py.aria._text import aria_page_text
from stagehand_py.aria._vlist import ListContainer
from stagehand_py.llm._messages import ToolCall

CALL = ToolCall(id="c1", name="doAction", arguments={})


def _snapshot(*elements: dict[str, Any], url: str = "http://shop.test/a/b.html") -> Snapshot:
    rows = [
        {"index": i, "tag": "", "selectors": ["xpath=//x"], **e} for i, e in enumerate(elements)
    ]
    return Snapshot.model_validate(
        {
            "url": url,
            "title": "Shop",
            "viewport": {"width": 800, "height": 600},
            "scroll_y": 0,
            "elements": rows,
            "chunks": [
                {"index": 0, "top": 0, "bottom": 450, "element_indexes": list(range(len(rows)))}
            ],
        }
    )


def _do(element: int, target: int | None = None) -> DoAction:
    return DoAction("click", element, [], "", "", False, CALL, target=target)


def test_elements_without_a_selector_are_never_offered() -> None:
    snap = _snapshot(
        {"tag": "button", "text": "Save"},
        {"tag": "button", "text": "Save", "selectors": [], "view": "aria"},
    )
    assert offered(snap, [0]) == {0}
    assert offered(snap, [1]) == set()  # no such chunk


def test_disabled_and_unlocatable_elements_are_shown_refused_with_a_reason() -> None:
    snap = _snapshot(
        {"tag": "button", "text": "Save"},
        {"tag": "button", "text": "Delete", "disabled": True},
        {"tag": "", "role": "button", "name": "Pay", "attributes": {"disabled": ""}},
        {"tag": "", "role": "button", "name": "Copy", "selectors": [], "view": "aria"},
        {"tag": "", "role": "text", "text": "Terms apply", "selectors": [], "view": "aria"},
    )
    assert offered(snap, [0]) == {0}
    assert refused(snap, [0]) == {
        1: "is disabled",
        2: "is disabled",
        3: "has no locator that finds exactly it on the page",
        4: "has no locator that finds exactly it on the page",
    }
    # The line says so too: a control without a locator is marked, plain text is not.
    assert render_aria_element(snap.element(3)) == "3:<button no-locator>Copy"
    assert render_aria_element(snap.element(4)) == "4:Terms apply"
    assert "no-locator" not in render_aria_element(
        snap.element(0).model_copy(update={"role": "button"})
    )


def test_a_canvas_choice_is_found_as_element_or_drop_target() -> None:
    snap = _snapshot(
        {"tag": "button", "text": "Go"},
        {"tag": "canvas", "attributes": {"size": "480x200"}, "name": "Seat map"},
        {"tag": "", "role": "canvas", "view": "aria", "attributes": {"size": "30x30"}},
    )
    assert canvas_choice(snap, [_do(0)]) is None
    assert canvas_choice(snap, [SkipSection("no", CALL)]) is None
    assert canvas_choice(snap, [_do(0), _do(1)]) == snap.element(1)
    assert canvas_choice(snap, [_do(0, target=2)]) == snap.element(2)
    message = canvas_message(snap.element(1), snap.url)
    assert "'Seat map'" in message and "480x200" in message and "coordinates" in message


def test_the_same_element_is_found_again_only_when_it_is_the_only_one_alike() -> None:
    old = _snapshot({"tag": "button", "text": "Pay now", "attributes": {"id": "a1"}})
    moved = _snapshot(
        {"tag": "h1", "text": "Basket"},
        {"tag": "button", "text": "Pay now", "attributes": {"id": "b7"}},
    )
    assert same_element(old.element(0), moved) == 1  # a new generated id does not matter
    repriced = _snapshot({"tag": "button", "text": "Pay £26.50"})
    assert same_element(old.element(0), repriced) is None  # another meaning: ask the model
    twice = _snapshot({"tag": "button", "text": "Pay now"}, {"tag": "button", "text": "Pay now"})
    assert same_element(old.element(0), twice) is None
    typed = _snapshot({"tag": "button", "text": "Pay now", "attributes": {"type": "submit"}})
    assert same_element(old.element(0), typed) is None
    nameless = _snapshot({"tag": "div"})
    assert same_element(nameless.element(0), nameless) is None


def test_only_list_containers_that_can_scroll_are_searched() -> None:
    def container(scrolls: bool, client: float, total: float) -> ListContainer:
        return ListContainer("css=ul", "list", scrolls, total / client, client, total, 0)

    assert searchable(container(True, 600, 3000))
    assert searchable(container(False, 600, 900))  # a list role that overflows a little
    assert not searchable(container(False, 600, 602))  # everything in view already


def test_readable_ladder_only_for_aria_elements() -> None:
    selectors = ['internal:role=button[name="Save"s]', "css=#save"]
    assert readable_ladder("aria", selectors, ["css=iframe"]) == [
        'page.frame_locator("css=iframe").get_by_role("button", name="Save", exact=True)',
        'page.frame_locator("css=iframe").locator("css=#save")',
    ]
    assert readable_ladder("dom", selectors, []) == []


def test_aria_view_as_extract_text() -> None:
    snap = _snapshot(
        {"role": "heading", "text": "Lamps", "attributes": {"level": "1"}, "view": "aria"},
        {"role": "text", "text": "Warm  light", "view": "aria"},
        {"role": "link", "name": "Paper lamp", "attributes": {"url": "/p/1"}, "view": "aria"},
        {"role": "link", "name": "Again", "attributes": {"url": "/p/1"}, "view": "aria"},
        {"role": "link", "name": "Script", "attributes": {"url": "javascript:x()"}, "view": "aria"},
        {"role": "textbox", "name": "Email", "text": "ada@x.org", "view": "aria"},
        {"role": "combobox", "name": "Size", "text": "M", "options": ["S", "M"], "view": "aria"},
        {"role": "canvas", "name": "Chart", "view": "aria"},
    )
    text = aria_page_text(snap)
    assert [b.text for b in text.blocks] == [
        "# Lamps",
        "Warm light",
        "[link 1: Paper lamp]",
        "[link 1: Again]",
        "Script",
        "[textbox: Email] = ada@x.org",
        "[combobox: Size] = M (options: S, M)",
    ]
    assert text.links == {1: "http://shop.test/p/1"}
    assert text.url == snap.url and text.title == "Shop"


def test_link_addresses_are_relative_and_shown_only_when_the_name_is_ambiguous() -> None:
    from stagehand_py.aria._assemble import HIDDEN_URL, _shorten_links

    rows: list[dict[str, Any]] = [
        {"role": "link", "name": "Home", "attributes": {"url": "http://shop.test/"}},
        {"role": "link", "name": "Details", "attributes": {"url": "http://shop.test/p/1?x=1"}},
        {"role": "link", "name": "Details", "attributes": {"url": "https://other.test/p/2"}},
        {"role": "link", "name": "", "attributes": {"url": "#top"}},
        {"role": "button", "name": "Go", "attributes": {}},
    ]
    _shorten_links(rows, "http://shop.test/catalogue")
    assert rows[0]["attributes"] == {HIDDEN_URL: "/"}
    assert rows[1]["attributes"] == {"url": "/p/1?x=1"}
    assert rows[2]["attributes"] == {"url": "https://other.test/p/2"}
    assert rows[3]["attributes"] == {"url": "#top"}  # no name: the address is all it says
    assert rows[4]["attributes"] == {}
