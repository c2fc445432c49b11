"""Credential sources on real Chromium: values from the environment, a ``.env`` file and the
keychain are typed into a login page that echoes them back, and never reach the model's
requests, the result, the call history, the per-site workflow history or a log record (the
log scan in conftest)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand
from stagehand_py.credentials import from_dotenv, from_env, from_keyring
from stagehand_py.testing import AsyncFunctionLLM
from tests import secret_values
from tests.agent_plan import Do
from tests.memory_keyring import MemoryKeyring, memory_keyring  # noqa: F401 (the fixture)
from tests.workflow_plan import WorkflowPlan

CHECKLIST = [
    "[] <|EMAIL|> と <|PASSWORD|> でログインする",
    "[] SMS認証用の電話番号 <|PHONE|> を入力して送る",
]


def login_plan() -> WorkflowPlan:
    return WorkflowPlan(
        CHECKLIST,
        steps={
            1: [
                [
                    Do("fill", r"メールアドレス", text="<|EMAIL|>"),
                    Do("fill", r"パスワード", text="<|PASSWORD|>"),
                ]
            ],
            2: [[Do("fill", r"電話番号", text="<|PHONE|>"), Do("click", r"ログインする")]],
        },
        done_when={1: r"メールアドレス.*<\|EMAIL\|>", 2: r"ようこそ、<\|EMAIL\|> さん"},
    )


@pytest.mark.no_sync_twin
async def test_secrets_from_three_sources_reach_the_page_and_nothing_else(
    async_page: AsyncPage,
    pages_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    memory_keyring: MemoryKeyring,  # noqa: F811
) -> None:
    monkeypatch.setenv("G18_SHOP_EMAIL", secret_values.EMAIL)
    dotenv = tmp_path / ".env"
    dotenv.write_text(f'PASSWORD="{secret_values.PASSWORD}"\n', "utf-8")
    memory_keyring.set_password("midori.test", "PHONE", secret_values.PHONE)
    variables = {
        **from_env("G18_SHOP_"),
        **from_dotenv(dotenv),
        **from_keyring("midori.test", ["PHONE"]),
    }
    plan = login_plan()
    llm = AsyncFunctionLLM(structured=plan)
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "workflow/login.html")
    history = tmp_path / "history"

    result = await page.workflow(
        "<|EMAIL|> と <|PASSWORD|> でログインして、SMS認証用に <|PHONE|> を登録する",
        variables=variables,
        history_dir=history,
    )

    assert result.success, result.summary()
    # The values were typed: the page echoes each of them.
    assert await page.locator("#welcome").inner_text() == (
        f"ようこそ、{secret_values.EMAIL} さん（ログイン済み）"  # noqa: RUF001 (Japanese page)
    )
    assert secret_values.PHONE in await page.locator("#sms").inner_text()
    assert await page.locator("#pw").input_value() == secret_values.PASSWORD
    # ... and went nowhere else.
    sent = json.dumps([[m.content for m in r.messages] for r in llm.requests], ensure_ascii=False)
    assert "<|EMAIL|>" in sent and "<|PHONE|>" in sent  # the model saw placeholders
    assert plan.checks == [(1, True), (2, True)]  # each check read the echoed value redacted
    stored = "".join(p.read_text("utf-8") for p in history.glob("*.json"))
    assert "<|PASSWORD|>" in stored  # the flow was kept, with its placeholders
    shown = [
        sent,
        result.model_dump_json(),
        result.summary(),
        repr(result),
        "\n".join(result.checklist),
        repr(page.stagehand.history),
        stored,
        repr(variables),
        str(variables),
    ]
    for text in shown:
        for value in secret_values.ALL:
            assert value not in text
