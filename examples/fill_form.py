"""Fill a form with variables: the model sees only <|EMAIL|>, never the address itself.

    python examples/fill_form.py

Uses the model you configured: STAGEHAND_PY_MODEL and its key (STAGEHAND_PY_BASE_URL for a
local OpenAI-compatible server). With none: python offline/run.py fill_form.py
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from stagehand_py import Stagehand, launch_chromium
from stagehand_py.testing import serve_directory

PAGES = Path(__file__).resolve().parent / "pages"  # served on 127.0.0.1 while it runs


def main() -> None:
    variables = {"first_name": "Grace", "email": "grace@example.org"}
    with serve_directory(PAGES) as base_url, sync_playwright() as playwright:
        browser = launch_chromium(playwright.chromium)
        stagehand = Stagehand()  # the model from STAGEHAND_PY_MODEL
        page = stagehand.wrap(browser.new_page())
        page.goto(base_url + "signup.html")

        result = page.act(
            "subscribe <|FIRST_NAME|> (<|EMAIL|>) to the cycling newsletter, accepting emails",
            variables=variables,
        )
        for action in result.actions:  # arguments keep their placeholders
            print(f"{action.method}({', '.join(action.arguments)}) on {action.selector}")
        expect(page.locator("#thanks")).to_contain_text("Thanks Grace! Cycling news")
        print(page.locator("#thanks").inner_text())
        print(stagehand.history[-1].summary().splitlines()[0])
        browser.close()


if __name__ == "__main__":
    main()
