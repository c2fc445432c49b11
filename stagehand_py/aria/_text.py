"""The accessibility-tree view as extract()'s page text (pure Python).

One block per element of the aria :class:`Snapshot`, in reading order, in extract()'s own
notation (:mod:`stagehand_py.extract._text`) so its chunking, link checks and merging work
unchanged: headings as ``## Title``, links as ``[link 7: text]`` with the id mapped to the
absolute URL, other controls as ``[button: Save]`` (a field's value after its name), plain
text as it is. Canvases are left out (they hold no text).
"""

from __future__ import annotations

from .._snapshot import Element, Snapshot
from ..extract._text import Block, LinkNumbers, PageText
from ._assemble import HIDDEN_URL


def _squash(text: str) -> str:
    return " ".join(text.split())


def _block(element: Element, links: LinkNumbers) -> str:
    text, name = _squash(element.text), _squash(element.name)
    role = element.role
    if role == "text":
        return text
    if role == "canvas":
        return ""
    if role == "heading":
        level = element.attributes.get("level", "2")
        return "#" * int(level if level.isdigit() else 2) + " " + (text or name)
    shown = name or text
    if role == "link":
        address = element.attributes.get("url") or element.attributes.get(HIDDEN_URL, "")
        number = links.number(address)
        return f"[link {number}: {shown}]" if number is not None else shown
    if not role or role == "generic":
        return text or name
    value = f" = {text}" if text and name and text != name else ""
    options = f" (options: {', '.join(element.options[:20])})" if element.options else ""
    return f"[{role}: {shown}]{value}{options}" if shown else f"[{role}]{value}{options}"


def aria_page_text(snapshot: Snapshot) -> PageText:
    """extract()'s :class:`PageText` from an accessibility-tree snapshot."""
    links = LinkNumbers(snapshot.url)
    blocks = [Block(line) for e in snapshot.elements if (line := _block(e, links))]
    return PageText(url=snapshot.url, title=snapshot.title, blocks=blocks, links=links.links)
