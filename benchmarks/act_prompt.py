"""Prompt size and model calls per act() on each of the project's fixture pages.

Run: ``python benchmarks/act_prompt.py``. For every page: how many elements and chunks the
serializer produced, the characters of the first act prompt (system + user message, one
chunk) and of the whole page rendered, an estimate of tokens, and the model calls one
typical act took with a plan-following fake model (which skips sections without the element
it needs, as a real model would). Tokens are counted with tiktoken's o200k_base when it and
its encoding file are available locally, otherwise estimated as characters / 4 (marked ~).
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from stagehand_py import Stagehand, launch_chromium, take_snapshot  # noqa: E402
from stagehand_py.prompts.act import build_act_messages  # noqa: E402
from stagehand_py.testing import serve_directory  # noqa: E402
from tests._sync.plan_llm import PlanLLM, Step  # noqa: E402

BUTTON = r"^<button\b[^>]*>.*"
CASES: dict[str, tuple[str, list[Step]]] = {
    "form.html": (
        "fill the signup form and submit it",
        [
            Step("fill", r"^<input\b[^>]*first", ["Ada"]),
            Step("fill", r"^<input\b[^>]*email", ["<|EMAIL|>"]),
            Step("select_option", r"^<select\b", ["France"]),
            Step("click", BUTTON + "Submit"),
        ],
    ),
    "radios.html": ("choose express shipping", [Step("click", r"^<input\b[^>]*express")]),
    "dropdowns.html": ("choose size Large", [Step("select_option", r"^<select\b", ["Large"])]),
    "shadow.html": (
        "type hello and press the button",
        [Step("fill", r"^<input\b", ["hello"]), Step("click", r"^<button\b")],
    ),
    "frames.html": (
        "type hello in the framed field and press its button",
        [Step("fill", r"^<input\b", ["hello"]), Step("click", r"^<button\b")],
    ),
    "long.html": ("load more reviews", [Step("click", BUTTON + "Load more reviews")]),
    "modal.html": (
        "buy now",
        [Step("click", BUTTON + "Close", completed=False), Step("click", BUTTON + "Buy now")],
    ),
    "cookie.html": (
        "subscribe",
        [
            Step("click", BUTTON + "Accept all", completed=False),
            Step("click", BUTTON + "Subscribe"),
        ],
    ),
    "japanese.html": (
        "氏名に山田太郎と入力して送信",
        [Step("fill", r"^<input\b[^>]*jp-name", ["山田 太郎"]), Step("click", BUTTON + "送信")],
    ),
    "scroll_div.html": ("report the last message as spam", [Step("click", BUTTON + "Report spam")]),
    "changes.html": (
        "finish the set-up as Acme",
        [
            Step("click", BUTTON + "Next", completed=False),
            Step("fill", r"^<input\b", ["Acme"]),
            Step("click", BUTTON + "Finish"),
        ],
    ),
}


def _token_counter() -> tuple[str, object]:
    try:
        import tiktoken  # type: ignore[import-not-found]

        encoding = tiktoken.get_encoding("o200k_base")
        return "", lambda text: len(encoding.encode(text))
    except Exception:  # not installed, or no local encoding file (no network here)
        return "~", lambda text: len(text) // 4


def main() -> None:
    mark, count_tokens = _token_counter()
    header = (
        f"{'page':<16}{'elements':>9}{'chunks':>7}{'prompt chars':>13}{'tokens':>8}"
        f"{'page chars':>11}{'LLM calls':>11}{'actions':>8}"
    )
    print(header)
    print("-" * len(header))
    with serve_directory(ROOT / "tests" / "pages") as base, sync_playwright() as playwright:
        browser = launch_chromium(playwright.chromium)
        for name, (instruction, steps) in CASES.items():
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.goto(base + name)
            snapshot = take_snapshot(page)
            first = snapshot.chunk_order()[0]
            messages = build_act_messages(
                instruction,
                steps=[],
                section_text=snapshot.render_chunk(first),
                section_number=1,
                section_count=len(snapshot.chunks),
                variable_names=["EMAIL"],
                url=page.url,
            )
            prompt = "\n".join(m.content for m in messages)
            llm = PlanLLM(steps)
            result = (
                Stagehand(llm=llm)
                .wrap(page)
                .act(instruction, variables={"email": "a@b.test"}, raise_on_failure=False)
            )
            calls = f"{llm.calls}{'' if result.success else ' !'}"
            print(
                f"{name:<16}{len(snapshot.elements):>9}{len(snapshot.chunks):>7}"
                f"{len(prompt):>13}{mark + str(count_tokens(prompt)):>8}"
                f"{len(snapshot.render_all()):>11}{calls:>11}{len(result.actions):>8}"
            )
            page.close()
        browser.close()
    print("\ncalls include the verify_act_completion request; '!' marks an act that failed.")


if __name__ == "__main__":
    main()
