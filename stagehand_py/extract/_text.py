"""Render cleaned HTML as the plain text extract() sends to the model.

One :class:`Block` per output line, so chunking can cut between blocks and never inside one:
headings as ``## Title``, list items as ``- item``, each table row as ``| a | b |`` (a data
row remembers its table's header row so a chunk starting mid-table can repeat it), links as
``[link 7: text]`` with the id mapped to the absolute href in :attr:`PageText.links`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urljoin

from lxml import etree

from ._clean import base_href, clean_tree, parse_html

BLOCK_TAGS = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "caption", "dd", "details",
        "dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form",
        "header", "hgroup", "hr", "html", "legend", "li", "main", "nav", "ol", "p", "pre",
        "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
    }
)  # fmt: skip
HEADING_LEVELS = {f"h{n}": n for n in range(1, 7)}
_SPACES = re.compile(r"\s+")
_NOT_LINKS = ("javascript:", "data:", "vbscript:")
MAX_OPTIONS_SHOWN = 20


@dataclass(frozen=True)
class Block:
    """One line of page text. ``header`` is the header row of the table a data row is in."""

    text: str
    header: str | None = None


@dataclass
class PageText:
    """The readable text of a page (or of the part a selector chose) and its link map."""

    url: str
    title: str
    blocks: list[Block]
    links: dict[int, str] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return "\n".join(block.text for block in self.blocks)

    def redacted(self, redact: Callable[[str], str]) -> PageText:
        """This text with every page string passed through ``redact``, before any cutting
        into chunks could split a value into pieces redaction no longer recognises."""
        return PageText(
            url=redact(self.url),
            title=redact(self.title),
            blocks=[Block(redact(b.text), b.header and redact(b.header)) for b in self.blocks],
            links={number: redact(url) for number, url in self.links.items()},
        )


def _all_text(el: etree._Element) -> str:
    return "".join(t for t in el.itertext() if isinstance(t, str))


def _squash(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


class LinkNumbers:
    """Numbers each absolute href the first time it is met (1, 2, ...); scripts and data
    URLs are no links."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.links: dict[int, str] = {}
        self._ids: dict[str, int] = {}

    def number(self, href: str) -> int | None:
        href = href.strip()
        if not href or href.lower().startswith(_NOT_LINKS):
            return None
        absolute = urljoin(self.base_url, href)
        if absolute not in self._ids:
            self._ids[absolute] = len(self._ids) + 1
            self.links[self._ids[absolute]] = absolute
        return self._ids[absolute]


class _Renderer:
    """Walks a cleaned tree once, writing blocks and numbering links as it meets them."""

    def __init__(self, base_url: str) -> None:
        self.blocks: list[Block] = []
        self.links = LinkNumbers(base_url)
        self._line: list[str] = []
        self._prefix = ""  # list marker waiting for the item's first line
        self._depth = 0  # list nesting

    # ---------------------------------------------------------------- output
    def emit(self, text: str, header: str | None = None, *, keep_spaces: bool = False) -> None:
        text = text.rstrip() if keep_spaces else _squash(text)
        if not text.strip():
            return
        indent = "  " * max(0, self._depth - 1)
        if self._prefix:
            text, self._prefix = self._prefix + text, ""
        elif self._depth:
            text = "  " + text
        self.blocks.append(Block(indent + text, header))

    def flush(self) -> None:
        if self._line:
            line, self._line = "".join(self._line), []
            self.emit(line)

    def add(self, text: str | None) -> None:
        if text:
            self._line.append(text)

    # ---------------------------------------------------------------- inline pieces
    def control(self, el: etree._Element) -> str:
        name = el.get("aria-label") or el.get("placeholder") or el.get("name") or ""
        label = f' "{_squash(name)}"' if name else ""
        if el.tag == "select":
            options = [_squash(_all_text(o)) for o in el.iter("option")]
            chosen = [_squash(_all_text(o)) for o in el.iter("option") if o.get("selected")]
            shown = ", ".join(options[:MAX_OPTIONS_SHOWN])
            return f"[select{label}: {', '.join(chosen)} (options: {shown})]"
        if el.tag == "textarea":
            return f"[textarea{label}: {_squash(_all_text(el))}]"
        kind = (el.get("type") or "text").lower()
        if kind in ("checkbox", "radio"):
            state = "checked" if el.get("checked") is not None else "unchecked"
            return f"[{kind}{label} {state}]"
        if kind in ("submit", "button", "reset"):
            return f"[button: {_squash(el.get('value') or kind)}]"
        value = "" if kind == "password" else _squash(el.get("value") or "")
        return f"[{kind} input{label}: {value}]"

    def inline(self, el: etree._Element) -> str:
        """All text under ``el`` on one line, with links, images and controls rendered."""
        parts: list[str] = [el.text or ""]
        for child in el:
            if isinstance(child.tag, str):
                piece = self.inline_piece(child)
                # Block children and rendered controls are separate words, spans are not.
                separate = child.tag in BLOCK_TAGS or child.tag in HEADING_LEVELS
                parts.append(f" {piece} " if separate else piece)
            parts.append(child.tail or "")
        return _squash("".join(parts))

    def inline_piece(self, el: etree._Element) -> str:
        tag = el.tag
        if tag == "a":
            text = self.inline(el) or _squash(el.get("aria-label") or el.get("title") or "")
            link = self.links.number(el.get("href") or "")
            if link is None:
                return text
            return f"[link {link}: {text}]" if text else f"[link {link}]"
        if tag == "img":
            alt = _squash(el.get("alt") or "")
            return f" [image: {alt}] " if alt else ""
        if tag in ("input", "select", "textarea"):
            return f" {self.control(el)} "
        if tag == "br":
            return " "
        return self.inline(el)

    # ---------------------------------------------------------------- blocks
    def walk(self, el: etree._Element) -> None:
        tag = el.tag if isinstance(el.tag, str) else ""
        if tag in HEADING_LEVELS:
            self.flush()
            self.emit("#" * HEADING_LEVELS[tag] + " " + self.inline(el))
        elif tag == "table":
            self.flush()
            self.table(el)
        elif tag in ("ul", "ol"):
            self.flush()
            self.list(el, ordered=tag == "ol")
        elif tag == "dl":
            self.flush()
            self.definitions(el)
        elif tag == "pre":
            self.flush()
            for line in _all_text(el).splitlines():
                self.emit(line, keep_spaces=True)
        elif tag == "br":
            self.flush()
        elif tag in ("a", "img", "input", "select", "textarea"):
            self.add(self.inline_piece(el))
        else:
            block = tag in BLOCK_TAGS
            if block:
                self.flush()
            self.add(el.text)
            for child in el:
                if isinstance(child.tag, str):
                    self.walk(child)
                self.add(child.tail)
            if block:
                self.flush()

    def list(self, el: etree._Element, *, ordered: bool) -> None:
        number = int(el.get("start") or 1) if (el.get("start") or "1").isdigit() else 1
        self._depth += 1
        for item in el:
            if not isinstance(item.tag, str):
                continue
            if item.tag == "li":
                self._prefix = f"{number}. " if ordered else "- "
                number += 1
            self.walk_children(item)
            self.flush()
            self._prefix = ""
        self._depth -= 1

    def walk_children(self, el: etree._Element) -> None:
        self.add(el.text)
        for child in el:
            if isinstance(child.tag, str):
                self.walk(child)
            self.add(child.tail)

    def definitions(self, el: etree._Element) -> None:
        term = ""
        for child in el.iter("dt", "dd"):
            if child.tag == "dt":
                if term:
                    self.emit(term)
                term = self.inline(child)
            else:
                text = self.inline(child)
                self.emit(f"{term}: {text}" if term else text)
                term = ""
        if term:
            self.emit(term)

    def table(self, el: etree._Element) -> None:
        header: str | None = None
        caption = el.find("caption")
        if caption is not None:
            self.emit(self.inline(caption))
        rows = [row for row in el.iter("tr") if _owning_table(row) is el]
        for row in rows:
            cells = [c for c in row if isinstance(c.tag, str) and c.tag in ("td", "th")]
            texts = [self.inline(cell).replace("|", "/") for cell in cells]
            if not any(texts):
                continue
            line = "| " + " | ".join(texts) + " |"
            section = row.getparent()
            in_head = section is not None and section.tag == "thead"
            if header is None and (in_head or all(c.tag == "th" for c in cells)):
                header = line
                self.emit(line)
            else:
                self.emit(line, header)


def _owning_table(row: etree._Element) -> etree._Element | None:
    parent = row.getparent()
    while parent is not None and parent.tag != "table":
        parent = parent.getparent()
    return parent


def page_text(html: str, *, url: str, title: str = "") -> PageText:
    """Clean ``html`` (serializer output or a whole document) and render it as blocks."""
    base = urljoin(url, base_href(html) or "") if url else (base_href(html) or "")
    renderer = _Renderer(base)
    renderer.walk(clean_tree(parse_html(html)))
    renderer.flush()
    return PageText(url=url, title=title, blocks=renderer.blocks, links=renderer.links.links)
