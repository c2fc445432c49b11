"""Server-side HTML cleanup for extract(): what the model must never see is removed here.

Works on the browser serializer's output (``page_html.js``: hidden nodes already *marked*) and
on plain HTML such as ``page.content()`` (hidden nodes recognised from their attributes and
inline styles), so the same cleaning applies however the HTML was obtained.
"""

from __future__ import annotations

import re

from lxml import etree

# Subtrees that never carry readable page text.
DROPPED_TAGS = frozenset(
    {
        "script", "style", "noscript", "template", "svg", "math", "head", "meta", "link",
        "object", "embed", "canvas", "audio", "video", "map", "iframe", "frame", "frameset",
        "title", "base",
    }
)  # fmt: skip
_PARSER = etree.HTMLParser(remove_comments=True, remove_pis=True, no_network=True)
_HIDDEN_STYLE = re.compile(r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)", re.I)


def parse_html(source: str) -> etree._Element:
    """Parse a document or a fragment; return the element whose subtree is the page body."""
    # Plain etree elements: lxml.html's element classes cost a lookup per node, for nothing.
    root = etree.fromstring(source, _PARSER) if source.strip() else None
    if root is None:
        return etree.Element("div")
    body = root.find("body")
    return body if body is not None else root


def base_href(source: str) -> str | None:
    """The ``<base href>`` of a full HTML document, if any (relative links resolve against it)."""
    match = re.search(r"<base\s[^>]*href\s*=\s*[\"']?([^\"'\s>]+)", source, re.I)
    return match.group(1) if match else None


def _is_hidden(element: etree._Element) -> bool:
    if element.get("data-sh-hidden") is not None or element.get("hidden") is not None:
        return True
    if (element.get("aria-hidden") or "").strip().lower() == "true":
        return True
    if element.tag == "input" and (element.get("type") or "").lower() == "hidden":
        return True
    return bool(_HIDDEN_STYLE.search(element.get("style") or ""))


def _drop(element: etree._Element) -> None:
    """Remove an element but keep the text that follows it (its tail belongs to the parent)."""
    parent = element.getparent()
    if parent is None:
        return
    tail = element.tail
    if tail:
        previous = element.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(element)


def clean_tree(root: etree._Element) -> etree._Element:
    """Remove comments, script-like subtrees and hidden nodes from ``root`` (in place)."""
    doomed: list[etree._Element] = []
    for element in root.iter():
        if element is root:
            continue
        # Comments and processing instructions have a non-string tag.
        is_node = isinstance(element.tag, str)
        if not is_node or element.tag.lower() in DROPPED_TAGS or _is_hidden(element):
            doomed.append(element)
    # Removing a parent first detaches its descendants; removing them again is harmless.
    for element in doomed:
        _drop(element)
    for element in root.iter():
        if isinstance(element.tag, str) and element.get("data-sh-invisible") is not None:
            # visibility:hidden: its own text is not rendered, its children may be.
            element.text = None
            for child in element:
                child.tail = None
    return root
