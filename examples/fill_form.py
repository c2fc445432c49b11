"""Fill a form with variables: the model sees only <|EMAIL|>, never the address itself.

    python examples/fill_form.py

Uses the model you configured (STAGEHAND_PY_MODEL and its key, or OPENAI_BASE_URL for a local
OpenAI-compatible server); with none, an offline stand-in plays the model's part.
"""

from __future__ import annotations

from _offline import StandIn, model_or_stand_in, serve_pages
from playwright.sync_api import expect, sync_playwright

from stagehand_py import Stagehand, launch_chromium

# What a model would do on examples/pages/signup.html, for the offline stand-in.
STAND_IN = StandIn(
    [
        ("fill", r"^<input\b[^>]*first", ["<|FIRST_NAME|>"]),
        ("fill", r"^<input\b[^>]*email", ["<|EMAIL|>"]),
        ("select_option", r"^<select\b", ["Cycling"]),
        ("check", r"^<input\b[^>]*checkbox", []),
        ("click", r"^<button\b[^>]*>Subscribe", []),
    ]
)


def main() -> None:
    variables = {"first_name": "Grace", "email": "grace@example.org"}
    with serve_pages() as base_url, sync_playwright() as playwright:
        browser = launch_chromium(playwright.chromium)
        stagehand = Stagehand(llm=model_or_stand_in(STAND_IN))
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
