"""Compiled extract() on real Chromium: compiled once by an honest fake model on one page of a
template, replayed on other pages of it with zero model calls, healed when a field moves,
refused in require mode, never storing a value. Pages: tests/pages/extract/compiled/.

The async tests run ``style="async"`` generated code; their sync twins ``style="sync"``.
"""

from __future__ import annotations

import inspect
import json
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand, CacheMissError, ConfigurationError, StagehandTimeoutError
from stagehand_py.cache import ActionCache
from stagehand_py.cache._manage import entry_diff
from stagehand_py.cli import main
from stagehand_py.testing import AsyncFunctionLLM
from tests import secret_values
from tests.compiled_pages import (
    INSTRUCTION,
    LIST_INSTRUCTION,
    PAGES,
    PRODUCTS,
    Availability,
    Catalog,
    Product,
    expected_catalog,
    expected_product,
    read_availability,
    read_catalog,
    read_product,
)


async def _probe() -> None: ...


STYLE = "async" if inspect.iscoroutinefunction(_probe) else "sync"  # "sync" in the twin
OTHER_PAGES = ["product_2.html", "product_3.html", "product_4.html"]


async def _record(
    page: AsyncPage, url: str, cache_dir: Path, **options: Any
) -> tuple[AsyncStagehand, AsyncFunctionLLM]:
    """Compile the product extraction once on ``url`` (one model call)."""
    model = AsyncFunctionLLM(structured=read_product)
    stagehand = AsyncStagehand(llm=model, cache_dir=cache_dir, **options)
    await page.goto(url)
    outcome = await stagehand.extract(page, INSTRUCTION, Product, cache_key="product")
    assert outcome.cache == "miss" and outcome.not_compiled == {}
    assert outcome.compiled is not None and model.calls == 1
    return stagehand, model


@pytest.mark.parametrize("view", ["dom", "aria"])
@pytest.mark.no_sync_twin
async def test_compiled_on_one_page_replays_on_three_others_with_zero_model_calls(
    async_page: AsyncPage, pages_url: str, tmp_path: Path, view: str
) -> None:
    await _record(async_page, pages_url + PAGES + "product_1.html", tmp_path, snapshot=view)
    silent = AsyncFunctionLLM()  # no function: any request would fail, and is counted
    stagehand = AsyncStagehand(llm=silent, cache_dir=tmp_path, snapshot=view)
    page = stagehand.wrap(async_page)
    for name in OTHER_PAGES:
        await page.goto(pages_url + PAGES + name)
        product = await page.extract(INSTRUCTION, Product, cache_key="product")
        assert product == Product(**expected_product(pages_url, name))
    assert silent.calls == 0
    assert stagehand.cache is not None and stagehand.cache.stats.hits == 3
    assert [r.llm_calls for r in stagehand.history] == [0, 0, 0]


@pytest.mark.no_sync_twin
async def test_the_url_normaliser_shares_one_entry_across_a_template(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    def template(url: str) -> str:
        return url.rsplit("_", 1)[0] if "/product_" in url else url

    model = AsyncFunctionLLM(structured=read_product)
    page = AsyncStagehand(llm=model, cache_dir=tmp_path, url_normalizer=template).wrap(async_page)
    for name in ["product_1.html", *OTHER_PAGES]:
        await page.goto(pages_url + PAGES + name)
        assert await page.extract(INSTRUCTION, Product) == Product(
            **expected_product(pages_url, name)
        )
    assert model.calls == 1 and len(list(tmp_path.glob("*.json"))) == 1


@pytest.mark.no_sync_twin
async def test_a_list_compiles_to_a_container_and_replays_with_more_items(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    model = AsyncFunctionLLM(structured=read_catalog)
    stagehand = AsyncStagehand(llm=model, cache_dir=tmp_path)
    page = stagehand.wrap(async_page)
    outcomes = []
    for name in ["catalog_1.html", "catalog_2.html"]:
        await page.goto(pages_url + PAGES + name)
        outcome = await stagehand.extract(page, LIST_INSTRUCTION, Catalog, cache_key="catalog")
        assert outcome.value == Catalog(**expected_catalog(pages_url, name))
        outcomes.append(outcome.cache)
    assert outcomes == ["miss", "hit"] and model.calls == 1
    [listed] = json.loads(next(tmp_path.glob("*.json")).read_text("utf-8"))["extraction"]["lists"]
    assert listed["path"] == "/products" and listed["container"].endswith("/article")
    assert {f["transform"] for f in listed["fields"]} == {"text", "number_comma", "url"}


@pytest.mark.no_sync_twin
async def test_a_moved_field_is_extracted_again_and_the_entry_heals(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    stagehand, model = await _record(async_page, pages_url + PAGES + "product_1.html", tmp_path)
    await async_page.goto(pages_url + PAGES + "product_1_moved.html")  # a notice above the price
    outcome = await stagehand.extract(async_page, INSTRUCTION, Product, cache_key="product")
    assert outcome.cache == "healed" and model.calls == 2
    assert outcome.value == Product(**expected_product(pages_url, "product_1.html"))
    [entry] = ActionCache(tmp_path).entries()
    diff = entry_diff(entry)
    assert diff.startswith("healed because: field /price: ")
    assert "-/price: text of <p> /html/body[1]/main[1]/div[1]/p[1]" in diff
    assert "+/price: text of <p> /html/body[1]/main[1]/div[1]/p[2]" in diff

    silent = AsyncFunctionLLM()
    page = AsyncStagehand(llm=silent, cache_dir=tmp_path).wrap(async_page)
    await page.reload()
    healed = await page.extract(INSTRUCTION, Product, cache_key="product")
    assert healed.price == 1299.5 and silent.calls == 0


@pytest.mark.no_sync_twin
async def test_require_mode_names_the_field_that_no_longer_reads(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    await _record(async_page, pages_url + PAGES + "product_1.html", tmp_path)
    silent = AsyncFunctionLLM()
    page = AsyncStagehand(llm=silent, cache_dir=tmp_path, cache_mode="require").wrap(async_page)
    await page.goto(pages_url + PAGES + "product_2.html")
    assert (await page.extract(INSTRUCTION, Product, cache_key="product")).sku == "SKU-2044"
    await page.goto(pages_url + PAGES + "product_1_moved.html")
    with pytest.raises(CacheMissError) as moved:
        await page.extract(INSTRUCTION, Product, cache_key="product")
    assert "field /price: the element at its place lacks class 'price'" in str(moved.value)
    assert moved.value.reason == "stale" and "No model was called" in str(moved.value)
    with pytest.raises(CacheMissError, match="no entry is stored") as missing:
        await page.extract(INSTRUCTION, Product, cache_key="another-template")
    assert missing.value.reason == "miss" and silent.calls == 0


async def test_a_field_that_cannot_be_compiled_says_why_and_asks_the_model_each_run(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    model = AsyncFunctionLLM(structured=read_availability)
    stagehand = AsyncStagehand(llm=model, cache_dir=tmp_path)
    await async_page.goto(pages_url + PAGES + "product_1.html")
    for run in (1, 2):
        outcome = await stagehand.extract(async_page, "name and availability", Availability)
        assert outcome.value == Availability(name="Blue Enamel Mug", availability="available")
        assert outcome.compiled is None and outcome.cache == "miss" and model.calls == run
        assert outcome.not_compiled == {
            "/availability": "no read of the named element gives the model's value exactly"
        }
    assert list(tmp_path.glob("*.json")) == []
    with pytest.raises(ConfigurationError, match=r"not compiled.*/availability"):
        outcome.to_playwright_code(STYLE)


@pytest.mark.no_sync_twin
async def test_the_cache_file_holds_no_extracted_value(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    await _record(async_page, pages_url + PAGES + "product_1.html", tmp_path)
    text = next(tmp_path.glob("*.json")).read_text("utf-8")
    name, _, _, sku, _, slug, tags = PRODUCTS["product_1.html"]
    for value in (name, "Blue", "Enamel", "1,299.50", "1299.5", sku, slug, *tags):
        assert value not in text
    stored = json.loads(text)["extraction"]
    prices = [f for f in stored["fields"] if f["path"] == "/price"]
    assert prices[0]["prefix"] == "Price: $" and prices[0]["transform"] == "number"


async def test_a_variable_on_the_page_stays_out_of_the_result_and_the_cache(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    class Account(Product):
        account: str

    def read_account(messages: Any, schema: Any) -> dict[str, Any]:
        answer = read_product(messages, schema)
        lines = [line for line in messages[-1].content.splitlines() if "Signed in as" in line]
        number, _, line = lines[0].partition(":")
        answer["data"]["account"] = line.removeprefix("<p>").removesuffix("</p>")
        answer["sources"]["/account"] = [int(number)]
        return answer

    variables = {"email": secret_values.EMAIL}
    model = AsyncFunctionLLM(structured=read_account)
    page = AsyncStagehand(llm=model, cache_dir=tmp_path).wrap(async_page)
    for name in ("product_1.html", "product_2.html"):
        await page.goto(pages_url + PAGES + name)
        found = await page.extract(
            "the product and who is signed in (%email%)", Account, variables=variables
        )
        assert found.account == "Signed in as <|EMAIL|>" and found.sku.startswith("SKU-")
    assert model.calls == 2  # keyed by page URL: one entry per page, each compiled
    for entry_file in tmp_path.glob("*.json"):
        text = entry_file.read_text("utf-8")
        assert all(form not in text for form in secret_values.FORMS)
        assert json.loads(text)["variable_names"] == ["EMAIL"]
    await page.reload()
    again = await page.extract(
        "the product and who is signed in (%email%)", Account, variables=variables
    )
    assert again.account == "Signed in as <|EMAIL|>" and model.calls == 2


async def test_timeout_s_bounds_a_replay_on_a_busy_page(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    stagehand, model = await _record(async_page, pages_url + PAGES + "product_1.html", tmp_path)
    await async_page.goto(pages_url + "hostile/spin.html?on_load&ms=8000", wait_until="commit")
    started = time.monotonic()
    with pytest.raises(StagehandTimeoutError, match="extract\\(\\) ran out of time after 2 s"):
        await stagehand.extract(async_page, INSTRUCTION, Product, cache_key="product", timeout_s=2)
    assert time.monotonic() - started < 3.0 and model.calls == 1


@pytest.mark.no_sync_twin
async def test_generated_code_reads_another_page_of_the_template_as_plain_playwright(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    stagehand, _ = await _record(async_page, pages_url + PAGES + "product_1.html", tmp_path)
    await async_page.goto(pages_url + PAGES + "catalog_1.html")
    catalog = AsyncStagehand(llm=AsyncFunctionLLM(structured=read_catalog), cache_dir=tmp_path)
    listed = await catalog.extract(async_page, LIST_INSTRUCTION, Catalog, cache_key="catalog")
    await async_page.goto(pages_url + PAGES + "product_1.html")
    product = await stagehand.extract(async_page, INSTRUCTION, Product, cache_key="product")
    for outcome, name, expected in (
        (product, "product_3.html", expected_product),
        (listed, "catalog_2.html", expected_catalog),
    ):
        code = outcome.to_playwright_code(STYLE)
        assert "stagehand_py" not in code
        namespace: dict[str, Any] = {}
        exec(compile(code, "<generated>", "exec"), namespace)
        await async_page.goto(pages_url + PAGES + name)
        assert await namespace["run"](async_page) == expected(pages_url, name)
    assert 'get_by_test_id("sku")' in product.to_playwright_code(STYLE)  # user-facing first


async def test_cache_list_and_show_diff_show_an_extract_entry(
    async_page: AsyncPage, pages_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stagehand, _ = await _record(async_page, pages_url + PAGES + "product_1.html", tmp_path)
    await async_page.goto(pages_url + PAGES + "product_1_moved.html")
    await stagehand.extract(async_page, INSTRUCTION, Product, cache_key="product")
    assert main(["cache", "list", "--cache-dir", str(tmp_path)]) == 0
    listed = capsys.readouterr().out
    assert "7 fields" in listed and '"extract: the product' in listed
    assert "cache_key:product" in listed
    key = listed.splitlines()[1].split()[0]
    assert main(["cache", "show", key, "--diff", "--cache-dir", str(tmp_path)]) == 0
    shown = capsys.readouterr().out
    assert "healed because: field /price" in shown and "+/price: text of <p>" in shown


async def test_a_schema_less_extract_reads_the_page_text_uncached(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    stagehand = AsyncStagehand(llm=AsyncFunctionLLM(), cache_dir=tmp_path)
    page = stagehand.wrap(async_page)
    await page.goto(pages_url + PAGES + "product_2.html")
    text = await page.extract()  # no schema, no instruction: the text, no model
    assert "Walnut Cutting Board" in text and "Price: $34.00" in text
    [record] = stagehand.history
    assert record.cache == "off" and record.llm_calls == 0 and list(tmp_path.iterdir()) == []
