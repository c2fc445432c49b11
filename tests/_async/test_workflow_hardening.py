"""Workflow history held to act()'s standard on real Chromium: a planted flow cannot aim a
variable at a field it does not belong in (the replay's secret-scope check, the same as a cached
act's), and a flow whose selectors or fingerprints quote a value the page gave back changed
(upper-cased, in part) is never written."""

from __future__ import annotations

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
