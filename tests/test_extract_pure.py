"""extract() without a browser: cleaning, page text, chunking, schemas, merging, prompts."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from pydantic import BaseModel, Field, HttpUrl, ValidationError, field_validator
from pydantic.fields import FieldInfo

from stagehand_py._errors import ConfigurationError
from stagehand_py.extract._chunks import split_chunks
from stagehand_py.extract._merge import merge
from stagehand_py.extract._schema import SchemaPlan, subclass_of, url_shape
from stagehand_py.extract._target import ExtractTarget
from stagehand_py.extract._text import Block, page_text
from stagehand_py.prompts.extract import build_extract_messages

NOISY_PAGE = """<!doctype html><html><head><title>T</title><base href="/shop/">
<style>.a { color: red } STYLE_TEXT</style><script>var s = "SCRIPT_TEXT";</script></head>
<body><h1>Shop <small>today</small></h1><!-- COMMENT_TEXT -->
<p>Intro with <a href="item/1.html">first item</a> and <b>bold</b>.<span
 style="display: none">INLINE_NONE_TEXT</span> Tail.</p>
<div hidden>HIDDEN_ATTR_TEXT</div><div aria-hidden="true">ARIA_TEXT</div>
<p style="color: red; visibility:hidden">INVISIBLE_STYLE_TEXT</p>
<div data-sh-hidden="1">MARKED_HIDDEN_TEXT</div>
<div data-sh-invisible="1">OWN_TEXT<span>child stays</span>OWN_TAIL</div>
<template><p>TEMPLATE_TEXT</p></template><noscript>NOSCRIPT_TEXT</noscript>
<form><input type="hidden" name="csrf" value="CSRF_VALUE"><input name="q" value="lamp">
<input type="password" name="pw" value="PASSWORD_VALUE"></form>
<ul><li>one</li><li>two<ul><li>two a</li></ul></li></ul>
<ol start="3"><li>three</li></ol>
<table><caption>Prices</caption>
<thead><tr><th>Name</th><th>Price</th></tr></thead>
<tbody><tr><td><a href="/p/a">A | 1</a></td><td>1.00</td></tr>
<tr><td>B<table><tr><td>inner</td></tr></table></td><td>2.00</td></tr></tbody></table>
<dl><dt>Colour</dt><dd>Red</dd></dl>
<a href="/p/a">same target again</a> <a href="javascript:void(0)">Open chat</a>
<img alt="Logo"></body></html>"""


def test_cleaning_removes_everything_a_reader_cannot_see() -> None:
    text = page_text(NOISY_PAGE, url="http://shop.test/a/b.html").text
    for marker in (
        "STYLE_TEXT", "SCRIPT_TEXT", "COMMENT_TEXT", "INLINE_NONE_TEXT", "HIDDEN_ATTR_TEXT",
        "ARIA_TEXT", "INVISIBLE_STYLE_TEXT", "MARKED_HIDDEN_TEXT", "OWN_TEXT", "OWN_TAIL",
        "TEMPLATE_TEXT", "NOSCRIPT_TEXT", "CSRF_VALUE", "PASSWORD_VALUE",
    ):  # fmt: skip
        assert marker not in text, marker
    assert "child stays" in text
    assert '[text input "q": lamp]' in text


def test_page_text_keeps_structure_readable() -> None:
    result = page_text(NOISY_PAGE, url="http://shop.test/a/b.html")
    lines = result.text.splitlines()
    assert lines[0] == "# Shop today"
    assert "Intro with [link 1: first item] and bold. Tail." in lines
    items = [line for line in lines if line.lstrip().startswith(("-", "3."))]
    assert items == ["- one", "- two", "  - two a", "3. three"]
    assert "| Name | Price |" in lines
    assert "| [link 2: A / 1] | 1.00 |" in lines  # a pipe in a cell cannot break the row
    assert "| B inner | 2.00 |" in lines  # nested table flattened into its cell, not repeated
    assert "Colour: Red" in lines
    assert "[image: Logo]" in result.text
    assert "Open chat" in result.text and "javascript" not in result.text


def test_links_get_ids_mapped_to_absolute_hrefs() -> None:
    result = page_text(NOISY_PAGE, url="http://shop.test/a/b.html")
    # Resolved against <base href="/shop/">; the same target keeps one id.
    assert result.links == {1: "http://shop.test/shop/item/1.html", 2: "http://shop.test/p/a"}
    assert "[link 2: same target again]" in result.text


def test_data_rows_remember_their_header_row() -> None:
    blocks = page_text(NOISY_PAGE, url="http://x.test/").blocks
    row = next(b for b in blocks if b.text.startswith("| [link 2"))
    assert row.header == "| Name | Price |"


def _rows(count: int) -> list[Block]:
    header = "| Product | Price |"
    return [Block(header)] + [
        Block(f"| Product {i:03d} {'x' * (i % 17)} | {i}.00 |", header) for i in range(count)
    ]


@pytest.mark.parametrize("cap", [200, 333, 640, 1500])
def test_chunks_respect_the_cap_and_lose_no_block(cap: int) -> None:
    blocks = _rows(120)
    chunks = split_chunks(blocks, cap)
    assert len(chunks) > 1
    assert all(len(c.text) <= cap for c in chunks)
    lines = [set(c.text.splitlines()) for c in chunks]
    for block in blocks:  # every row whole in some chunk: never cut, never dropped
        assert any(block.text in chunk for chunk in lines), block.text
    for previous, chunk in itertools.pairwise(chunks):
        body = chunk.text.splitlines()
        assert body[0] == "| Product | Price |"  # header repeated when starting mid-table
        assert body[1] in previous.text.splitlines()  # consecutive chunks overlap


def test_chunks_of_random_blocks_keep_order_and_overlap() -> None:
    rng = random.Random(7)
    blocks = [Block(f"b{i} " + "w" * rng.randint(0, 150)) for i in range(300)]
    chunks = split_chunks(blocks, 700)
    seen: list[str] = []
    for chunk in chunks:
        for line in chunk.text.splitlines():
            if line not in seen:
                seen.append(line)
    assert seen == [b.text for b in blocks]
    assert all(len(c.text) <= 700 for c in chunks)


def test_a_line_longer_than_the_cap_is_cut_at_spaces() -> None:
    words = " ".join(f"word{i}" for i in range(400))
    chunks = split_chunks([Block("title"), Block(words)], 500)
    assert all(len(c.text) <= 500 for c in chunks)
    rebuilt = " ".join(c.text for c in chunks).split()
    assert [w for w in rebuilt if w.startswith("word")][:400] == words.split()


def test_too_small_cap_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="at least"):
        split_chunks([Block("x")], 50)


def test_chunks_know_which_links_they_show() -> None:
    chunks = split_chunks([Block("[link 1: a] [link 22: b]"), Block("c" * 300)], 200)
    assert chunks[0].link_ids == frozenset({1, 22})
    assert chunks[-1].link_ids == frozenset()


def test_merge_concatenates_lists_without_duplicates_and_keeps_scalars() -> None:
    first = {"title": "Shop", "items": [{"name": "A", "price": 1}, {"name": "B", "price": 2}]}
    second = {
        "title": "Other title",
        "owner": {"name": None, "city": "Lyon"},
        "items": [{"name": " B ", "price": 2}, {"name": "C", "price": 3}],
    }
    third = {"title": None, "owner": {"name": "Ana", "city": "Paris"}, "items": None}
    merged = merge(merge(first, second), third)
    assert merged == {
        "title": "Shop",
        "owner": {"name": "Ana", "city": "Lyon"},
        "items": [{"name": "A", "price": 1}, {"name": "B", "price": 2}, {"name": "C", "price": 3}],
    }
    assert merge({"title": ""}, {"title": "Found"}) == {"title": "Found"}


class Review(BaseModel):
    author: str
    link_text: str = ""
    profile_url: str | None = None


class Product(BaseModel):
    name: str
    price: float
    url: HttpUrl

    @field_validator("price")
    @classmethod
    def positive(cls, value: float) -> float:
        if value <= 0:
            raise ValueError("price must be positive")
        return value


class Shop(BaseModel):
    title: str
    homepageLink: str  # camelCase on purpose: URL detection by name tokens
    products: list[Product]
    best: Product | None = None
    reviews: list[Review] = []
    mirrors: list[HttpUrl] = []


def test_url_fields_are_found_by_type_name_and_format() -> None:
    fields = Shop.model_fields
    assert url_shape("homepageLink", fields["homepageLink"]) == "one"
    assert url_shape("mirrors", fields["mirrors"]) == "many"
    assert url_shape("title", fields["title"]) is None
    assert url_shape("url", Product.model_fields["url"]) == "one"
    assert url_shape("link_text", Review.model_fields["link_text"]) is None
    assert url_shape("profile_url", Review.model_fields["profile_url"]) == "one"
    shown_as_text = Field(json_schema_extra={"format": "text"})
    assert url_shape("url", FieldInfo.merge_field_infos(shown_as_text, annotation=str)) is None


def test_answer_model_asks_for_link_numbers_and_maps_them_back() -> None:
    plan = SchemaPlan(Shop)
    answer_model = plan.answer_model(frozenset({1, 2, 3}))
    answer = answer_model.model_validate(
        {
            "data": {
                "homepageLink": 1,
                "products": [{"name": "Lamp", "price": 5, "url": 2}],
                "best": {"name": "Lamp"},  # nested object: partial, fields optional
                "reviews": [{"author": "Ana", "profile_url": 3}],
                "mirrors": [3, 1],
            },
            "complete": True,
        }
    )
    links = {1: "https://shop.test/", 2: "https://shop.test/lamp", 3: "https://m.test/"}
    data = plan.to_data(answer.data, links)  # type: ignore[attr-defined]
    assert data["homepageLink"] == "https://shop.test/"
    assert data["products"] == [{"name": "Lamp", "price": 5.0, "url": "https://shop.test/lamp"}]
    assert data["reviews"][0]["profile_url"] == "https://m.test/"
    assert data["mirrors"] == ["https://m.test/", "https://shop.test/"]
    assert data["title"] is None and data["best"]["price"] is None


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ({"homepageLink": 9}, "link number"),  # not shown in this chunk
        ({"homepageLink": "https://made.up/"}, "integer"),  # a URL written by the model
        ({"products": [{"name": "Lamp", "price": -1, "url": 1}]}, "price must be positive"),
        ({"products": [{"name": "Lamp", "url": 1}]}, "price"),  # list items stay complete
    ],
)
def test_answer_model_rejects_what_must_be_reasked(data: dict[str, Any], error: str) -> None:
    answer_model = SchemaPlan(Shop).answer_model(frozenset({1}))
    with pytest.raises(ValidationError, match=error):
        answer_model.model_validate({"data": data, "complete": False})


PRODUCTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "store": {"$ref": "#/$defs/Store"},
        "products": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "product-name": {"type": "string"},
                    "price": {"type": "number"},
                    "page": {"type": "string", "format": "uri"},
                    "stock": {"enum": ["In stock", "Back-order"]},
                },
                "required": ["product-name", "price"],
            },
        },
    },
    "required": ["products"],
    "$defs": {
        "Store": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "city": {"type": ["string", "null"]}},
        }
    },
}


def test_json_schema_dict_becomes_models_and_validated_dicts() -> None:
    target = ExtractTarget.from_schema(PRODUCTS_SCHEMA)
    answer_model = target.plan.answer_model(frozenset({4}))
    answer = answer_model.model_validate(
        {
            "data": {
                "store": {"name": "Lumen"},
                "products": [{"product-name": "Lamp", "price": 3, "page": 4, "stock": "In stock"}],
            }
        }
    )
    data = target.plan.to_data(answer.data, {4: "http://x.test/lamp"})  # type: ignore[attr-defined]
    assert target.finish(data) == {
        "store": {"name": "Lumen"},  # only what was found: no invented nulls
        "products": [
            {
                "product-name": "Lamp",
                "price": 3.0,
                "page": "http://x.test/lamp",
                "stock": "In stock",
            }
        ],
    }
    with pytest.raises(ValidationError):
        answer_model.model_validate({"data": {"products": [{"product-name": "x", "price": 1,
                                                           "stock": "Sold out"}]}})  # fmt: skip
    with pytest.raises(ValidationError):
        target.finish({"store": {"name": "Lumen"}})  # required products never found


def test_json_schema_array_top_level_and_bad_schemas() -> None:
    target = ExtractTarget.from_schema({"type": "array", "items": {"type": "string"}})
    assert target.finish({"items": ["a", "b"]}) == ["a", "b"]
    with pytest.raises(ConfigurationError, match="type 'object'"):
        ExtractTarget.from_schema({"type": "string"})
    with pytest.raises(ConfigurationError, match=r"\$ref"):
        ExtractTarget.from_schema({"type": "object", "properties": {"a": {"$ref": "#/$defs/X"}}})
    with pytest.raises(ConfigurationError, match="pydantic model class"):
        ExtractTarget.from_schema("Shop")  # type: ignore[arg-type]


def test_prompt_names_the_part_and_what_is_already_found() -> None:
    system, user = build_extract_messages(
        "all products",
        page_text="| A | 1 |",
        part=2,
        parts=5,
        url="http://x.test/",
        title="Shop",
        already_found=["title", "products"],
    )
    assert system.role == "system" and "[link N: text]" in system.content
    assert "Instruction: all products" in user.content
    assert "part 2 of 5" in user.content
    assert "already filled from earlier parts: title, products" in user.content
    assert "<page_text>\n| A | 1 |\n</page_text>" in user.content


class Listing(BaseModel):
    items: list[str]
    note: str = "none"
    shop: Shop | None = None


def test_what_no_chunk_found_takes_defaults_or_an_empty_list() -> None:
    target = ExtractTarget.from_schema(Listing)
    assert target.finish({"items": None, "note": None, "shop": None}) == Listing(items=[])
    with pytest.raises(ValidationError, match="title"):  # a required scalar stays missing
        target.finish({"items": ["a"], "shop": {"title": None, "homepageLink": "x"}})


def test_a_list_of_models_is_planned_on_every_python() -> None:
    # Python 3.10 reports list[Row] as a type, and issubclass() then raises TypeError.
    class Row(BaseModel):
        name: str

    class Table(BaseModel):
        rows: list[Row]
        best: Row | None = None

    assert not subclass_of(list[Row], BaseModel)
    assert subclass_of(Row, BaseModel)
    assert ExtractTarget.from_schema(Table).kind == "model"


def _nested(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


# A JSON-schema dict given to extract() that the converter cannot read is a typed error
# naming what is accepted, never Python's TypeError, AttributeError or RecursionError.
@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"enum": [{"x": 1}]}}},
        {"type": "object", "properties": {"a": {"anyOf": []}}},
        {"type": "object", "properties": [{"name": "a"}]},
        {"type": "object", "properties": {"a": {"type": "object", "properties": 5}}},
        pytest.param(_nested(3000), id="nested-3000"),
    ],
)
def test_a_json_schema_extract_cannot_read_is_a_configuration_error(schema: Any) -> None:
    with pytest.raises(ConfigurationError, match="schema"):
        ExtractTarget.from_schema(schema)
