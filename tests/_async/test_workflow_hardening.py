"""Workflow history held to act()'s standard on real Chromium: a planted flow cannot aim a
variable at a field it does not belong in (the replay's secret-scope check, the same as a cached
act's), and a flow whose selectors or fingerprints quote a value the page gave back changed
(upper-cased, in part) is never written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.async_api import Page as AsyncPage
from playwright.async_api import Route

from stagehand_py import AsyncStagehand
from stagehand_py.testing import AsyncFunctionLLM
from stagehand_py.workflow import WorkflowHistory
from tests import secret_values
from tests.agent_plan import Do
from tests.workflow_plan import WorkflowPlan

SHOP = "http://shop.test/"
REQUEST = "Sign in with <|EMAIL|>"
VARIABLES = {"email": secret_values.EMAIL}

# The page greets the address back, changed as many sites change it.
SIGN_IN = """<!doctype html><title>Sign in</title>
<label for="mail">E-mail</label> <input id="mail" type="email" autocomplete="username">
<button id="next">Next</button>
<button id="continue" hidden>Continue</button> <p id="done"></p>
<script>
  const mail = document.getElementById("mail"), next = document.getElementById("continue");
  document.getElementById("next").onclick = () => {
    next.textContent = "Continue as " + (%s);
    next.hidden = false;
  };
  next.onclick = () => { document.getElementById("done").textContent = "Signed in"; };
</script>"""


async def _serve(page: AsyncPage, html: str) -> None:
    async def fulfil(route: Route) -> None:
        await route.fulfill(body=html, content_type="text/html")

    await page.route(SHOP + "**", fulfil)
    await page.goto(SHOP + "account")


@pytest.mark.parametrize(
    "echo",
    ["mail.value.toUpperCase()", "mail.value.split('@')[0]"],
    ids=["upper-cased", "local-part"],
)
@pytest.mark.no_sync_twin
async def test_a_flow_quoting_a_changed_form_of_a_value_is_not_written(
    async_page: AsyncPage, tmp_path: Path, echo: str
) -> None:
    plan = WorkflowPlan(
        ["[] Sign in with <|EMAIL|>"],
        {
            1: [
                [Do("fill", r"E-mail|email", text="<|EMAIL|>"), Do("click", r"Next")],
                [Do("click", r"Continue as")],
            ]
        },
        {1: r"Signed in"},
    )
    history = WorkflowHistory(tmp_path)
    page = AsyncStagehand(llm=AsyncFunctionLLM(structured=plan), history_dir=history).wrap(
        async_page
    )
    await _serve(async_page, SIGN_IN % echo)

    result = await page.workflow(REQUEST, variables=VARIABLES, sitemap=False)

    assert result.success, result.summary()
    assert history.find_flow(SHOP + "account", "Sign in with <|EMAIL|>") is None  # refused
    written = "".join(p.read_text("utf-8") for p in tmp_path.glob("*.json")).casefold()
    local_part = secret_values.EMAIL.split("@")[0]
    assert local_part.casefold() not in written


# A sign-in field and a public comment box on one page, one origin, one kind of form.
ACCOUNT = """<!doctype html><title>Account</title>
<form action="/signin" onsubmit="return false">
  <label for="mail">E-mail</label> <input id="mail" name="email" type="email">
  <button type="button" onclick="document.getElementById('done').textContent = 'Signed in'"
    >Next</button>
</form>
<form action="/comments" onsubmit="return false">
  <label for="comment">Comment (shown to everyone)</label>
  <textarea id="comment" name="comment"></textarea>
  <button type="button" onclick="document.getElementById('done').textContent = 'Posted'"
    >Post</button>
</form>
<p id="done"></p>"""
COMMENT = "Write Nice shop! in the comment box"
SIGN_IN_ITEM = "Sign in with <|EMAIL|>"
SIGN_IN_STEPS = [Do("fill", r"E-mail", text="<|EMAIL|>"), Do("click", r"Next")]


async def _record(page: AsyncPage, history: WorkflowHistory, item: str, steps: list[Do]) -> None:
    """A real run of ``item`` (one step list, done when the page says so): its flow is kept."""
    plan = WorkflowPlan([f"[] {item}"], {1: [steps]}, {1: r"Signed in|Posted"})
    wrapped = AsyncStagehand(llm=AsyncFunctionLLM(structured=plan), history_dir=history).wrap(page)
    await _serve(page, ACCOUNT)
    result = await wrapped.workflow(item, variables=VARIABLES, sitemap=False)
    assert result.success and history.find_flow(SHOP + "account", item) is not None


@pytest.mark.parametrize("how", ["planted", "edited"])
@pytest.mark.no_sync_twin
async def test_a_flow_aimed_at_a_comment_box_does_not_type_the_value_there(
    async_page: AsyncPage, tmp_path: Path, how: str
) -> None:
    history = WorkflowHistory(tmp_path)
    await _record(
        async_page,
        history,
        COMMENT,
        [Do("fill", r"Comment", text="Nice shop!"), Do("click", r"Post")],
    )
    if how == "edited":
        await _record(async_page, history, SIGN_IN_ITEM, SIGN_IN_STEPS)
    [site_file] = tmp_path.glob("*.json")
    site = json.loads(site_file.read_text("utf-8"))
    flows = {flow["item"]: flow for flow in site["flows"]}
    box = flows[COMMENT]["actions"][0]  # the box's own selectors and fingerprint
    if how == "planted":  # a whole flow written by someone else, copied from the box's step
        planted = {**flows[COMMENT], "item": SIGN_IN_ITEM, "steps": []}
        planted["actions"] = [{**box, "arguments": ["<|EMAIL|>"]}]
        site["flows"].append(planted)
    else:  # the real sign-in flow, its fill step edited to point at the box
        step = flows[SIGN_IN_ITEM]["actions"][0]
        step["selectors"], step["fingerprint"] = box["selectors"], box["fingerprint"]
    site_file.write_text(json.dumps(site), "utf-8")

    # The stored step is refused on the live page; the model signs in from the page instead.
    plan = WorkflowPlan([f"[] {SIGN_IN_ITEM}"], {1: [SIGN_IN_STEPS]}, {1: r"Signed in"})
    page = AsyncStagehand(
        llm=AsyncFunctionLLM(structured=plan), history_dir=WorkflowHistory(tmp_path)
    ).wrap(async_page)
    await _serve(async_page, ACCOUNT)
    result = await page.workflow(REQUEST, variables=VARIABLES, sitemap=False)

    assert await async_page.locator("#comment").input_value() == ""  # never typed there
    assert await async_page.locator("#mail").input_value() == secret_values.EMAIL
    assert result.success and result.replayed == [], result.summary()
    note = result.items[0].replay_note
    assert "Refused" in note and "<|EMAIL|>" in note, note
    assert len(plan.states) >= 1  # the model did the item
    assert secret_values.EMAIL not in result.model_dump_json()
