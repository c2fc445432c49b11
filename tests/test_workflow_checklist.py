"""The checklist without a browser: parsing the model's answer, the step meta, the progress
every request shows, the item prompt, and registrable domains."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from stagehand_py.agent._prompts import SYSTEM_PROMPT
from stagehand_py.workflow._checklist import (
    ChecklistAnswer,
    checklist_strings,
    derive_next_step,
    render_progress,
)
from stagehand_py.workflow._domains import registrable_domain
from stagehand_py.workflow._prompts import ITEM_SYSTEM, check_messages, item_task


def test_items_lose_their_markup_and_keep_their_conditions() -> None:
    answer = ChecklistAnswer.model_validate(
        {
            "checklist": [
                "[] Amazonで「プログラミング本」を検索する",
                "[ ] 評価が4以上で価格が3000円以下の本を探す",
                "- [x] 最初の該当商品をカートに入れる",
                "2) Keep lamps at 30 EUR or less",
            ],
            "find_page": [1, 1, 3],
        }
    )
    assert answer.checklist == [
        "Amazonで「プログラミング本」を検索する",
        "評価が4以上で価格が3000円以下の本を探す",
        "最初の該当商品をカートに入れる",
        "Keep lamps at 30 EUR or less",
    ]
    assert answer.find_page == [1, 3]


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ({"checklist": []}, "at least 1 item"),
        ({"checklist": ["[] search", "[]  "]}, "item 2 is empty"),
        ({"checklist": ["[] " + "x" * 600]}, "item 1 is 600 characters long"),
        ({"checklist": ["[] a"] * 21}, "at most 20 items"),
        ({"checklist": ["[] a"], "find_page": [0]}, "the first item being 1"),
    ],
)
def test_bad_checklists_are_re_asked_with_what_is_wrong(
    answer: dict[str, object], problem: str
) -> None:
    with pytest.raises(ValidationError, match=problem):
        ChecklistAnswer.model_validate(answer)


def test_the_step_is_derived_from_the_item_alone() -> None:
    step = derive_next_step(2, '評価が4以上の"本"を探す', 3)
    assert (step.id, step.original_instruction, step.attempt) == (
        "item-2",
        '評価が4以上の"本"を探す',
        3,
    )
    assert step.line() == (
        '{"id": "item-2", "original_instruction": "評価が4以上の\\"本\\"を探す", "attempt": 3}'
    )


def test_progress_ticks_done_items_and_marks_the_current_one() -> None:
    texts = ["search", "filter", "add to cart"]
    assert render_progress(texts, ["done", "pending", "pending"], 1) == (
        "[x] 1. search\n[ ] 2. filter  <- current item\n[ ] 3. add to cart"
    )
    assert render_progress(texts, ["done", "failed", "not_run"], None).splitlines()[1] == (
        "[!] 2. filter (failed)"
    )
    assert checklist_strings(texts, ["done", "failed", "not_run"]) == [
        "[x] search",
        "[] filter",
        "[] add to cart",
    ]


def test_each_request_holds_the_request_the_checklist_and_the_step() -> None:
    task = item_task(
        "search and filter",
        ["search", "filter"],
        ["done", "pending"],
        1,
        derive_next_step(2, "filter", 1),
        hints="Pages of this site...",
    )
    assert task.index("The request:") < task.index("[x] 1. search") < task.index("Current step")
    assert task.endswith("Pages of this site...")
    [system, user] = check_messages(derive_next_step(2, "filter", 4), "done it", "STATE")
    assert "checklist" in system.content and '"id": "item-2"' in user.content
    assert user.content.endswith("The page now:\nSTATE")


def test_the_item_prompt_is_the_agents_with_the_checklist_rules() -> None:
    assert ITEM_SYSTEM != SYSTEM_PROMPT
    assert ITEM_SYSTEM.startswith("You are a browser agent working through a checklist")
    assert "When the current item is done, answer with done alone" in ITEM_SYSTEM
    assert "When the task is done" not in ITEM_SYSTEM
    assert ITEM_SYSTEM.format(max_actions=3, max_wait=10)  # still a valid template


@pytest.mark.parametrize(
    ("url", "site"),
    [
        ("https://www.amazon.co.jp/s?k=本", "amazon.co.jp"),
        ("https://books.rakuten.co.jp/", "rakuten.co.jp"),
        ("https://shop.example.com:8443/cart", "example.com"),
        ("http://www.bbc.co.uk/news", "bbc.co.uk"),
        ("https://a.b.example.com.au/", "example.com.au"),
        ("https://www.tienda.com.mx/", "tienda.com.mx"),
        ("https://alice.github.io/blog", "alice.github.io"),
        ("https://bucket.s3.amazonaws.com/x", "bucket.s3.amazonaws.com"),
        ("https://city.lg.jp/", "city.lg.jp"),
        ("http://127.0.0.1:8123/workflow/index.html", "127.0.0.1"),
        ("http://[::1]:9000/", "::1"),
        ("http://localhost:3000/", "localhost"),
        ("about:blank", ""),
        ("WWW.Shop.Example.", "shop.example"),
    ],
)
def test_registrable_domains_offline(url: str, site: str) -> None:
    assert registrable_domain(url) == site
