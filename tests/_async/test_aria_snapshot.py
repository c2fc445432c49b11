"""The accessibility-tree view on real Chromium: every stored rung resolves back through
Playwright to exactly the element the tree showed, on every fixture page; the ladder picks
the rung the ADR ranks first among the unique ones; canvases, shadow roots and frames."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand, ConfigurationError, Element, Snapshot, take_snapshot
from stagehand_py._async.aria.checks import check_element
from stagehand_py._async.browser.closed_shadow import scoped_locator
from stagehand_py._async.browser.executor import perform
from stagehand_py._async.browser.inspect import take_snapshot as async_take_snapshot
from stagehand_py._async.browser.locate import frame_scope
from stagehand_py.aria import public_form

PAGES_DIR = Path(__file__).resolve().parent.parent / "pages"
ALL_PAGES = sorted(p.name for p in PAGES_DIR.glob("*.html")) + sorted(
    f"{d}/{p.name}" for d in ("aria", "hybrid") for p in (PAGES_DIR / d).glob("*.html")
)


async def aria_snapshot_of(page: AsyncPage, url: str) -> Snapshot:
    await page.goto(url)
    await page.wait_for_load_state("load")
    return await async_take_snapshot(page, mode="aria")


def control(snap: Snapshot, role: str, name: str, nth: int = 0) -> Element:
    found = [e for e in snap.elements if e.role == role and e.name == name]
    assert len(found) > nth, f"no {role} {name!r} #{nth} in:\n{snap.render_all()}"
    return found[nth]


@pytest.mark.parametrize("name", ALL_PAGES)
@pytest.mark.no_sync_twin(keep=["cookie.html", "hybrid/closed_shadow.html"])
async def test_every_stored_rung_resolves_to_exactly_the_chosen_element(
    async_page: AsyncPage, pages_url: str, name: str
) -> None:
    snap = await aria_snapshot_of(async_page, pages_url + name)
    assert snap.elements and all(e.view == "aria" for e in snap.elements)
    for element in snap.elements:
        if element.interactive:
            assert element.selectors, f"{name}: {element}"
        if element.ref:
            bad = [c for c in await check_element(async_page, element) if not c.ok]
            assert not bad, f"{name}: element {element.index} {element.role} {element.name}: {bad}"
        elif element.selectors:
            # No tree node to compare with (a canvas the tree does not list, a clickable the
            # page made without markup, a control inside a closed shadow root): every rung
            # finds one element, the same one, of the tag the view read.
            scope = await frame_scope(async_page, element.frame)
            found = [scoped_locator(async_page, scope, s) for s in element.selectors]
            for selector, located in zip(element.selectors, found, strict=True):
                assert await located.count() == 1, f"{name}: {selector}"
                assert await located.evaluate("e => e.localName") == element.tag
                assert await located.evaluate("(e, o) => e === o", await found[0].element_handle())


@pytest.mark.no_sync_twin
async def test_controls_told_apart_by_role_and_label_only(
    async_page: AsyncPage, pages_url: str
) -> None:
    snap = await aria_snapshot_of(async_page, pages_url + "aria/roles.html")
    for role, name in [
        ("link", "Invite"),
        ("button", "Invite"),
        ("checkbox", "Digest"),
        ("switch", "Digest"),
        ("textbox", "Team name"),
        ("searchbox", "Team name"),
        ("spinbutton", "Seats"),
        ("combobox", "Seats"),
        ("radio", "Yearly"),
        ("tab", "Yearly"),
    ]:
        element = control(snap, role, name)
        assert element.interactive
        assert public_form(element.selectors[0]) == (
            f'page.get_by_role("{role}", name="{name}", exact=True)'
        )
    assert control(snap, "radio", "Yearly").attributes == {"checked": ""}
    assert control(snap, "combobox", "Seats").options == ["5", "10", "25"]
    # The shared visible text "Invite" is not listed again beside its controls.
    assert "Invite" not in [e.text for e in snap.elements if e.role == "text"]


async def test_duplicated_labels_fall_to_the_first_unique_lower_rung(
    async_page: AsyncPage, pages_url: str
) -> None:
    snap = await aria_snapshot_of(async_page, pages_url + "aria/duplicates.html")
    first_rungs = {
        (e.role, e.name, n): public_form(e.selectors[0])
        for role, name in [
            ("textbox", "Name"),
            ("button", "Edit"),
            ("checkbox", "Gift wrap"),
            ("button", "Open"),
            ("link", "More"),
        ]
        for n in (0, 1)
        for e in [control(snap, role, name, n)]
    }
    assert first_rungs == {
        ("textbox", "Name", 0): 'page.get_by_placeholder("Name on the card", exact=True)',
        ("textbox", "Name", 1): 'page.get_by_placeholder("Who receives the parcel", exact=True)',
        ("button", "Edit", 0): 'page.locator("xpath=/html/body[1]/section[1]/p[1]/button[1]")',
        ("button", "Edit", 1): 'page.get_by_test_id("edit-jacket")',
        ("checkbox", "Gift wrap", 0): 'page.get_by_label("Gift wrap", exact=True)',
        ("checkbox", "Gift wrap", 1): 'page.locator("xpath=/html/body[1]/section[2]/span[1]")',
        ("button", "Open", 0): 'page.get_by_text("Open", exact=True)',
        ("button", "Open", 1): 'page.get_by_label("Open", exact=True)',
        ("link", "More", 0): 'page.locator("xpath=/html/body[1]/footer[1]/a[1]")',
        ("link", "More", 1): 'page.locator("xpath=/html/body[1]/footer[1]/a[2]")',
    }
    # No rung that matches two elements was stored for either "Edit".
    for n in (0, 1):
        assert not any("internal:role" in s for s in control(snap, "button", "Edit", n).selectors)


@pytest.mark.no_sync_twin
async def test_canvas_is_listed_with_size_and_name_and_never_actionable(
    async_page: AsyncPage, pages_url: str
) -> None:
    snap = await aria_snapshot_of(async_page, pages_url + "aria/canvas.html")
    canvases = [e for e in snap.elements if e.role == "canvas"]
    assert [(c.name, c.tag, c.interactive) for c in canvases] == [
        ("Seat map", "canvas", False),
        ("", "canvas", False),  # unlabelled: absent from the tree, found in the DOM
    ]
    assert canvases[0].attributes == {"size": "482x202"}  # its box, border included
    line = snap.render_element(canvases[0].index)
    assert line.endswith('<canvas name="Seat map" size="482x202">')
    assert canvases[0].selectors[0] == "css=#seat-map"
    assert control(snap, "button", "Continue").interactive


async def test_shadow_roots_and_frames_act_through_the_unchanged_executor(
    async_page: AsyncPage, pages_url: str
) -> None:
    snap = await aria_snapshot_of(async_page, pages_url + "aria/shadow_frame.html")
    postcode = control(snap, "textbox", "Postcode")  # two shadow roots deep
    assert not postcode.frame and not any(s.startswith("xpath=") for s in postcode.selectors)
    coupon = control(snap, "textbox", "Coupon code")
    apply = control(snap, "button", "Apply")
    assert coupon.frame == ['css=iframe[title="Coupon"]'] == apply.frame
    assert coupon.ref.startswith("f") and apply.ref.startswith("f")  # a frame's refs: fNeM
    assert coupon.box is not None and coupon.box.y > 0
    # Stored rungs only (no aria-ref), through the executor act() uses.
    await perform(async_page, method="fill", selectors=postcode.selectors, args=["SW1A 1AA"])
    look_up = control(snap, "button", "Look up")
    await perform(async_page, method="click", selectors=look_up.selectors)
    await perform(
        async_page, method="fill", selectors=coupon.selectors, frame=coupon.frame, args=["SPRING24"]
    )
    await perform(async_page, method="click", selectors=apply.selectors, frame=apply.frame)
    after = await async_take_snapshot(async_page, mode="aria")
    texts = [e.text for e in after.elements]
    assert "Found 1 address for SW1A 1AA" in texts and "Applied SPRING24" in texts


async def test_mode_switch(async_page: AsyncPage, pages_url: str) -> None:
    await async_page.goto(pages_url + "form.html")
    aria = await take_snapshot(async_page, mode="aria")
    dom = await take_snapshot(async_page)
    assert {e.view for e in aria.elements} == {"aria"} and {e.view for e in dom.elements} == {"dom"}
    assert len(aria.render_all()) < len(dom.render_all())
    with pytest.raises(ConfigurationError, match="mode must be one of"):
        await async_take_snapshot(async_page, mode="tree")  # type: ignore[arg-type]
    assert AsyncStagehand(llm=None, snapshot="aria").settings.snapshot == "aria"
    with pytest.raises(ConfigurationError, match="snapshot"):
        AsyncStagehand(llm=None, snapshot="accessibility")


@pytest.mark.no_sync_twin
async def test_disabled_controls_are_listed_but_not_offered(
    async_page: AsyncPage, pages_url: str
) -> None:
    snap = await aria_snapshot_of(async_page, pages_url + "disabled.html")
    delete = control(snap, "button", "Delete account")
    assert delete.attributes == {"disabled": ""} and not delete.interactive
    assert snap.render_element(delete.index).endswith("<button disabled>Delete account")
    assert control(snap, "button", "Continue").interactive


@pytest.mark.parametrize("name", ["aria/duplicates.html", "form.html"])
@pytest.mark.no_sync_twin
async def test_elements_built_without_validation_equal_validated_ones(
    async_page: AsyncPage, pages_url: str, name: str
) -> None:
    snap = await aria_snapshot_of(async_page, pages_url + name)

    assert snap.elements and any(e.box is not None for e in snap.elements)
    for element in snap.elements:  # every field the model declares, in its order
        assert list(element.__dict__) == list(Element.model_fields)
        assert Element.model_validate(element.model_dump()) == element
    assert Snapshot.model_validate_json(snap.model_dump_json()) == snap


@pytest.mark.parametrize("title", ["Renamed by a script", ""], ids=["set", "emptied"])
@pytest.mark.no_sync_twin
async def test_the_title_is_read_with_the_top_frames_facts(
    async_page: AsyncPage, pages_url: str, monkeypatch: pytest.MonkeyPatch, title: str
) -> None:
    # The title as the document has it now (a script changed it after load), and no round
    # trip of its own: the facts of the top frame carry it.
    await async_page.goto(pages_url + "form.html")
    await async_page.evaluate("(title) => { document.title = title; }", title)

    async def no_title_call() -> str:
        raise AssertionError("page.title() was called: the facts carry the title")

    monkeypatch.setattr(async_page, "title", no_title_call)
    snap = await async_take_snapshot(async_page, mode="aria")
    assert snap.title == title
