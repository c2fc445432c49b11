"""Prompt size and model calls per act() on each fixture page, before and after batching.

Run: ``python benchmarks/act_prompt.py [--quick]``. For every page: how many elements and chunks the
serializer produced, the characters of the first act prompt (system + user message), the
characters of the whole page rendered, and the model calls, serializations and seconds one
typical act took with a plan-following fake model (it skips parts without the element it
needs, as a real model would), measured twice in the same run:

* ``before``: how act() ran before issue 12's items 8 and 9: one chunk per prompt
  (``max_section_chars=0``), a model that answers one action per reply, and a fresh
  serialization for every prompt (the loop's snapshot reuse switched off here);
* ``now``: the default packing (``max_section_chars`` 6,000) and a model that batches every
  planned step whose element it is shown.

The last row is the 5,000-element catalogue of ``benchmarks/serialize.py`` with its target in
the last card (issue 12, item 9). Tokens are counted with tiktoken's o200k_base when it and
its encoding file are available locally, otherwise estimated as characters / 4 (marked ~).
Targets (issue 12, item 8): the 4-field form in 2 calls, scroll_div.html in at most 3, no page
worse than before.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import stagehand_py._sync.act.loop as act_module  # noqa: E402
from benchmarks._report import figure, parser  # noqa: E402
from benchmarks.serialize import catalogue_page  # noqa: E402
from stagehand_py import Stagehand, launch_chromium, take_snapshot  # noqa: E402
from stagehand_py._snapshot import Snapshot  # noqa: E402
from stagehand_py.prompts.act import build_act_messages  # noqa: E402
from stagehand_py.testing import serve_directory  # noqa: E402
from tests._sync.plan_llm import PlanLLM, Step  # noqa: E402

BUTTON = r"^<button\b[^>]*>.*"
CATALOGUE = "catalogue (5k)"
CARDS = 250  # the catalogue's cards; the target is in the last one
QUICK = ("form.html", "scroll_div.html", CATALOGUE)  # --quick: these, with a 20-card catalogue
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


def catalogue_case(cards: int) -> tuple[str, list[Step]]:
    """The act on the generated catalogue: its target is in the last card."""
    last = cards - 1
    return (
        f"add product {last} to the comparison",
        [Step("check", rf'^<input\b[^>]*"Compare product {last}"')],
    )


@dataclass
class Run:
    calls: int
    serializations: int
    seconds: float
    actions: int
    success: bool


def _token_counter() -> tuple[str, Callable[[str], int]]:
    try:
        import tiktoken  # type: ignore[import-not-found]

        encoding = tiktoken.get_encoding("o200k_base")
        return "", lambda text: len(encoding.encode(text))
    except Exception:  # not installed, or no local encoding file (no network here)
        return "~", lambda text: len(text) // 4


def first_prompt(snapshot: Snapshot, instruction: str, max_chars: int) -> str:
    """The first act prompt as the loop builds it (nearest chunks packed up to max_chars)."""
    order = snapshot.chunk_order()
    group: list[int] = []
    size = 0
    for chunk in order:
        length = len(snapshot.render_chunk(chunk)) + 1
        if group and size + length > max_chars:
            break
        group.append(chunk)
        size += length
    messages = build_act_messages(
        instruction,
        steps=[],
        section_text="\n".join(snapshot.render_chunk(c) for c in sorted(group)),
        section_number=1,
        section_count=len(order),
        variable_names=["EMAIL"],
        sections_shown=len(group),
        unseen_after=len(order) - len(group),
    )
    return "\n".join(m.content for m in messages)


def _never_current(run: object, look: object) -> bool:
    return False


def run_act(
    page: Page, load: Callable[[], object], instruction: str, steps: list[Step], *, now: bool
) -> Run:
    load()
    llm = PlanLLM(steps, batch=now)
    limits = {} if now else {"max_section_chars": 0}
    counted = [0]
    original = act_module.take_snapshot

    def counting(target: Page, **options: Any) -> Snapshot:
        counted[0] += 1
        return original(target, **options)

    act_module.take_snapshot = counting  # type: ignore[assignment]
    reuse = act_module.ActRun._still_current
    if not now:
        act_module.ActRun._still_current = _never_current  # type: ignore[method-assign]
    try:
        started = time.perf_counter()
        result = (
            Stagehand(llm=llm, **limits)
            .wrap(page)
            .act(instruction, variables={"email": "a@b.test"}, raise_on_failure=False)
        )
        seconds = time.perf_counter() - started
    finally:
        act_module.take_snapshot = original  # type: ignore[assignment]
        act_module.ActRun._still_current = reuse  # type: ignore[method-assign]
    return Run(llm.calls, counted[0], seconds, len(result.actions), result.success)


def main() -> None:
    quick = parser(__doc__).parse_args().quick
    cards = 20 if quick else CARDS
    cases = {**CASES, CATALOGUE: catalogue_case(cards)}
    if quick:
        cases = {name: case for name, case in cases.items() if name in QUICK}
    calls: dict[str, tuple[Run, Run]] = {}
    mark, count_tokens = _token_counter()
    header = (
        f"{'page':<16}{'elements':>9}{'chunks':>7}{'prompt chars':>14}{'tokens':>8}"
        f"{'page chars':>11}{'LLM calls':>13}{'serialized':>12}{'act s':>13}{'actions':>8}"
    )
    print(
        f"{'':<45}{'before/now':>14}{'':>19}{'before/now':>13}{'before/now':>12}{'before/now':>13}"
    )
    print(header)
    print("-" * len(header))
    catalogue = catalogue_page(cards)
    with serve_directory(ROOT / "tests" / "pages") as base, sync_playwright() as playwright:
        browser = launch_chromium(playwright.chromium)
        for name, (instruction, steps) in cases.items():
            page = browser.new_page(viewport={"width": 1280, "height": 720})

            def load(page: Page = page, name: str = name) -> None:
                if name == CATALOGUE:
                    page.set_content(catalogue)
                else:
                    page.goto(base + name)

            load()
            snapshot = take_snapshot(page)
            before_prompt = first_prompt(snapshot, instruction, 0)
            now_prompt = first_prompt(snapshot, instruction, 6000)
            before = run_act(page, load, instruction, steps, now=False)
            now = run_act(page, load, instruction, steps, now=True)
            calls[name] = (before, now)

            def pair(old: object, new: object, failed: tuple[bool, bool] = (True, True)) -> str:
                return f"{old}{'' if failed[0] else '!'}/{new}{'' if failed[1] else '!'}"

            ok = (before.success, now.success)
            print(
                f"{name:<16}{len(snapshot.elements):>9}{len(snapshot.chunks):>7}"
                f"{pair(len(before_prompt), len(now_prompt)):>14}"
                f"{mark + str(count_tokens(now_prompt)):>8}"
                f"{len(snapshot.render_all()):>11}{pair(before.calls, now.calls, ok):>13}"
                f"{pair(before.serializations, now.serializations):>12}"
                f"{pair(f'{before.seconds:.2f}', f'{now.seconds:.2f}'):>13}"
                f"{pair(before.actions, now.actions):>8}"
            )
            page.close()
        browser.close()
    print(
        "\ncalls include the verify_act_completion request; '!' marks an act that failed; "
        "'serialized' counts the act loop's snapshots.\nprompt chars: the first prompt with "
        "one chunk / packed, both with today's system prompt; tokens: of the packed one.\n"
    )
    form, scroll = calls["form.html"][1], calls["scroll_div.html"][1]
    figure("LLM calls, form.html", f"{form.calls}{'' if form.success else ' (failed)'}", "<= 2")
    figure(
        "LLM calls, scroll_div.html",
        f"{scroll.calls}{'' if scroll.success else ' (failed)'}",
        "<= 3",
    )
    worse = [
        name for name, (before, now) in calls.items() if now.calls > before.calls or not now.success
    ]
    figure("pages worse than before", f"{len(worse)} {worse or ''}".strip(), "0")


if __name__ == "__main__":
    main()
