"""Element fingerprints: enough of an element to tell, on replay, that it is still the one meant.

A cached selector can resolve to a different element after the page changed (a row was
inserted, a button was replaced). Before acting on a cached step, the replayer compares the
fingerprint of the element it found with the stored one through :meth:`ElementFingerprint.matches`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from ..dom._js import load_js

NAME_MAX_CHARS = 100
"""Accessible names are trimmed to this many characters."""
_ATTRIBUTE_MAX_CHARS = 200

KEY_ATTRIBUTES: tuple[str, ...] = (
    "id",
    "name",
    "type",
    "role",
    "placeholder",
    "aria-label",
    "title",
    "alt",
    "href",
    "data-testid",
    "data-test-id",
    "data-test",
    "data-qa",
    "data-cy",
)
"""Attributes a fingerprint keeps. ``value`` is never kept: it may hold what the user typed."""

STRONG_ATTRIBUTES: tuple[str, ...] = (
    "id",
    "name",
    "data-testid",
    "data-test-id",
    "data-test",
    "data-qa",
    "data-cy",
    "aria-label",
    "placeholder",
)
"""Attributes that identify an element; one equal pair is enough for a match."""

_TEXTUAL_ATTRIBUTES = frozenset({"aria-label", "placeholder"})  # compared loosely
# Framework-made ids change between renders (React ":r3:", "ember123", "mui-4711", uuids) and
# say nothing about identity, so they are not compared. Only known shapes: "product-123" is
# data, and two different products must not match.
_GENERATED_ID = re.compile(
    r"[:«»]|[0-9a-f]{8}-[0-9a-f]{4}-|^(ember|mui-|headlessui-|radix-|react-aria|downshift-|rc-"
    r"|el-id-|ext-gen|yui_|gwt-uid-|j_idt)",
    re.IGNORECASE,
)
_ID_ATTRIBUTES = frozenset({"id", "name"})
_PLACEHOLDER = re.compile(r"<\|[A-Za-z_][A-Za-z0-9_]*\|>")
# Their text is what the user typed or chose (a select's text is all its options).
_USER_TEXT_TAGS = frozenset({"input", "textarea", "select"})

_INPUT_ROLES = {
    "checkbox": "checkbox",
    "radio": "radio",
    "button": "button",
    "submit": "button",
    "reset": "button",
    "image": "button",
    "range": "slider",
    "number": "spinbutton",
    "search": "searchbox",
    "hidden": "",
    "file": "",
    "color": "",
}
_TAG_ROLES = {
    "button": "button",
    "textarea": "textbox",
    "option": "option",
    "summary": "button",
    "li": "listitem",
    "ul": "list",
    "ol": "list",
    "nav": "navigation",
    "main": "main",
    "dialog": "dialog",
    "table": "table",
    "tr": "row",
    "td": "cell",
    "th": "columnheader",
    "h1": "heading",
    "h2": "heading",
    "h3": "heading",
    "h4": "heading",
    "h5": "heading",
    "h6": "heading",
    "progress": "progressbar",
}


def _squash(text: str) -> str:
    return " ".join(text.split())


def _clip_words(text: str, limit: int) -> str:
    """``text`` squashed and cut to at most ``limit`` characters, never inside a word.

    A text the serializer already capped ends in "…" after a possibly cut word; that word is
    dropped too, so a capped text is always a whole-word prefix of the full one.
    """
    text = _squash(text)
    if text.endswith("…"):
        text = text[:-1].rsplit(" ", 1)[0] if " " in text else ""
    elif len(text) > limit:
        cut = text[: limit + 1]
        text = cut.rsplit(" ", 1)[0] if " " in cut else text[:limit]
    return text[:limit].rstrip()


def _words(text: str) -> list[str]:
    """Case- and width-insensitive words of ``text`` (punctuation dropped)."""
    return re.findall(r"\w+", unicodedata.normalize("NFKC", text).casefold())


def _contains_words(longer: list[str], shorter: list[str]) -> bool:
    """True if ``shorter`` occurs in ``longer`` as a run of whole words."""
    n = len(shorter)
    return any(longer[i : i + n] == shorter for i in range(len(longer) - n + 1))


def _looks_generated(one: ElementFingerprint, two: ElementFingerprint, key: str) -> bool:
    """True if either side's ``key`` looks made by a framework rather than by a person."""
    return any(_GENERATED_ID.search(fp.attributes[key]) for fp in (one, two))


def implicit_role(tag: str, attributes: Mapping[str, str]) -> str:
    """The ARIA role an element has: its ``role`` attribute, else the one its tag implies."""
    explicit = attributes.get("role", "").split()
    if explicit:
        return explicit[0].lower()
    tag = tag.lower()
    if tag in ("a", "area"):
        return "link" if "href" in attributes else ""
    if tag == "input":
        input_type = attributes.get("type", "text").strip().lower() or "text"
        if input_type in _INPUT_ROLES:
            return _INPUT_ROLES[input_type]
        return "combobox" if "list" in attributes else "textbox"
    if tag == "select":
        multiple = "multiple" in attributes
        size = attributes.get("size", "").strip()
        return "listbox" if multiple or (size.isdigit() and int(size) > 1) else "combobox"
    if tag == "img":
        return "img" if attributes.get("alt", "x") else "presentation"
    return _TAG_ROLES.get(tag, "")


class ElementFingerprint(BaseModel):
    """Tag, role, accessible name and key attributes of one element.

    Build one with :meth:`from_element_fields` from what the DOM serializer reports.
    """

    model_config = ConfigDict(frozen=True)

    tag: str
    role: str = ""
    name: str = Field(default="", description="accessible name or text, trimmed")
    attributes: dict[str, str] = Field(default_factory=dict)

    @classmethod
    def from_element_fields(
        cls,
        tag: str,
        attributes: Mapping[str, str | None] | None = None,
        text: str | None = None,
    ) -> ElementFingerprint:
        """Build a fingerprint from an element's tag, attributes and visible text.

        Only :data:`KEY_ATTRIBUTES` are kept (never ``value``). The name is the
        ``aria-label``, else the text, else ``alt``/``title``/``placeholder``. The text of
        ``input``, ``textarea``, ``select`` and ``contenteditable`` elements is ignored: it is
        what the user typed or chose, possibly a secret.
        """
        attrs = {str(k).lower(): "" if v is None else str(v) for k, v in (attributes or {}).items()}
        tag = tag.strip().lower()
        editable = attrs.get("contenteditable", "false").strip().lower() != "false"
        if tag in _USER_TEXT_TAGS or editable:
            text = None
        kept = {
            key: attrs[key].strip()[:_ATTRIBUTE_MAX_CHARS] for key in KEY_ATTRIBUTES if key in attrs
        }
        candidates = (attrs.get("aria-label"), text, attrs.get("alt"), attrs.get("title"))
        name = next((c for c in candidates if c and c.strip()), attrs.get("placeholder", ""))
        # The role comes from the kept attributes only: the serializer reports just those, and
        # a live element must get the same role as its serialized self.
        return cls(
            tag=tag,
            role=implicit_role(tag, kept),
            name=_clip_words(name, NAME_MAX_CHARS),
            attributes=kept,
        )

    def redacted(self, redact: Callable[[str], str]) -> ElementFingerprint:
        """A copy whose name and attribute values went through ``redact``: page text that
        shows a variable's value (a button "Ship to Al") is stored as its placeholder, and a
        live element is compared after the same redaction (see :attr:`has_placeholder`)."""
        attributes = {key: redact(value) for key, value in self.attributes.items()}
        return self.model_copy(update={"name": redact(self.name), "attributes": attributes})

    @property
    def has_placeholder(self) -> bool:
        """True when a variable's value was redacted out of this fingerprint."""
        texts = (self.name, *self.attributes.values())
        return any(_PLACEHOLDER.search(text) for text in texts)

    @property
    def identifiable(self) -> bool:
        """False when there is nothing to compare (no attributes, no name): such an element
        (an icon drawn by CSS, say) can be neither confirmed nor told apart by fingerprint."""
        return bool(self.attributes or self.name)

    def matches(self, other: ElementFingerprint) -> bool:
        """True if ``other`` is most likely the same element, allowing small text changes.

        Tag and role must be equal. Then, if the two share any strong identity attribute
        (:data:`STRONG_ATTRIBUTES`), one of those must be equal (``aria-label`` and
        ``placeholder`` compared ignoring case and punctuation; ids and names that look
        generated by a framework, like ``:r3:`` or ``ember123``, are not compared). If they
        share none, their names must be equal or one must contain the other as whole words
        ("Sign in" matches "Sign in now" but "OK" does not match "Book now").
        """
        if self.tag.lower() != other.tag.lower() or self.role.lower() != other.role.lower():
            return False
        shared = [
            key
            for key in STRONG_ATTRIBUTES
            if self.attributes.get(key)
            and other.attributes.get(key)
            and not (key in _ID_ATTRIBUTES and _looks_generated(self, other, key))
        ]
        if shared:
            return any(self._same_attribute(other, key) for key in shared)
        mine, theirs = _words(self.name), _words(other.name)
        if mine and theirs:
            shorter, longer = sorted((mine, theirs), key=len)
            return _contains_words(longer, shorter)
        if self.name or other.name:
            return _squash(self.name).casefold() == _squash(other.name).casefold()
        # No identity and no text on either side: all shared remaining attributes must agree.
        common = [
            k
            for k in self.attributes
            if k in other.attributes
            and not (k in _ID_ATTRIBUTES and _looks_generated(self, other, k))
        ]
        return bool(common) and all(self.attributes[k] == other.attributes[k] for k in common)

    def _same_attribute(self, other: ElementFingerprint, key: str) -> bool:
        mine, theirs = self.attributes[key], other.attributes[key]
        if key in _TEXTUAL_ATTRIBUTES:
            mine_words, their_words = _words(mine), _words(theirs)
            if mine_words or their_words:
                return mine_words == their_words
            return _squash(mine).casefold() == _squash(theirs).casefold()
        return mine == theirs


class ElementFields(Protocol):
    """What the DOM serializer (``stagehand_py.Element``) and ``dom/fingerprint/`` report."""

    @property
    def tag(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def attributes(self) -> Mapping[str, str]: ...
    @property
    def role(self) -> str: ...
    @property
    def name(self) -> str: ...


def fingerprint_from_element(element: ElementFields) -> ElementFingerprint:
    """The fingerprint of a serialized (or live, via ``dom/fingerprint/``) element.

    Role and name are recomputed here from tag, attributes and text rather than taken from
    the element: one recipe for both sides means a stored fingerprint and the live one of the
    same element can never disagree because two scripts computed them differently.
    """
    return ElementFingerprint.from_element_fields(element.tag, element.attributes, element.text)


def load_fingerprint_js() -> str:
    """The source of ``dom/fingerprint/``: a function ``(el) => {tag, text, attributes, ...}``
    (its file says the other ways to call it)."""
    return load_js("fingerprint")
