"""The serializer on the project's fixture pages: what is in, what is out, and selectors that
resolve back through Playwright to exactly the element they were made for."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import ConfigurationError, Element, ElementNotFoundError, Snapshot
from stagehand_py._async.browser.inspect import annotated_screenshot, take_snapshot
from stagehand_py._async.browser.locate import frame_scope, locate
from tests import secret_values

PAGES_DIR = Path(__file__).resolve().parent.parent / "pages"
FIXTURE_PAGES = sorted(p.name for p in PAGES_DIR.glob("*.html")) + sorted(
    f"see/{p.name}" for p in (PAGES_DIR / "see").glob("*.html")
)
# Pages that take another origin in their query string (for their cross-origin frames).
CROSS_ORIGIN_QUERY = {"see/checkout.html": "pay", "see/help_center.html": "partner"}


async def open_page(page: AsyncPage, url: str) -> Snapshot:
    await page.goto(url)
    await page.wait_for_load_state("load")
    return await take_snapshot(page)


def with_id(snap: Snapshot, element_id: str) -> Element | None:
    found = [e for e in snap.elements if e.attributes.get("id") == element_id]
    assert len(found) <= 1, f"#{element_id} listed {len(found)} times"
    return found[0] if found else None


def texts(snap: Snapshot) -> list[str]:
    return [e.text for e in snap.elements]


@pytest.mark.parametrize("name", FIXTURE_PAGES)
@pytest.mark.no_sync_twin
async def test_every_selector_resolves_to_exactly_its_element(
    async_page: AsyncPage, pages_url: str, other_origin_url: str, name: str
) -> None:
    query = f"?{CROSS_ORIGIN_QUERY[name]}={other_origin_url}" if name in CROSS_ORIGIN_QUERY else ""
    snap = await open_page(async_page, pages_url + name + query)
    assert snap.elements, f"nothing serialized on {name}"
    # Text nodes share their parent's selectors: check each (frame, selectors) group once.
    groups: dict[tuple[tuple[str, ...], tuple[str, ...]], Element] = {}
    for element in snap.elements:
        assert element.selectors, f"{name}: element {element.index} has no selector"
        groups.setdefault((tuple(element.frame), tuple(element.selectors)), element)
    for probe, ((frame, selectors), element) in enumerate(groups.items()):
        scope = await frame_scope(async_page, frame)
        first = scope.locator(selectors[0])
        assert await first.count() == 1, f"{name}: {selectors[0]}"
        styled_toggle = element.tag == "input" and element.attributes.get("type") in {
            "radio",
            "checkbox",
        }
        if element.tag != "#text" and not styled_toggle:
            # The same element, not just some element: its box is the one we recorded.
            box = await first.bounding_box()
            assert box is not None and element.box is not None
            assert abs(box["x"] - element.box.x) < 1.5 and abs(box["y"] - element.box.y) < 1.5
            assert abs(box["width"] - element.box.width) < 1.5
        await first.evaluate("(el, probe) => el.setAttribute('data-probe', probe)", str(probe))
        for selector in selectors[1:]:
            other = scope.locator(selector)
            assert await other.count() == 1, f"{name}: {selector} is not unique"
            assert await other.get_attribute("data-probe") == str(probe), (
                f"{name}: {selector} finds a different element than {selectors[0]}"
            )


@pytest.mark.no_sync_twin
async def test_selectors_are_independent_and_most_exact_first(
    async_page: AsyncPage, pages_url: str
) -> None:
    snap = await open_page(async_page, pages_url + "form.html")
    email = with_id(snap, "email")
    assert email is not None
    assert email.selectors[0].startswith("xpath=/html/body[1]/")  # absolute path first
    assert 'xpath=//*[@id="email"]' in email.selectors
    assert 'xpath=//input[@name="email"]' in email.selectors
    interactive = [e for e in snap.elements if e.interactive]
    assert all(len(e.selectors) >= 2 for e in interactive)


@pytest.mark.no_sync_twin
async def test_labelled_form(async_page: AsyncPage, pages_url: str) -> None:
    snap = await open_page(async_page, pages_url + "form.html")
    for element_id in ("first-name", "last-name", "email", "password", "phone", "terms"):
        element = with_id(snap, element_id)
        assert element is not None and element.interactive, element_id
    email = with_id(snap, "email")
    assert email is not None and email.name == "Email address" and email.role == "textbox"
    country = with_id(snap, "country")
    assert country is not None and "Japan" in country.options
    assert "options=[Choose a country|United States|" in snap.render_all()
    assert "Create your account" in texts(snap)


@pytest.mark.no_sync_twin
async def test_password_value_is_never_emitted(async_page: AsyncPage, pages_url: str) -> None:
    await async_page.goto(pages_url + "form.html")
    await async_page.fill("#password", secret_values.PASSWORD)
    await async_page.fill("#email", "visible@example.com")
    # Even a value *attribute* on a password field stays out.
    await async_page.eval_on_selector(
        "#password", "(el, v) => el.setAttribute('value', v)", secret_values.PASSWORD
    )
    snap = await take_snapshot(async_page)
    password = with_id(snap, "password")
    assert password is not None and "value" not in password.attributes
    assert secret_values.PASSWORD not in snap.model_dump_json()
    assert secret_values.PASSWORD not in snap.render_all()
    email = with_id(snap, "email")
    assert email is not None and email.attributes["value"] == "visible@example.com"


@pytest.mark.no_sync_twin
async def test_styled_radios_and_checkboxes_are_kept(async_page: AsyncPage, pages_url: str) -> None:
    snap = await open_page(async_page, pages_url + "radios.html")
    for element_id in ("ship-standard", "ship-express", "ship-overnight", "extra-gift"):
        toggle = with_id(snap, element_id)
        assert toggle is not None and toggle.interactive, element_id
        # Positioned where the user sees it: on its label.
        label_box = await async_page.locator(f"label[for={element_id}]").bounding_box()
        assert toggle.box is not None and label_box is not None
        assert abs(toggle.box.y - label_box["y"]) < 1.5
    standard = with_id(snap, "ship-standard")
    assert standard is not None and standard.attributes.get("checked") == "true"
    express = with_id(snap, "ship-express")
    assert express is not None and 'xpath=//input[@name="shipping"][@value="express"]' in (
        express.selectors
    )


@pytest.mark.no_sync_twin
async def test_dropdowns(async_page: AsyncPage, pages_url: str) -> None:
    snap = await open_page(async_page, pages_url + "dropdowns.html")
    size = with_id(snap, "size")
    assert size is not None and size.options == ["Small", "Medium", "Large", "Extra large"]
    assert size.attributes["value"] == "m"
    assert with_id(snap, "color-red") is None  # the custom list is closed
    await async_page.click("#color-button")
    snap = await take_snapshot(async_page)
    red = with_id(snap, "color-red")
    assert red is not None and red.interactive and red.role == "option"
    button = with_id(snap, "color-button")
    assert button is not None and button.attributes["aria-expanded"] == "true"


@pytest.mark.no_sync_twin
async def test_modal_overlay_hides_what_it_covers(async_page: AsyncPage, pages_url: str) -> None:
    snap = await open_page(async_page, pages_url + "modal.html")
    assert with_id(snap, "buy-now") is None
    assert "Espresso Machine Pro" not in texts(snap)  # the heading is under the backdrop too
    assert with_id(snap, "footer-terms") is None  # off-screen, but behind the modal all the same
    close = with_id(snap, "modal-close")
    assert close is not None and close.interactive
    await async_page.click("#modal-close")
    snap = await take_snapshot(async_page)
    assert with_id(snap, "buy-now") is not None
    assert with_id(snap, "modal-close") is None
    assert with_id(snap, "footer-terms") is not None


@pytest.mark.no_sync_twin
async def test_disabled_and_hidden_controls(async_page: AsyncPage, pages_url: str) -> None:
    snap = await open_page(async_page, pages_url + "disabled.html")
    ids = {e.attributes.get("id") for e in snap.elements} - {None}
    dropped = {
        "hidden-button",
        "display-none-button",
        "invisible-button",
        "zero-size-button",
        "offscreen-button",
        "collapsed-button",
    }
    assert not ids & dropped, ids & dropped
    enabled = with_id(snap, "enabled-button")
    assert enabled is not None and enabled.interactive and not enabled.disabled
    # Disabled controls keep their text, flagged and not actionable.
    for element_id in (
        "disabled-button",
        "disabled-input",
        "fieldset-input",
        "aria-disabled-button",
    ):
        element = with_id(snap, element_id)
        assert element is not None and element.disabled and not element.interactive, element_id
    delete = with_id(snap, "disabled-button")
    assert delete is not None and delete.text == "Delete account"
    assert snap.render_element(delete.index).endswith(" disabled>Delete account</button>")
    # aria-hidden hides from screen readers, not from the mouse: the visible button stays.
    hidden_from_ax = with_id(snap, "aria-hidden-button")
    assert hidden_from_ax is not None and hidden_from_ax.interactive and hidden_from_ax.aria_hidden
    assert "Decorative" not in texts(snap)  # text inside aria-hidden goes


async def test_cookie_banner_covers_subscribe_until_accepted(
    async_page: AsyncPage, pages_url: str
) -> None:
    snap = await open_page(async_page, pages_url + "cookie.html")
    assert with_id(snap, "subscribe") is None
    accept = with_id(snap, "cookie-accept")
    assert accept is not None and with_id(snap, "cookie-reject") is not None
    locator, _ = await locate(async_page, accept)
    await locator.click()
    snap = await take_snapshot(async_page)
    assert with_id(snap, "cookie-accept") is None
    assert with_id(snap, "subscribe") is not None


@pytest.mark.no_sync_twin
async def test_nested_open_shadow_dom(async_page: AsyncPage, pages_url: str) -> None:
    snap = await open_page(async_page, pages_url + "shadow.html")
    field = with_id(snap, "shadow-input")
    button = with_id(snap, "shadow-button")
    assert field is not None and button is not None
    assert all(s.startswith("css=") for s in field.selectors + button.selectors)
    assert len(field.selectors) >= 2 and len(button.selectors) >= 2
    assert "Public profile" in texts(snap)
    field_locator, _ = await locate(async_page, field)
    await field_locator.fill("Grace Hopper")
    button_locator, _ = await locate(async_page, button)
    await button_locator.click()
    assert await async_page.text_content("#shadow-result") == "Grace Hopper"


@pytest.mark.no_sync_twin
async def test_nested_same_origin_frames(async_page: AsyncPage, pages_url: str) -> None:
    snap = await open_page(async_page, pages_url + "frames.html")
    field = with_id(snap, "frame-input")
    button = with_id(snap, "frame-button")
    assert field is not None and button is not None
    assert len(field.frame) == 2 and field.frame == button.frame
    assert "Live chat" in texts(snap)  # the outer frame's own content
    # The partner widget (localhost: another origin) is serialized by its own evaluate.
    [hi] = [e for e in snap.elements if e.text == "Hi"]
    assert hi.interactive and hi.frame == ['xpath=//*[@id="foreign-frame"]']
    outer_box = await async_page.locator("#outer-frame").bounding_box()
    assert field.box is not None and outer_box is not None and field.box.y > outer_box["y"]
    locator, _ = await locate(async_page, field)
    await locator.fill("hello from a test")
    locator, _ = await locate(async_page, button)
    await locator.click()
    inner = async_page.frame_locator("#outer-frame").frame_locator("#inner-frame")
    assert await inner.locator("#frame-result").text_content() == "Sent: hello from a test"


@pytest.mark.no_sync_twin
async def test_long_page_chunks_nearest_first(async_page: AsyncPage, pages_url: str) -> None:
    snap = await open_page(async_page, pages_url + "long.html")
    load_more = with_id(snap, "load-more")
    assert load_more is not None and load_more.chunk == 2  # ~1.9 viewports down
    write_review = with_id(snap, "write-review")
    assert write_review is not None and write_review.chunk >= 12  # kept although off-screen
    assert snap.chunk_order()[:3] == [0, 1, 2]
    await async_page.evaluate("window.scrollTo(0, 2880)")  # 4 viewports down
    snap = await take_snapshot(async_page)
    assert snap.scroll_y == 2880
    order = snap.chunk_order()
    current = math.floor(2880 / (0.75 * 720))
    assert order[0] == current
    distances = [abs(c - current) for c in order]
    assert distances == sorted(distances)


@pytest.mark.no_sync_twin
async def test_scroll_container_is_detected(async_page: AsyncPage, pages_url: str) -> None:
    snap = await open_page(async_page, pages_url + "scroll_div.html")
    assert snap.scroll_container is not None
    container = async_page.locator(snap.scroll_container)
    assert await container.get_attribute("id") == "main-scroll"
    report = with_id(snap, "report-button")
    assert report is not None and report.chunk > 4  # chunked by the div's scroll height
    compose = with_id(snap, "compose")
    assert compose is not None and compose.chunk == 0
    await container.evaluate("el => { el.scrollTop = 2000; }")
    snap = await take_snapshot(async_page)
    assert snap.scroll_y == 2000
    client_height = await container.evaluate("el => el.clientHeight")
    assert snap.chunk_order()[0] == math.floor(2000 / (0.75 * client_height))
    compose = with_id(snap, "compose")  # the fixed header travels with the current chunk
    assert compose is not None and compose.chunk == snap.chunk_order()[0]


@pytest.mark.no_sync_twin
async def test_japanese_text_is_intact(async_page: AsyncPage, pages_url: str) -> None:
    snap = await open_page(async_page, pages_url + "japanese.html")
    rendered = snap.render_all()
    for text in ("氏名", "メールアドレス", "お問い合わせフォーム"):
        assert text in rendered
    name = with_id(snap, "jp-name")
    assert name is not None and name.name == "氏名"
    submit = with_id(snap, "jp-submit")
    assert submit is not None and submit.text == "送信"
    assert 'xpath=//button[normalize-space(.)="送信"]' in submit.selectors


@pytest.mark.no_sync_twin
async def test_page_that_changes_after_a_click(async_page: AsyncPage, pages_url: str) -> None:
    snap = await open_page(async_page, pages_url + "changes.html")
    assert with_id(snap, "finish") is None
    await async_page.click("#next")
    snap = await take_snapshot(async_page)
    assert with_id(snap, "next") is None
    assert with_id(snap, "workspace-name") is not None and with_id(snap, "finish") is not None


async def test_unknown_element_number(async_page: AsyncPage, pages_url: str) -> None:
    snap = await open_page(async_page, pages_url + "hello.html")
    with pytest.raises(ElementNotFoundError, match="no element number 42"):
        snap.element(42)
    with pytest.raises(ConfigurationError, match="chunk_ratio"):
        await take_snapshot(async_page, chunk_ratio=0)


@pytest.mark.no_sync_twin
async def test_chunk_ratio_sets_the_chunk_height(async_page: AsyncPage, pages_url: str) -> None:
    await async_page.goto(pages_url + "long.html")
    snap = await take_snapshot(async_page, chunk_ratio=1.5)
    load_more = with_id(snap, "load-more")
    assert load_more is not None and load_more.chunk == 1  # 1368 px / (1.5 x 720 px)
    assert all(c.bottom - c.top == 1080 for c in snap.chunks)


@pytest.mark.no_sync_twin
async def test_annotated_screenshot_leaves_the_page_unchanged(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    await async_page.goto(pages_url + "frames.html")
    await async_page.wait_for_load_state("load")
    inner = async_page.frame_locator("#outer-frame").frame_locator("#inner-frame")
    html = "document.documentElement.outerHTML"
    # Chromium's own screenshot path stamps style="" on inputs (here one inside nested frames):
    # annotated_screenshot undoes that too.
    before = await async_page.evaluate(html)
    before_inner = await inner.locator("html").evaluate("el => el.outerHTML")
    target = tmp_path / "annotated.png"
    snap = await annotated_screenshot(async_page, target)
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert snap.elements
    assert await async_page.evaluate(html) == before
    assert await inner.locator("html").evaluate("el => el.outerHTML") == before_inner
