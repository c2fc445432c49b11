"""Compiled extract, the pure side: recipes, containers, the entry's rules on load, secrets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from stagehand_py import CacheError, CacheWarning
from stagehand_py.cache import ActionCache, CacheEntry
from stagehand_py.cache._extraction import CompiledExtraction, FieldRead, ListRead
from stagehand_py.cache._manage import list_entries
from stagehand_py.extract._compile import PageFacts, build_data, compile_answer, pointer
from stagehand_py.extract._recipes import (
    ElementFacts,
    Recipe,
    Unreadable,
    apply_recipe,
    parse_number,
    recipes_for,
)
from tests import secret_values

BASE = "https://shop.test/p/1"


def keep(text: str) -> str:
    return text


def facts(text: str = "", tag: str = "p", **attributes: str) -> ElementFacts:
    return ElementFacts(tag=tag, text=text, value=None, checked=None, attributes=attributes)


@pytest.mark.parametrize(
    ("text", "transform", "number"),
    [
        ("Price: $1,299.50", "number", 1299.5),
        ("7 in stock", "number", 7),
        ("1.249,00 €", "number_comma", 1249.0),
        ("-3", "number", -3),
        ("no digits", "number", None),
    ],
)
def test_parse_number_reads_the_first_number(text: str, transform: Any, number: Any) -> None:
    assert parse_number(text, transform) == number


def test_recipes_reproduce_the_value_exactly_most_direct_first() -> None:
    assert recipes_for("Blue Mug", facts("  Blue \n Mug "), base=BASE, redact=keep) == [
        Recipe("text", "text")
    ]
    [price] = recipes_for(1299.5, facts("Price: $1,299.50"), base=BASE, redact=keep)
    assert price == Recipe("text", "number", prefix="Price: $")
    [link, *_] = recipes_for(
        "https://shop.test/brand/acme", facts("Acme", "a", href="../brand/acme"), base=BASE,
        redact=keep,
    )  # fmt: skip
    assert link == Recipe("attribute", "url", "href")
    assert recipes_for("Mug", facts("Item: Mug (new)"), base=BASE, redact=keep) == [
        Recipe("text", "text", prefix="Item: ", suffix=" (new)")
    ]
    assert recipes_for("available", facts("7 in stock"), base=BASE, redact=keep) == []
    # Digits around a number are page data, not constant text: no recipe keeps them.
    assert recipes_for(20, facts("Was $30 now $20"), base=BASE, redact=keep) == []


def test_a_replay_refuses_another_number_in_the_price_place() -> None:
    price = FieldRead(
        path="/price", xpath="/html/body[1]/p[1]", tag="p", read="text", transform="number",
        prefix="Price: $",
    )  # fmt: skip
    assert apply_recipe(price, "Price: $34.00", base=BASE, redact=keep) == 34
    with pytest.raises(Unreadable, match="no longer starts with 'Price: \\$'"):
        apply_recipe(price, "Free shipping on orders over $50", base=BASE, redact=keep)


def test_list_items_compile_to_one_container_with_relative_fields() -> None:
    paths = {1: "/html/body[1]/ul[1]/li[1]/b[1]", 2: "/html/body[1]/ul[1]/li[1]/i[1]",
             3: "/html/body[1]/ul[1]/li[2]/b[1]", 4: "/html/body[1]/ul[1]/li[2]/i[1]"}  # fmt: skip
    texts = {1: "Bowl", 2: "$3", 3: "Cup", 4: "$4"}
    page = PageFacts(
        xpaths=paths,
        facts={paths[n]: facts(texts[n], "b" if n % 2 else "i") for n in paths},
        base=BASE,
        redact=keep,
    )
    data = {"items": [{"name": "Bowl", "price": 3}, {"name": "Cup", "price": 4}]}
    sources = {pointer("items[0].name"): [1], "/items/0/price": [2], "items.1.name": [3],
               "/items/1/price": [4]}  # fmt: skip
    made = compile_answer(data, {pointer(k): v for k, v in sources.items()}, page)
    assert made.not_compiled == {} and made.fields == []
    [listed] = made.lists
    assert listed.container == "/html/body[1]/ul[1]/li"
    assert [(f.path, f.xpath, f.transform, f.prefix) for f in listed.fields] == [
        ("/name", "/b[1]", "text", ""),
        ("/price", "/i[1]", "number", "$"),
    ]
    compiled = CompiledExtraction(schema_digest="0" * 64, json_schema={}, lists=made.lists)
    read = {"base": BASE, "lists": [[
        [{"tag": "b", "classes": [], "raw": "Jug"}, {"tag": "i", "classes": [], "raw": "$9"}],
        [{"tag": "b", "classes": [], "raw": "Pot"}, {"tag": "i", "classes": [], "raw": "$12"}],
        [{"tag": "b", "classes": [], "raw": "Tin"}, {"tag": "i", "classes": [], "raw": "$1"}],
    ]]}  # fmt: skip
    assert build_data(compiled, read, redact=keep) == {
        "items": [
            {"name": "Jug", "price": 9},
            {"name": "Pot", "price": 12},
            {"name": "Tin", "price": 1},
        ]
    }


def test_text_around_a_value_that_holds_another_value_is_not_compiled() -> None:
    paths = {1: "/html/body[1]/h1[1]", 2: "/html/body[1]/p[1]"}
    page = PageFacts(
        xpaths=paths,
        facts={paths[1]: facts("Blue Mug", "h1"), paths[2]: facts("Blue Mug costs 3 EUR")},
        base=BASE,
        redact=keep,
    )
    made = compile_answer(
        {"name": "Blue Mug", "currency": "EUR"}, {"/name": [1], "/currency": [2]}, page
    )
    assert made.not_compiled == {"/currency": "the text around it holds another extracted value"}


def _entry(**read: Any) -> CacheEntry:
    fields = [FieldRead(path="/name", xpath="/html/body[1]/h1[1]", tag="h1", read="text",
                        transform="text", **read)]  # fmt: skip
    compiled = CompiledExtraction(schema_digest="a" * 64, json_schema={"type": "object"},
                                  fields=fields)  # fmt: skip
    cache = ActionCache("unused")
    return CacheEntry.create(
        cache.key_for("the name", "https://shop.test/p/1", kind="extract"), extraction=compiled
    )


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"read": "innerHTML"}, "read"),
        ({"read": "attribute", "attribute": "onclick"}, "attribute 'onclick'"),
        ({"xpath": '//h1[text()="Blue Mug"]'}, "positional XPath"),
        ({"prefix": "x" * 41}, "prefix"),
        ({"transform": "eval"}, "transform"),
        ({"locator": 'internal:text="Blue Mug"'}, "locator"),
    ],
)
def test_a_planted_extract_entry_breaking_a_rule_is_a_miss_with_a_warning(
    tmp_path: Path, change: dict[str, str], why: str
) -> None:
    cache = ActionCache(tmp_path)
    entry = _entry()
    path = cache.put(entry)
    data = json.loads(path.read_text("utf-8"))
    data["extraction"]["fields"][0].update(change)
    path.write_text(json.dumps(data), "utf-8")
    with pytest.warns(CacheWarning, match=f"not a valid cache entry.*{why}"):
        assert cache.get(entry.cache_key) is None


def test_a_variable_value_in_a_stored_prefix_is_refused(tmp_path: Path) -> None:
    cache = ActionCache(tmp_path)
    entry = _entry(prefix=f"{secret_values.EMAIL[:30]}")
    with pytest.raises(
        CacheError, match=r"Refusing to cache the extract .*contains the value of a variable"
    ):
        cache.put(entry, secret_values=[secret_values.EMAIL[:30]])
    assert list(tmp_path.iterdir()) == []


def test_list_shows_an_extract_entry_with_its_field_count(tmp_path: Path) -> None:
    cache = ActionCache(tmp_path)
    cache.put(_entry())
    line = list_entries(cache).splitlines()[1]
    assert '1 field  "extract: the name"' in line


def test_an_extract_entry_holds_reads_and_no_actions() -> None:
    with pytest.raises(ValueError, match="an extract entry, and only one, holds compiled reads"):
        CacheEntry.model_validate({**_entry().model_dump(), "extraction": None})
    with pytest.raises(ValueError, match="container is not a positional XPath"):
        ListRead(
            path="/items", container="//li[@class='x']", fields=[_entry().extraction.fields[0]]
        )  # type: ignore[union-attr]
