"""Cut page text into chunks of at most ``max_chars``, on block (line) boundaries.

Consecutive chunks overlap by a few blocks (about an eighth of the cap), so an item whose
lines straddle a boundary (a product card: name on one line, price on the next) is seen
whole in at least one chunk; the merge step drops the copies the overlap produces. A chunk
that starts inside a table repeats the table's header row first, so its cells keep their
meaning. Only a single line longer than the cap is ever cut, at a space where possible.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .._errors import ConfigurationError
from ._text import Block

_LINK_REF = re.compile(r"\[link (\d+)")
MIN_CHUNK_CHARS = 200


@dataclass(frozen=True)
class TextChunk:
    """One part of the page text as sent to the model, and the link ids it shows."""

    index: int
    text: str
    link_ids: frozenset[int]


def _split_long(block: Block, limit: int) -> list[Block]:
    """Cut one over-long line into pieces of at most ``limit`` characters."""
    pieces: list[Block] = []
    text = block.text
    while len(text) > limit:
        cut = text.rfind(" ", limit // 2, limit)
        cut = cut if cut > 0 else limit
        pieces.append(Block(text[:cut].rstrip(), block.header))
        text = text[cut:].lstrip()
    if text:
        pieces.append(Block(text, block.header))
    return pieces


def _fits(blocks: list[Block], limit: int) -> list[Block]:
    # Leave room for a repeated header row (at most half the cap) in front of any data row.
    out: list[Block] = []
    for block in blocks:
        room = limit - (len(block.header) + 1 if block.header else 0)
        out.extend(_split_long(block, room if room >= limit // 2 else limit))
    return out


def split_chunks(
    blocks: list[Block], max_chars: int, *, overlap_chars: int | None = None
) -> list[TextChunk]:
    """Pack ``blocks`` into chunks of at most ``max_chars`` characters (joined by newlines)."""
    if max_chars < MIN_CHUNK_CHARS:
        raise ConfigurationError(
            f"max_chars_per_chunk must be at least {MIN_CHUNK_CHARS}, got {max_chars}: a smaller "
            "cap cannot hold a table row with its header."
        )
    overlap = max_chars // 8 if overlap_chars is None else overlap_chars
    items = _fits(blocks, max_chars)
    chunks: list[TextChunk] = []
    start = 0
    while start < len(items):
        lines: list[str] = []
        first = items[start]
        header = first.header if first.header and first.header != first.text else None
        if header is not None and len(header) + 1 + len(first.text) <= max_chars:
            lines.append(header)
        size = sum(len(line) + 1 for line in lines) - 1
        end = start
        while end < len(items) and size + 1 + len(items[end].text) <= max_chars:
            lines.append(items[end].text)
            size += 1 + len(items[end].text)
            end += 1
        if end == start:  # the header did not leave room: send the line alone
            lines, end = [first.text], start + 1
        text = "\n".join(lines)
        ids = frozenset(int(n) for n in _LINK_REF.findall(text))
        chunks.append(TextChunk(index=len(chunks), text=text, link_ids=ids))
        if end >= len(items):
            break
        start = _next_start(items, start, end, overlap, max_chars)
    return chunks


def _next_start(items: list[Block], start: int, end: int, overlap: int, max_chars: int) -> int:
    """Where the chunk after ``items[start:end]`` begins: a few blocks back, never at ``start``.

    It steps back over blocks within the ``overlap`` budget, and over at least the last one
    unless that one is longer than a third of the cap (repeating it would crowd the chunk).
    """
    budget = max(overlap, min(len(items[end - 1].text), max_chars // 3))
    next_start, carried = end, 0
    while next_start - 1 > start and carried + len(items[next_start - 1].text) <= budget:
        next_start -= 1
        carried += len(items[next_start].text) + 1
    return next_start
