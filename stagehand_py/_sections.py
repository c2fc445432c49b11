"""Which parts of a snapshot a model is shown next: packing chunks into prompts, and what it
has already seen.

Pure: no browser. act() and observe() both pack chunks nearest-first into groups up to a
character budget (:func:`chunk_groups`); act() also remembers what each chunk looked like
when it was shown (:class:`SectionTracker`), so a skipped chunk is offered again once its
content changed (a menu that opened late) but never again while it stays the same.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence

from ._snapshot import Snapshot

_NUMBER = re.compile(r"^\d+:", re.MULTILINE)
# A chunk whose content keeps changing (a clock, a ticker) is offered again at most this often
# between two actions, so a model that skips it cannot be kept busy forever.
MAX_REOFFERS = 2


def _packed(snapshot: Snapshot, order: Iterable[int], max_chars: int) -> Iterator[list[int]]:
    """Groups of ``order``, made lazily (a caller that needs the first renders no more)."""
    current: list[int] = []
    size = 0
    for chunk in order:
        length = len(snapshot.render_chunk(chunk)) + 1
        if current and size + length > max_chars:
            yield current
            current, size = [], 0
        current.append(chunk)
        size += length
    if current:
        yield current


def chunk_groups(
    snapshot: Snapshot, max_chars: int, order: Sequence[int] | None = None
) -> list[list[int]]:
    """Chunks (``order``, default nearest first) packed into groups whose rendered text fits
    ``max_chars``; a chunk larger than that forms a group of its own."""
    return list(_packed(snapshot, snapshot.chunk_order() if order is None else order, max_chars))


def first_group(snapshot: Snapshot, order: Sequence[int], max_chars: int) -> list[int]:
    """The first group :func:`chunk_groups` makes of ``order`` (``order`` must not be empty)."""
    return next(_packed(snapshot, order, max_chars))


def content_key(rendered_chunk: str) -> str:
    """A chunk's content without its element numbers (numbers shift when rows are added)."""
    return _NUMBER.sub("", rendered_chunk)


class SectionTracker:
    """What the model was shown since the last action: chunk index -> its content then."""

    def __init__(self, max_reoffers: int = MAX_REOFFERS) -> None:
        self.max_reoffers = max_reoffers
        self._shown: dict[int, str] = {}
        self._reoffers: dict[int, int] = {}

    def reset(self) -> None:
        """After an action: the page is new, every chunk may help again."""
        self._shown.clear()
        self._reoffers.clear()

    def new_chunks(self, order: Iterable[int], content: Callable[[int], str]) -> list[int]:
        """Chunks of ``order`` to offer: never shown, or shown with other content (a bounded
        number of times)."""
        fresh: list[int] = []
        for chunk in order:
            before = self._shown.get(chunk)
            if before is None or (
                self._reoffers.get(chunk, 0) < self.max_reoffers
                and content_key(content(chunk)) != before
            ):
                fresh.append(chunk)
        return fresh

    def mark_shown(self, chunks: Iterable[int], content: Callable[[int], str]) -> None:
        for chunk in chunks:
            if chunk in self._shown:
                self._reoffers[chunk] = self._reoffers.get(chunk, 0) + 1
            self._shown[chunk] = content_key(content(chunk))

    def scrolled(self) -> None:
        """The act scrolled a list on purpose (a virtualised-list search): chunks whose content
        changed may be offered again, however often they were before."""
        self._reoffers.clear()

    def forget(self, chunks: Iterable[int]) -> None:
        """Offer ``chunks`` again whatever their content (the page replaced what the model
        chose there)."""
        for chunk in chunks:
            self._shown.pop(chunk, None)
