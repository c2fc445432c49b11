"""What the secret scope check reads about a field, and how it reads it.

A field of the page's main frame named by an XPath is read by an installed page script of our
own (a plain evaluate), not through Playwright's selector engine in the page's world, which
Playwright would first have to set up in that document. Both ways must read the same facts.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.async_api import Locator as AsyncLocator
from playwright.async_api import Page as AsyncPage

from stagehand_py._async.browser.secret_guard import field_facts
from stagehand_py._secret_scope import SecretScope, refusal
from tests._async.isolated_reads import count_isolated_reads

# (page, XPath of the field) on fixture pages: a labelled password field and an email field
# with a placeholder of a signup form, a search box whose form posts to another origin, and
# fields of a page whose own script stops other scripts from defining globals (ours runs there
# without being kept in the document).
FIELDS = [
    ("form.html", "/html/body[1]/main[1]/form[1]/div[3]/input[1]"),
    ("form.html", "//*[@id='email']"),
    ("hostile/search_trap.html?collect=http://127.0.0.1:9/collect", "//*[@id='q']"),
    # A page that stops scripts from defining globals: ours runs without being kept.
    ("hostile/locked_globals.html", "//*[@id='user-password']"),
    ("hostile/locked_globals.html", "/html/body[1]/main[1]/form[1]/input[1]"),
]


@pytest.mark.parametrize(("path", "xpath"), FIELDS)
@pytest.mark.no_sync_twin
async def test_a_main_frame_xpath_reads_the_same_facts_as_the_elements_handle(
    async_page: AsyncPage, pages_url: str, path: str, xpath: str
) -> None:
    await async_page.goto(pages_url + path)
    locator = async_page.locator(f"xpath={xpath}")
    through_handle = await field_facts(locator, timeout_ms=2000)
    through_script = await field_facts(
        locator, timeout_ms=2000, frame=async_page.main_frame, selector=f"xpath={xpath}"
    )

    assert through_script == through_handle
    assert through_script.tag == "input" and through_script.form_targets


@pytest.mark.no_sync_twin
async def test_a_main_frame_xpath_never_goes_through_playwrights_engine_in_the_page(
    async_page: AsyncPage, pages_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine_calls: list[str] = []

    async def counted(self: AsyncLocator, *args: Any, **kwargs: Any) -> Any:
        engine_calls.append(str(self))
        return await original(self, *args, **kwargs)

    original = AsyncLocator.evaluate_all
    monkeypatch.setattr(AsyncLocator, "evaluate_all", counted)
    await async_page.goto(pages_url + "form.html")
    main = async_page.main_frame

    by_xpath = "xpath=//*[@id='password']"
    facts = await field_facts(
        async_page.locator(by_xpath), timeout_ms=2000, frame=main, selector=by_xpath
    )
    assert facts.type == "password" and "Password" in facts.labels
    assert engine_calls == []

    # A selector only Playwright's engine understands still goes through it.
    await field_facts(
        async_page.locator("#password"), timeout_ms=2000, frame=main, selector="#password"
    )
    assert len(engine_calls) == 1


@pytest.mark.no_sync_twin
async def test_an_xpath_that_finds_several_fields_is_read_through_the_locator(
    async_page: AsyncPage, pages_url: str
) -> None:
    await async_page.goto(pages_url + "form.html")
    several = "xpath=//input[@type='password' or @type='email']"
    one = async_page.locator(several).first

    facts = await field_facts(one, timeout_ms=2000, frame=async_page.main_frame, selector=several)

    assert facts.type == "email"  # the locator's element, not a guess among the matches


# Fields whose form sends only to the page's own origin, and how many isolated-world reads
# prove it: no form or no action (one), a blank action, a path from the root or a relative
# path (two more: the path needs no <base href> in the document).
OWN_ORIGIN = [
    ("no-action", 1),
    ("no-form", 1),
    ("blank-action", 3),
    ("rooted-path", 3),
    ("relative-path", 3),
]
# Fields whose form sends to another origin, some written to pass for a path on this one:
# (page, field selector). A base URL moves paths elsewhere, also for a form in a shadow root
# (whose XPaths see only its own tree); a submit button can carry its own target, inside the
# form or owning it from outside; a field can belong to a form elsewhere, and a page script
# can hide that from anything reading it in the page's world.
ELSEWHERE = [
    ("targets/far.html", "#absolute"),
    ("targets/far.html", "#protocol-relative"),
    ("targets/far.html", "#backslash"),
    ("targets/far.html", "#tab"),
    ("targets/far.html", "#newline"),
    ("targets/far.html", "#owned-elsewhere"),
    ("targets/formaction.html", "#inside"),
    ("targets/formaction.html", "#outside"),
    ("targets/base.html", "#rooted"),
    ("targets/base.html", "#relative"),
    ("targets/shadow_base.html", "#shadow-email"),
    ("targets/disguised_owner.html", "#email"),
]


@pytest.mark.parametrize(("field", "reads_needed"), OWN_ORIGIN)
@pytest.mark.no_sync_twin(keep=["no-form-1"])
async def test_a_form_that_stays_on_its_origin_is_proven_so_without_reading_targets(
    async_page: AsyncPage,
    pages_url: str,
    field: str,
    reads_needed: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await async_page.goto(pages_url + "targets/own.html")
    by_xpath = f"xpath=//*[@id='{field}']"
    reads = count_isolated_reads(monkeypatch)

    facts = await field_facts(
        async_page.locator(by_xpath),
        timeout_ms=2000,
        frame=async_page.main_frame,
        selector=by_xpath,
    )

    assert facts.form_targets == (async_page.url,)
    assert reads == ["count"] * reads_needed
    scope = SecretScope.for_variable(async_page.url, None)
    assert refusal("email", "fill", facts, scope) is None


@pytest.mark.parametrize(("path", "field"), ELSEWHERE)
async def test_a_form_that_sends_elsewhere_is_read_target_by_target_and_refused(
    async_page: AsyncPage, pages_url: str, path: str, field: str
) -> None:
    await async_page.goto(pages_url + path)

    facts = await field_facts(
        async_page.locator(field), timeout_ms=2000, frame=async_page.main_frame, selector=field
    )

    assert "collect.invalid" in {urlsplit(url).hostname for url in facts.form_targets}
    reason = refusal("email", "fill", facts, SecretScope.for_variable(async_page.url, None))
    assert reason is not None and "sends its data to http" in reason, reason
    assert "://collect.invalid:" in reason
