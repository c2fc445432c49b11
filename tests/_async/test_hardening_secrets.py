"""Secrets go only where they belong, and nowhere else in any form (issue #13, items 1-2).

Hostile pages (tests/pages/hostile/) lure a gullible model into typing a password into a
search box whose form posts to another origin, or onto a look-alike sign-in page served from
another origin (``other_origin_url``); a well-behaved model on an echoing page checks that
no derived form of a value reaches the model, results or history, across calls.
"""

from __future__ import annotations

import logging
import re
import traceback
from typing import Any
from urllib.parse import quote

import pytest
from playwright.async_api import Page as AsyncPage
from playwright.async_api import Request as AsyncRequest

from stagehand_py import AsyncStagehand, Secret, StagehandError
from stagehand_py.llm._messages import Message, ToolCall, ToolSpec
from stagehand_py.testing import AsyncFunctionLLM, AsyncScriptedLLM, do_action, skip_section
from tests import secret_values
from tests._async.plan_llm import AsyncPlanLLM, Step, find_element
from tests.agent_plan import AgentPlan, Do, done, state_text

EMAIL, PASSWORD = secret_values.EMAIL, secret_values.PASSWORD
SECRETS = {"email": EMAIL, "password": PASSWORD}
EMAIL_FIELD = r'(?i)^<(?:input\b[^>]*type="email"|textbox\b.*email)'  # DOM or aria line


def _leaks(texts: list[str]) -> list[str]:
    """Every derived form of a secret found in ``texts``."""
    return [form for form in secret_values.FORMS for text in texts if form in text]


def _section(messages: list[Message]) -> str:
    return messages[1].content.split("(nearest to the current scroll position first):")[-1]


def _gullible(messages: list[Message], tools: list[ToolSpec]) -> ToolCall:
    """A model that does what the page tells it: the password goes where the page says."""
    section = _section(messages)
    if "password in the search box" in section:
        target = find_element(section, r'type="search"')
    elif "re-enter your email and password" in section:
        target = find_element(section, r'type="password"')
    else:
        return skip_section("the page asks for nothing")
    assert target is not None, section
    return do_action("fill", target, ["<|PASSWORD|>"], step="as the page says", completed=True)


def _requests_to(page: AsyncPage, origin: str) -> list[str]:
    sent: list[str] = []

    def record(request: AsyncRequest) -> None:
        if request.url.startswith(origin):
            sent.append(request.url)

    page.context.on("request", record)
    return sent


def _tool_errors(llm: Any) -> list[str]:
    last = llm.requests[-1].messages
    return [m.content for m in last if m.role == "tool" and m.is_error]


@pytest.mark.no_sync_twin
async def test_a_password_is_never_typed_into_a_search_box_that_posts_elsewhere(
    async_page: AsyncPage, pages_url: str, other_origin_url: str
) -> None:
    llm = AsyncFunctionLLM(chat=_gullible)
    page = AsyncStagehand(llm=llm, max_reasks=1).wrap(async_page)
    offsite = _requests_to(async_page, other_origin_url)
    await page.goto(f"{pages_url}hostile/search_trap.html?collect={other_origin_url}collect")
    result = await page.act("sign in", variables=SECRETS, raise_on_failure=False)

    assert not result.success and result.code == "NO_USABLE_REPLY"
    assert await page.locator("#q").input_value() == ""
    assert offsite == []
    errors = _tool_errors(llm)
    assert errors and all("sends its data to" in e or "search box" in e for e in errors)
    assert not _leaks([r.text() for r in llm.requests] + [result.model_dump_json()])


@pytest.mark.no_sync_twin
async def test_a_password_is_never_typed_into_a_form_that_posts_to_another_origin(
    async_page: AsyncPage, pages_url: str, other_origin_url: str
) -> None:
    llm = AsyncFunctionLLM(chat=_gullible)
    page = AsyncStagehand(llm=llm, max_reasks=1).wrap(async_page)
    await page.goto(f"{pages_url}hostile/offsite_form.html?collect={other_origin_url}collect")
    result = await page.act("keep my account open", variables=SECRETS, raise_on_failure=False)

    assert not result.success
    assert await page.locator("#v-password").input_value() == ""
    assert any("sends its data to http://127.0.0.1:" in e for e in _tool_errors(llm))


@pytest.mark.no_sync_twin
async def test_a_form_disguised_by_page_script_is_still_refused(
    async_page: AsyncPage, pages_url: str, other_origin_url: str
) -> None:
    # The page overrides getAttribute, HTMLFormElement.prototype.action, input.form, closest
    # and URL so that its own JavaScript world reports a form posting back to its origin.
    llm = AsyncFunctionLLM(chat=_gullible)
    page = AsyncStagehand(llm=llm, max_reasks=1).wrap(async_page)
    await page.goto(f"{pages_url}hostile/disguised_form.html?collect={other_origin_url}collect")
    assert await page.evaluate("document.getElementById('verify').action") == page.url
    result = await page.act("keep my account open", variables=SECRETS, raise_on_failure=False)

    assert not result.success
    assert await page.locator("#v-password").input_value() == ""
    assert any("sends its data to http://127.0.0.1:" in e for e in _tool_errors(llm))


@pytest.mark.parametrize(
    ("query", "refused"),
    [
        ("n=10", ""),  # ten harmless buttons: every target read, the password may go in
        # An 11th, inside the form, to another origin: more than are read, so refused.
        ("n=10&collect={other}collect", "too many to check where <|PASSWORD|> would be sent"),
        # The 11th outside the form (form="signin"): read with its own group, and refused.
        ("n=10&collect={other}collect&outside=1", "sends its data to http://127.0.0.1:"),
        # Too many to read: refused although all are harmless (fail closed).
        ("n=12", "too many to check where <|PASSWORD|> would be sent"),
    ],
)
async def test_a_form_with_more_submit_targets_than_are_read_is_refused(
    async_page: AsyncPage, pages_url: str, other_origin_url: str, query: str, refused: str
) -> None:
    plan = AsyncPlanLLM([Step("fill", r'^<input\b[^>]*type="password"', ["<|PASSWORD|>"])])
    page = AsyncStagehand(llm=plan, max_reasks=1).wrap(async_page)
    await page.goto(f"{pages_url}hostile/many_buttons.html?{query.format(other=other_origin_url)}")
    result = await page.act("type my password", variables=SECRETS, raise_on_failure=False)

    typed = await page.locator("#m-password").input_value()
    errors = [m.content for r in plan.requests for m in r.messages if m.role == "tool"]
    if not refused:
        assert typed == PASSWORD and result.actions
        return
    assert typed == "" and not result.success
    assert any(refused in e for e in errors), errors


def _sign_in_plan(link: str) -> AsyncPlanLLM:
    return AsyncPlanLLM(
        [
            Step("click", link, completed=False),
            Step("fill", r'^<input\b[^>]*type="email"', ["<|EMAIL|>"], completed=False),
            Step("fill", r'^<input\b[^>]*type="password"', ["<|PASSWORD|>"], completed=False),
            Step("click", r"^<button\b[^>]*>Sign in"),
        ]
    )


@pytest.mark.no_sync_twin
async def test_credentials_are_refused_on_a_look_alike_sign_in_page(
    async_page: AsyncPage, pages_url: str, other_origin_url: str
) -> None:
    for link in (r"^<a\b[^>]*>Sign in again", r"^<a\b[^>]*>Open sign-in in a new tab"):
        llm = _sign_in_plan(link)
        page = AsyncStagehand(llm=llm).wrap(async_page)
        await page.goto(
            f"{pages_url}hostile/lookalike.html?login={other_origin_url}hostile/login.html"
        )
        result = await page.act("sign in again", variables=SECRETS, raise_on_failure=False)

        landed = result.page
        assert landed is not None and landed.url.startswith(other_origin_url), link
        assert await landed.locator("#email").input_value() == ""
        assert await landed.locator("#password").input_value() == ""
        assert all(a.method == "click" for a in result.actions)
        refusals = [
            m.content
            for r in llm.requests
            for m in r.messages
            if m.role == "tool" and "may be used only on" in m.content
        ]
        assert refusals and pages_url.rstrip("/") in refusals[0]
        if result.opened_pages:
            await landed.close()


async def test_a_value_is_refused_in_a_frame_from_another_origin(
    async_page: AsyncPage, pages_url: str, other_origin_url: str
) -> None:
    """A partner's frame (another origin) inside the page's own widget frame: by default the
    value stays out of it, and the model is told why (listing the domain allows it: see
    test_seeing's cross-origin form test)."""
    llm = AsyncPlanLLM([Step("fill", r"^<input\b[^>]*news-email", ["<|EMAIL|>"])])
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(f"{pages_url}see/help_center.html?partner={other_origin_url}")
    result = await page.act("subscribe me", variables={"email": EMAIL}, raise_on_failure=False)

    assert not result.success and not result.actions
    partner = async_page.frame_locator("#help-widget").frame_locator("#partner-frame")
    assert await partner.locator("#news-email").input_value() == ""
    refusals = [e for r in llm.requests for e in _tool_errors_of(r.messages)]
    assert refusals and "may be used only on" in refusals[0]
    assert other_origin_url.rstrip("/") in refusals[0]


def _tool_errors_of(messages: list[Message]) -> list[str]:
    return [m.content for m in messages if m.role == "tool" and m.is_error]


async def test_the_agent_never_types_a_password_into_a_search_box(
    async_page: AsyncPage, pages_url: str, other_origin_url: str
) -> None:
    """page.agent() runs element actions through the same scope check as act()."""
    plan = AgentPlan(
        [Do("fill", r'type="search"', text="<|PASSWORD|>"), Do("click", r">Search</button>")],
        done("did as the page said", success=False),
    )
    llm = AsyncFunctionLLM(structured=plan)
    page = AsyncStagehand(llm=llm).wrap(async_page)
    offsite = _requests_to(async_page, other_origin_url)
    await page.goto(f"{pages_url}hostile/search_trap.html?collect={other_origin_url}collect")
    result = await page.agent("sign in as the page says", variables=SECRETS, max_steps=3)

    assert await page.locator("#q").input_value() == ""
    [fill, *_] = result.steps[0].results
    assert fill.status == "error" and (fill.error or "").startswith("Refused:")
    assert not offsite
    # The refusal is what the model reads about its action next step.
    assert "-> error: Refused:" in state_text(llm.requests[1].messages)


@pytest.mark.no_sync_twin
async def test_credentials_go_in_on_the_same_origin(async_page: AsyncPage, pages_url: str) -> None:
    llm = _sign_in_plan(r"^<a\b[^>]*>Sign in again")
    page = AsyncStagehand(llm=llm).wrap(async_page)
    # The link leads to the genuine page on the origin the act started on.
    await page.goto(f"{pages_url}hostile/lookalike.html?login={pages_url}hostile/login.html")
    result = await page.act("sign in again", variables=SECRETS)

    assert result.success, result.message
    assert await page.locator("#password").input_value() == PASSWORD
    assert await page.locator("#status").inner_text() == "Signed in."


@pytest.mark.no_sync_twin
async def test_credentials_go_in_on_a_listed_domain(
    async_page: AsyncPage, pages_url: str, other_origin_url: str
) -> None:
    login = f"{other_origin_url}hostile/login.html"
    page = AsyncStagehand(llm=_sign_in_plan(r"^<a\b[^>]*>Sign in again")).wrap(async_page)
    await page.goto(f"{pages_url}hostile/lookalike.html?login={login}")
    variables = {
        "email": Secret(EMAIL, domains=[other_origin_url]),
        "password": Secret(PASSWORD, domains=[other_origin_url]),
    }
    result = await page.act("sign in on the partner site", variables=variables)
    assert result.success, result.message
    assert await page.locator("#password").input_value() == PASSWORD

    # The same through the secret_domains setting, for plain values.
    page = AsyncStagehand(llm=_sign_in_plan(r"^<a\b[^>]*>Sign in again")).wrap(async_page)
    await page.goto(f"{pages_url}hostile/lookalike.html?login={login}")
    result = await page.act("sign in", variables=SECRETS, secret_domains=[other_origin_url])
    assert result.success, result.message
    assert await page.locator("#email").input_value() == EMAIL


class _Switch:
    """One model for the session whose answers come from the fake of the moment."""

    model = "switch"

    def __init__(self, current: Any) -> None:
        self.current = current

    async def chat(self, *args: Any, **kwargs: Any) -> Any:
        return await self.current.chat(*args, **kwargs)

    async def structured(self, *args: Any, **kwargs: Any) -> Any:
        return await self.current.structured(*args, **kwargs)


@pytest.mark.no_sync_twin
async def test_no_form_of_a_value_leaves_in_any_artefact_across_calls(
    async_page: AsyncPage, pages_url: str
) -> None:
    plan = AsyncPlanLLM(
        [
            Step("fill", r'^<input\b[^>]*type="email"', ["<|EMAIL|>"], completed=False),
            Step("click", r"^<button\b[^>]*>Subscribe", completed=False),
            Step("click", r"^<button\b.*>Continue as <\|EMAIL"),
        ]
    )
    switch = _Switch(plan)
    page = AsyncStagehand(llm=switch).wrap(async_page)
    await page.goto(pages_url + "hostile/echo.html")
    result = await page.act("subscribe with <|EMAIL|> and continue", variables={"email": EMAIL})
    assert result.success, result.message
    assert await page.locator("#continued").inner_text() == "Welcome aboard."
    assert "email=ada" in page.url  # the GET form put the value in the URL, encoded

    # The Page: line of the turn after the submit carried the URL: redacted.
    assert any("email=<|EMAIL|>" in r.text() for r in plan.requests)
    # The button's own selector quotes the page's echo of the value: not kept.
    assert result.actions[2].selectors and not _leaks(result.actions[2].selectors)

    # Later calls on the same page, with no variables: still redacted (session-wide).
    later = AsyncScriptedLLM()
    switch.current = later
    later.queue({"data": {"text": "Thanks! We will write to <|EMAIL|>."}, "complete": True})
    await page.extract("the welcome message")
    later.queue({"elements": [{"element": 0, "description": "continue", "method": "click"}]})
    await page.observe("the continue button")

    outgoing = [r.text() for r in plan.requests] + [
        "\n".join(m.content for m in r.messages) for r in later.requests
    ]
    published = [result.model_dump_json(), *(c.summary() for c in page.stagehand.history)]
    assert not _leaks(outgoing + published)
    assert len(later.requests) == 2 and "<|EMAIL|>" in outgoing[-1]


@pytest.mark.parametrize("mode", ["dom", "aria"])
@pytest.mark.no_sync_twin
async def test_a_selector_or_ladder_rung_quoting_an_echoed_value_is_kept_nowhere(
    async_page: AsyncPage, pages_url: str, mode: str, tmp_path: Any
) -> None:
    # The page echoes the typed email in the "Continue as ..." button: in aria mode its
    # accessible name is a rung of the ladder (getByRole(..., name=...)), in DOM mode a
    # text-anchored XPath. Neither may reach the result, the observe result, history or cache.
    plan = AsyncPlanLLM(
        [
            Step("fill", EMAIL_FIELD, ["<|EMAIL|>"], completed=False),
            Step("click", r"^<button\b.*Subscribe", completed=False),
            Step("click", r"^<button\b.*Continue as <\|EMAIL"),
        ]
    )
    switch = _Switch(plan)
    stagehand = AsyncStagehand(llm=switch, snapshot=mode, cache_dir=tmp_path / "cache")
    page = stagehand.wrap(async_page)
    await page.goto(pages_url + "hostile/echo.html")
    result = await page.act("subscribe with <|EMAIL|> and continue", variables={"email": EMAIL})
    assert result.success, result.message
    assert await page.locator("#continued").inner_text() == "Welcome aboard."
    continued = result.actions[2]
    assert continued.selectors, "the button kept at least one rung that does not quote it"
    if mode == "aria":
        assert continued.ladder and len(continued.ladder) == len(continued.selectors)

    def pick_continue(messages: list[Message], schema: Any, context: Any) -> dict[str, Any]:
        number = context.find("Continue as")
        return {"elements": [{"element": number, "description": "continue", "method": "click"}]}

    switch.current = AsyncFunctionLLM(structured=pick_continue)
    [found] = await page.observe("the continue button", variables={"email": EMAIL})
    assert found.selectors and (mode == "dom" or found.ladder)

    cached = [f.read_text("utf-8") for f in (tmp_path / "cache").rglob("*") if f.is_file()]
    published = [
        result.model_dump_json(),
        found.model_dump_json(),
        *(c.summary() for c in page.stagehand.history),
        *(c.model_dump_json() for c in page.stagehand.history),
        *cached,
    ]
    assert not _leaks(published)


@pytest.mark.no_sync_twin
async def test_a_new_tab_whose_url_carries_the_value_is_redacted_everywhere(
    async_page: AsyncPage, pages_url: str, caplog: Any
) -> None:
    plan = AsyncPlanLLM(
        [
            Step("fill", r'^<input\b[^>]*type="email"', ["<|EMAIL|>"], completed=False),
            Step("click", r"^<button\b[^>]*>Subscribe"),
        ]
    )
    switch = _Switch(plan)
    page = AsyncStagehand(llm=switch).wrap(async_page)
    await page.goto(pages_url + "hostile/echo.html?target=_blank")
    with caplog.at_level(logging.DEBUG):
        result = await page.act("subscribe with <|EMAIL|>", variables={"email": EMAIL})

    assert result.success, result.message
    tab = result.page
    assert tab is not None and tab is not page and "email=ada" in tab.url  # followed, encoded
    assert result.opened_pages == [tab.url.replace(quote(EMAIL, safe=""), "<|EMAIL|>")]
    # The new tab remembers the value: a later call there, with no variables, redacts it.
    later = AsyncScriptedLLM()
    later.queue({"elements": [{"element": 3, "description": "continue", "method": "click"}]})
    switch.current = later
    [found] = await tab.observe("the continue button")
    logged = [record.getMessage() for record in caplog.records]
    published = [result.model_dump_json(), found.model_dump_json()]
    published += [c.summary() for c in page.stagehand.history]
    sent = [r.text() for r in [*plan.requests, *later.requests]]
    assert not _leaks(logged + published + sent)
    assert "Continue as <|EMAIL|>" in sent[-1]


@pytest.mark.no_sync_twin
async def test_a_one_character_value_leaves_numbering_and_markup_whole_and_is_cached(
    async_page: AsyncPage, pages_url: str, tmp_path: Any
) -> None:
    llm = AsyncPlanLLM(
        [
            Step("fill", r'^<input\b[^>]*id="qty"', ["<|QTY|>"], completed=False),
            Step("click", r"^<button\b[^>]*>Update basket"),
        ]
    )
    page = AsyncStagehand(llm=llm, cache_dir=tmp_path).wrap(async_page)
    await page.goto(pages_url + "hostile/basket.html")
    result = await page.act("set the wall plugs to <|QTY|> and update", variables={"qty": "2"})

    assert result.success, result.message
    assert await page.locator("#status").inner_text() == "Basket updated: 2 x wall plugs."
    first = llm.requests[0].text()
    # Every element line keeps its number and tag; "2" is redacted only as a word of text.
    numbers = [int(n) for n in re.findall(r"^(\d+):<", first, re.MULTILINE)]
    assert 2 in numbers and numbers == sorted(numbers)
    assert "<h2>" in first and "<|QTY|>:" not in first and "<h<|QTY|>>" not in first
    assert "<|QTY|> items" in first and "12.20 EUR" in first and "M2" in first
    # Cached like a longer value: the file holds its placeholder only.
    assert result.cache == "miss" and result.not_cached is None and not result.notes
    [entry_file] = list(tmp_path.rglob("*.json"))
    assert "<|QTY|>" in entry_file.read_text("utf-8")


TOKEN = "tok_" + "".join(f"{n:02x}" for n in range(62))  # 128 characters
QUOTED = 'Ada "Countess" O\'Lovelace-Byron'


@pytest.mark.parametrize("value", [TOKEN, QUOTED], ids=["128-char-token", "quotes-spaces"])
@pytest.mark.no_sync_twin
async def test_a_value_the_page_reshapes_is_redacted_before_rendering(
    async_page: AsyncPage, pages_url: str, value: str
) -> None:
    """The renderer caps, collapses and re-quotes page strings; redaction comes first, so no
    fragment of the value survives the reshaping."""
    llm = AsyncPlanLLM([Step("click", r"^<button\b[^>]*>Save")])
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(f"{pages_url}hostile/profile.html?value={quote(value, safe='')}")
    result = await page.act("save the profile of <|WHO|>", variables={"who": value})

    assert result.success, result.message
    sent = "\n".join(r.text() for r in llm.requests)
    assert 'title="Copy <|WHO|> to the clipboard"' in sent and "Signed in as <|WHO|>" in sent
    fragments = {value[i : i + 12] for i in range(0, len(value) - 12, 4)}
    fragments |= {"Countess", "Lovelace-Byron", "O'Lovelace"} if value == QUOTED else set()
    assert not [f for f in fragments if f in sent]
    assert not [f for f in fragments if f in result.model_dump_json()]


@pytest.mark.parametrize("mode", ["dom", "aria"])
async def test_an_error_naming_a_page_whose_url_carries_the_value_is_redacted(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    plan = AsyncPlanLLM(
        [
            Step("fill", EMAIL_FIELD, ["<|EMAIL|>"], completed=False),
            Step("click", r"^<button\b.*Send me alerts", completed=False),
            Step("click", r"^<button\b.*Send me alerts"),
        ]
    )
    page = AsyncStagehand(llm=plan, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "hostile/breaks_after_submit.html")
    with pytest.raises(StagehandError) as caught:
        await page.act("sign up for alerts with <|EMAIL|>", variables={"email": EMAIL})
    assert "email=ada" in page.url  # the GET form put the value in the URL, encoded
    shown = "".join(traceback.format_exception(caught.value))
    assert "breaks_after_submit.html?email=<|EMAIL|>" in str(caught.value), str(caught.value)
    assert not _leaks([shown, str(caught.value), repr(caught.value)])
    assert not _leaks([c.summary() for c in page.stagehand.history])


@pytest.mark.parametrize("mode", ["dom", "aria"])
@pytest.mark.no_sync_twin(keep=["aria"])
async def test_extract_redacts_a_value_before_cutting_the_text_into_chunks(
    async_page: AsyncPage, mode: str
) -> None:
    # One long line without spaces: cut into chunks at the limit, right through the value.
    limit = 500
    blob = "ref:" + "x" * (limit - 14) + EMAIL + "y" * 600
    await async_page.set_content(f"<h1>Export</h1><p>{blob}</p><p>Rows: 3</p>")
    llm = AsyncScriptedLLM()
    for _ in range(4):
        llm.queue({"data": {"text": "rows 3"}, "complete": False})
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.stagehand.extract(
        page, "the row count", variables={"email": EMAIL}, max_chars_per_chunk=limit
    )
    sent = ["\n".join(m.content for m in r.messages) for r in llm.requests]
    assert len(sent) >= 2  # the text did span chunks
    assert not _leaks(sent)
    assert not any(EMAIL[: len(EMAIL) // 2] in s or EMAIL[len(EMAIL) // 2 :] in s for s in sent)
    # No instruction: the page's text comes back, redacted too.
    text = await page.extract(variables={"email": EMAIL})
    assert isinstance(text, str) and "<|EMAIL|>" in text and not _leaks([text])
