"""extract() on real Chromium with fake models, on the pages under tests/pages/extract/."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage
from pydantic import BaseModel, HttpUrl

from stagehand_py._async.extract.read import extract
from stagehand_py._async.llm.testing import AsyncFunctionLLM, AsyncScriptedLLM
from stagehand_py._errors import ElementNotFoundError, ExtractError
from stagehand_py.llm._messages import Message

ROW = re.compile(r"^\| \[link (\d+): ([^\]]+)\] \| ([\d.]+) EUR \| ([^|]+) \|$", re.M)
CARD = re.compile(r"^### (.+)\nAuthor: (.+)\nPrice: ([\d.]+) EUR$", re.M)
LINK = re.compile(r"\[link (\d+): ([^\]]+)\]")
HIDDEN_MARKERS = (
    "SCRIPT_MARKER", "STYLE_MARKER", "COMMENT_MARKER", "HIDDEN_ATTR_MARKER",
    "ARIA_HIDDEN_MARKER", "INVISIBLE_MARKER", "TEMPLATE_MARKER", "CSS_HIDDEN_MARKER",
    "CLOSED_DETAILS_MARKER", "Ghost Lamp",
)  # fmt: skip


class Product(BaseModel):
    name: str
    price: float
    url: HttpUrl


class Catalogue(BaseModel):
    products: list[Product]


class Book(BaseModel):
    title: str
    author: str
    price: float


class Books(BaseModel):
    books: list[Book]


class Address(BaseModel):
    street: str
    city: str


class Hours(BaseModel):
    days: str
    time: str


class Store(BaseModel):
    name: str
    address: Address
    hours: list[Hours] = []


def shown_text(messages: list[Message]) -> str:
    """The page text part of an extract prompt."""
    user = next(m.content for m in messages if m.role == "user")
    return user.split("<page_text>\n", 1)[1].rsplit("\n</page_text>", 1)[0]


def read_rows(messages: list[Message], schema: type[BaseModel]) -> dict[str, Any]:
    """An honest model: every product row visible in this chunk, its link by number."""
    rows = ROW.findall(shown_text(messages))
    products = [{"name": n, "price": float(p), "url": int(link)} for link, n, p, _ in rows]
    return {"data": {"products": products}, "complete": False}


def read_cards(messages: list[Message], schema: type[BaseModel]) -> dict[str, Any]:
    """An honest model: only the book cards whose three lines are all in this chunk."""
    cards = CARD.findall(shown_text(messages))
    books = [{"title": t, "author": a, "price": float(p)} for t, a, p in cards]
    return {"data": {"books": books}, "complete": False}


@pytest.mark.no_sync_twin
async def test_product_table_across_chunks_loses_and_repeats_no_row(
    async_page: AsyncPage, pages_url: str
) -> None:
    await async_page.goto(pages_url + "extract/products.html")
    llm = AsyncFunctionLLM(structured=read_rows)
    outcome = await extract(
        async_page, llm, "every product with its price and link", Catalogue, max_chars_per_chunk=600
    )
    assert outcome.chunks == llm.calls == outcome.llm_calls >= 4
    products = outcome.value.products
    names = [p.name for p in products]
    assert len(names) == 40 and len(set(names)) == 40  # none lost at a boundary, none doubled
    assert names[0] == "Aurora Floor Lamp" and names[-1] == "Nova Desk Lamp"
    assert products[16].name == "Quartz Pendant" and products[16].price == 38.21
    assert str(products[0].url) == pages_url + "extract/items/aurora.html"
    assert outcome.usage.requests == llm.calls and outcome.duration_s > 0
    for request in llm.requests:
        text = shown_text(request.messages)
        assert len(text) <= 600
        assert text.startswith("| Product | Price | Availability |") or "# Lamp" in text
        assert not [m for m in HIDDEN_MARKERS if m in request.text()]
    assert "Shipping terms" in llm.requests[-1].text()  # a closed <details> shows its summary


@pytest.mark.no_sync_twin
async def test_cards_straddling_chunk_boundaries_are_seen_whole(
    async_page: AsyncPage, pages_url: str
) -> None:
    await async_page.goto(pages_url + "extract/cards.html")
    llm = AsyncFunctionLLM(structured=read_cards)
    outcome = await extract(async_page, llm, "all books", Books, max_chars_per_chunk=300)
    assert outcome.chunks >= 4
    titles = [b.title for b in outcome.value.books]
    assert len(titles) == 24 and len(set(titles)) == 24
    assert titles[0] == "The Quiet Shore" and titles[-1] == "Open Fields"
    assert outcome.value.books[10].author == "Author 11"


@pytest.mark.no_sync_twin
async def test_nested_model_is_merged_across_chunks_until_complete(
    async_page: AsyncPage, pages_url: str
) -> None:
    await async_page.goto(pages_url + "extract/store.html")
    llm = AsyncScriptedLLM(
        {"data": {"name": "Green Leaf Books", "address": {"street": "12 Elm Street"}}},
        {
            "data": {
                "name": "ignored: kept once found",
                "address": {"city": "Springfield"},
                "hours": [{"days": "Saturday", "time": "10:00 - 14:00"}],
            },
            "complete": True,
        },
    )
    outcome = await extract(async_page, llm, "the store", Store, max_chars_per_chunk=200)
    assert outcome.value == Store(
        name="Green Leaf Books",
        address=Address(street="12 Elm Street", city="Springfield"),
        hours=[Hours(days="Saturday", time="10:00 - 14:00")],
    )
    assert outcome.llm_calls == outcome.chunks == 2  # stopped when the model said complete
    assert "# Green Leaf Books" in llm.requests[0].text()
    assert "part 1 of" in llm.requests[0].text()
    assert "already filled from earlier parts: name, address" in llm.requests[1].text()


@pytest.mark.no_sync_twin
async def test_json_schema_dict_gives_a_validated_dict_with_absolute_urls(
    async_page: AsyncPage, pages_url: str
) -> None:
    await async_page.goto(pages_url + "extract/products.html")
    schema = {
        "type": "object",
        "properties": {
            "products": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "price": {"type": "number"},
                        "page": {"type": "string", "format": "uri"},
                    },
                    "required": ["name", "price", "page"],
                },
            }
        },
        "required": ["products"],
    }
    llm = AsyncScriptedLLM(
        {
            "data": {
                "products": [
                    {"name": "Aurora Floor Lamp", "price": 16.13, "page": 1},
                    {"name": "Birch Pendant", "price": "23.26", "page": 2},
                ]
            },
            "complete": True,
        }
    )
    outcome = await extract(async_page, llm, "the first two products", schema)
    assert outcome.value == {
        "products": [
            {
                "name": "Aurora Floor Lamp",
                "price": 16.13,
                "page": pages_url + "extract/items/aurora.html",
            },
            {
                "name": "Birch Pendant",
                "price": 23.26,
                "page": pages_url + "extract/items/birch.html",
            },
        ]
    }
    assert outcome.chunks == 1  # the whole page fits the default cap


@pytest.mark.no_sync_twin
async def test_invalid_answer_is_reasked_with_the_error_then_accepted(
    async_page: AsyncPage, pages_url: str
) -> None:
    await async_page.goto(pages_url + "extract/products.html")
    llm = AsyncScriptedLLM(
        {"data": {"products": [{"name": "Aurora Floor Lamp", "url": 1}]}, "complete": True},
        {"data": {"products": [{"name": "Aurora Floor Lamp", "price": 16.13, "url": 1}]},
         "complete": True},
    )  # fmt: skip
    outcome = await extract(async_page, llm, "the first product", Catalogue)
    assert outcome.value.products[0].price == 16.13
    assert outcome.llm_calls == llm.calls == 2
    assert "price" in llm.requests[1].messages[-1].content  # the validation error went back


async def test_answer_that_never_validates_is_an_extract_error_with_the_last_attempt(
    async_page: AsyncPage, pages_url: str
) -> None:
    await async_page.goto(pages_url + "extract/products.html")
    bad = {"data": {"products": [{"name": "Aurora", "price": "cheap", "url": 1}]}}
    worse = {"data": {"products": [{"name": "Aurora", "price": 1, "url": "http://made.up/"}]}}
    llm = AsyncScriptedLLM(bad, worse)
    with pytest.raises(ExtractError, match="no valid answer") as caught:
        await extract(async_page, llm, "the first product", Catalogue, max_retries=1)
    assert caught.value.last_attempt == worse
    assert llm.calls == 2


async def test_required_field_never_found_is_an_extract_error_with_what_was_found(
    async_page: AsyncPage, pages_url: str
) -> None:
    await async_page.goto(pages_url + "extract/store.html")
    llm = AsyncScriptedLLM({"data": {"name": "Green Leaf Books"}, "complete": True})
    with pytest.raises(ExtractError, match="does not fit the schema") as caught:
        await extract(async_page, llm, "the store", Store)
    assert caught.value.last_attempt["name"] == "Green Leaf Books"
    assert caught.value.last_attempt["address"] is None


class Link(BaseModel):
    label: str
    url: HttpUrl


class Links(BaseModel):
    links: list[Link]


def read_links(messages: list[Message], schema: type[BaseModel]) -> dict[str, Any]:
    found = LINK.findall(shown_text(messages))
    return {"data": {"links": [{"label": t, "url": int(n)} for n, t in found]}, "complete": True}


@pytest.mark.no_sync_twin
async def test_links_come_back_as_the_absolute_hrefs_the_browser_resolved(
    async_page: AsyncPage, pages_url: str
) -> None:
    await async_page.goto(pages_url + "extract/links/index.html")
    llm = AsyncFunctionLLM(structured=read_links)
    outcome = await extract(async_page, llm, "every link", Links)
    got = {link.label: str(link.url) for link in outcome.value.links}
    base = pages_url + "extract/"
    assert got == {
        "Catalogue": base + "products.html",
        "Detail three": base + "links/detail.html?id=3",
        "Our store": base + "store.html",
        "FAQ": base + "links/index.html#faq",
        "Partner site": "https://example.org/partner",
        "Shadow link": base + "links/shadow-target.html",  # inside an open shadow root
        "Framed link": base + "links/frames/frame-target.html",  # relative to the iframe
    }
    assert "Open chat" in llm.requests[0].text()  # javascript: links are text, not links


@pytest.mark.no_sync_twin
async def test_a_url_written_by_the_model_is_refused_and_reasked(
    async_page: AsyncPage, pages_url: str
) -> None:
    await async_page.goto(pages_url + "extract/links/index.html")
    llm = AsyncScriptedLLM(
        {"data": {"links": [{"label": "Catalogue", "url": "https://phish.example/"}]}},
        {"data": {"links": [{"label": "Catalogue", "url": 99}]}},
        {"data": {"links": [{"label": "Catalogue", "url": 1}]}, "complete": True},
    )
    outcome = await extract(async_page, llm, "the catalogue link", Links)
    assert str(outcome.value.links[0].url) == pages_url + "extract/products.html"
    assert "do not appear in this part" in llm.requests[2].messages[-1].content


async def test_selector_scopes_the_text_sent(async_page: AsyncPage, pages_url: str) -> None:
    await async_page.goto(pages_url + "extract/store.html")
    llm = AsyncScriptedLLM(
        {"data": {"hours": [{"days": "Sunday", "time": "closed"}]}, "complete": True}
    )

    class OpeningHours(BaseModel):
        hours: list[Hours]

    outcome = await extract(async_page, llm, "opening hours", OpeningHours, selector="#hours")
    assert outcome.value.hours == [Hours(days="Sunday", time="closed")]
    sent = shown_text(llm.requests[0].messages)
    assert "Saturday: 10:00 - 14:00" in sent
    assert "Green Leaf Books" not in sent and "Elm Street" not in sent
    with pytest.raises(ElementNotFoundError, match="#nowhere"):
        await extract(async_page, llm, "opening hours", OpeningHours, selector="#nowhere")


@pytest.mark.no_sync_twin
async def test_no_schema_returns_text(async_page: AsyncPage, pages_url: str) -> None:
    await async_page.goto(pages_url + "extract/store.html")
    llm = AsyncScriptedLLM({"data": {"text": "9:00 - 18:00"}, "complete": True})
    whole = await extract(async_page, llm, "")
    assert llm.calls == 0 and whole.llm_calls == 0  # the page's text needs no model
    text = whole.value["text"]
    assert "Pick of the month: The Long Way, 18.00 EUR" in text  # shadow DOM and its slot
    assert "- Author evening with Mara Holt on 12 March" in text  # same-origin iframe
    assert "FRAME_HIDDEN_MARKER" not in text  # hidden by the iframe's own stylesheet
    answer = await extract(async_page, llm, "weekday opening hours")
    assert answer.value == {"text": "9:00 - 18:00"} and llm.calls == 1


async def test_redact_applies_to_everything_sent(async_page: AsyncPage, pages_url: str) -> None:
    await async_page.goto(pages_url + "extract/store.html")
    llm = AsyncScriptedLLM({"data": {"text": "<|STREET|>"}, "complete": True})
    await extract(
        async_page,
        llm,
        "the address on Elm Street",
        redact=lambda s: s.replace("Elm Street", "<|STREET|>"),
    )
    sent = llm.requests[0].text()
    assert "Elm Street" not in sent and "12 <|STREET|>" in sent
