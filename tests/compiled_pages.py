"""The compiled-extract fixture pages (tests/pages/extract/compiled/), their schemas, the values
each page shows, and honest fake models that read the numbered elements of the prompt and
name the element of every value, as a real model is asked to."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

from stagehand_py.llm._messages import Message

PAGES = "extract/compiled/"
INSTRUCTION = "the product's name, price, stock, SKU, gift wrap, brand link and tags"
LIST_INSTRUCTION = "every product card: name, price and link"


class Product(BaseModel):
    name: str
    price: float
    stock: int
    sku: str
    gift_wrap: bool
    brand_url: str
    tags: list[str]


class Card(BaseModel):
    name: str
    price: float
    url: str


class Catalog(BaseModel):
    products: list[Card]


class Availability(BaseModel):
    name: str
    availability: str  # the model answers in its own words: nothing on the page reads so


PRODUCTS = {
    "product_1.html": ("Blue Enamel Mug", 1299.5, 7, "SKU-1001", True, "acme",
                       ["kitchen", "enamel"]),
    "product_2.html": ("Walnut Cutting Board", 34.0, 12, "SKU-2044", False, "woodco",
                       ["kitchen", "wood", "gift"]),
    "product_3.html": ("Linen Apron", 18.75, 3, "SKU-3107", True, "loom", ["textile"]),
    "product_4.html": ("Cast Iron Pan", 2049.99, 41, "SKU-4410", False, "forge",
                       ["kitchen", "iron"]),
}  # fmt: skip
CATALOGS = {
    "catalog_1.html": [
        ("Stoneware Bowl", 12.5, 11), ("Glass Carafe", 1249.0, 12), ("Oak Spoon", 4.99, 13),
    ],
    "catalog_2.html": [
        ("Copper Kettle", 89.0, 21), ("Bread Knife", 24.9, 22), ("Tea Towel", 7.5, 23),
        ("Salt Cellar", 15.0, 24), ("Pepper Mill", 1019.95, 25),
    ],
}  # fmt: skip


def expected_product(base_url: str, page: str) -> dict[str, Any]:
    name, price, stock, sku, gift, slug, tags = PRODUCTS[page]
    brand = f"{base_url}extract/brand/{slug}.html"
    return {"name": name, "price": price, "stock": stock, "sku": sku, "gift_wrap": gift,
            "brand_url": brand, "tags": tags}  # fmt: skip


def expected_catalog(base_url: str, page: str) -> dict[str, Any]:
    return {
        "products": [
            {"name": n, "price": p, "url": f"{base_url}extract/item/{i}.html"}
            for n, p, i in CATALOGS[page]
        ]
    }


_LINE = re.compile(r"^(\d+):(.*)$", re.M)
_TAG = r"^<li>(.+)</li>$"


def element_lines(messages: list[Message]) -> list[tuple[int, str]]:
    """(number, line) of every element shown in a compiled extract's prompt."""
    user = next(m.content for m in messages if m.role == "user")
    shown = user.split("<page_elements>\n", 1)[1].rsplit("\n</page_elements>", 1)[0]
    return [(int(n), line) for n, line in _LINE.findall(shown)]


def _find(lines: list[tuple[int, str]], pattern: str, after: int = -1) -> tuple[int, str]:
    for number, line in lines:
        match = re.search(pattern, line)
        if match and number > after:
            return number, match.group(1)
    raise AssertionError(f"the fake model found no line like {pattern!r}")


def _number(text: str, comma: bool = False) -> float:
    if comma:
        return float(text.replace(".", "").replace(",", "."))
    return float(text.replace(",", ""))


def read_product(messages: list[Message], schema: type[BaseModel]) -> dict[str, Any]:
    """An honest model: the product's fields and the element each was read from."""
    lines = element_lines(messages)
    name_at, name = _find(lines, r"^<h1>(.+)</h1>$")
    price_at, price = _find(lines, r"^<p>Price: \$([\d,.]+)</p>$")
    stock_at, stock = _find(lines, r"^<span>(\d+)</span>$")
    sku_at, sku = _find(lines, r"^<p[^>]*>(SKU-\d+)</p>$")
    label_at, _ = _find(lines, r"^<label>(Gift wrap)</label>$")
    gift_at, gift = _find(lines, r'^<input (type="checkbox".*)></input>$', label_at)
    brand_at, _ = _find(lines, r'^<a href="\.\./brand/[^"]+">(.+)</a>$')
    tags_at, _ = _find(lines, r"^<h2>(Tags)</h2>$")
    tags = [
        (n, t) for n, line in lines if n > tags_at for t in re.findall(r"^<li>(.+)</li>$", line)
    ]
    data = {
        "name": name, "price": _number(price), "stock": int(stock), "sku": sku,
        "gift_wrap": 'checked="true"' in gift, "brand_url": brand_at, "tags": [t for _, t in tags],
    }  # fmt: skip
    sources = {
        "/name": [name_at], "/price": [price_at], "/stock": [stock_at], "/sku": [sku_at],
        "/gift_wrap": [gift_at], "/brand_url": [brand_at],
        **{f"/tags/{k}": [n] for k, (n, _) in enumerate(tags)},
    }  # fmt: skip
    return {"data": data, "sources": sources, "complete": True}


def read_catalog(messages: list[Message], schema: type[BaseModel]) -> dict[str, Any]:
    """An honest model: every card, each field with its element."""
    lines = element_lines(messages)
    products: list[dict[str, Any]] = []
    sources: dict[str, list[int]] = {}
    names = [(n, m.group(1)) for n, line in lines if (m := re.match(r"^<h2>(.+)</h2>$", line))]
    for k, (name_at, name) in enumerate(names):
        price_at, price = _find(lines, r"^<span>([\d.,]+) €</span>$", name_at)
        link_at, _ = _find(lines, r'^<a href="[^"]+">(Details)</a>$', price_at)
        products.append({"name": name, "price": _number(price, comma=True), "url": link_at})
        sources.update({f"/products/{k}/name": [name_at], f"/products/{k}/price": [price_at],
                        f"/products/{k}/url": [link_at]})  # fmt: skip
    return {"data": {"products": products}, "sources": sources, "complete": True}


def read_availability(messages: list[Message], schema: type[BaseModel]) -> dict[str, Any]:
    """A model that paraphrases one field: no read of the page gives its words."""
    lines = element_lines(messages)
    name_at, name = _find(lines, r"^<h1>(.+)</h1>$")
    stock_at, _ = _find(lines, r"^<span>(\d+)</span>$")
    return {
        "data": {"name": name, "availability": "available"},
        "sources": {"/name": [name_at], "/availability": [stock_at]},
        "complete": True,
    }
