"""What one cache file holds: the ordered actions of one successful act() (or the elements one
observe() found, or the compiled assertions of one check() that held), plus its key parts and
the version it replaced.

Files are pretty-printed JSON so a person can read and diff them. Arguments carry variable
placeholders (``<|EMAIL|>``), never values.

A cache directory is input like any other: it may be hand-edited, planted or corrupted. Every
entry is validated when it is loaded (:class:`CachedAction`'s rules below); one that breaks a
rule is unusable, counted as a miss with a warning, and never replayed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from ..check._assertions import MAX_ASSERTIONS, CheckAssertion
from ..codegen import user_facing_call
from ..prompts.act import ALLOWED_METHODS, SCROLL_DIRECTIONS
from ._extraction import CompiledExtraction
from ._fingerprint import ElementFingerprint
from ._key import CACHE_FORMAT_VERSION, CacheKey, EntryKind

MAX_ACTIONS = 200
"""More steps than any act() takes; a longer list is not an entry we wrote."""
MAX_SELECTORS = 20
MAX_FRAMES = 10
MAX_TEXT_CHARS = 10_000
"""Longest selector, argument or description kept in an entry."""

# Methods whose arguments are text typed or chosen in the page, or files to upload: the only
# ones a variable may go into. A placeholder anywhere else (a key to press, a scroll
# direction) is refused.
PLACEHOLDER_METHODS = frozenset({"fill", "type", "select_option", "set_input_files"})
# Methods whose every argument must be a placeholder: a file path comes only from a variable
# (a planted entry must not be able to upload a file of its choosing).
ONLY_PLACEHOLDER_METHODS = frozenset({"set_input_files"})
_PLACEHOLDER = re.compile(r"<\|[A-Za-z_][A-Za-z0-9_]*\|>|%[A-Za-z_][A-Za-z0-9_]*%")


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _zoned(stamp: datetime) -> datetime:
    return stamp if stamp.tzinfo is not None else stamp.replace(tzinfo=timezone.utc)


# A time read from a file: a hand-edited file may drop the zone, and comparing naive and aware
# times would crash, so a naive one is taken as UTC.
Stamp = Annotated[datetime, AfterValidator(_zoned)]


def has_placeholder(text: str) -> bool:
    """True if ``text`` holds a variable placeholder (``<|NAME|>`` or ``%name%``)."""
    return bool(_PLACEHOLDER.search(text))


class CachedAction(BaseModel):
    """One step of a cached act(), replayable without the model.

    Validated on load: the method is on act()'s allow-list with an argument count it accepts;
    placeholders appear only in the arguments of ``fill``, ``type``, ``select_option`` and
    ``set_input_files`` (whose arguments must all be placeholders: files come from variables
    only); a step that substitutes a variable carries the fingerprint of its element (the
    replay types a value only into an element that still matches it); ``scroll`` takes a
    known direction; a user-facing selector (what generated code uses, never the replay) is
    one ``get_by_*`` locator with no placeholder. Entries written without one still load.
    """

    model_config = ConfigDict(extra="forbid")

    method: str = Field(description="allow-listed Playwright method, e.g. 'fill' or 'click'")
    selectors: list[str] = Field(
        default_factory=list,
        max_length=MAX_SELECTORS,
        description="every selector for the element, most exact first",
    )
    frame: list[str] = Field(
        default_factory=list,
        max_length=MAX_FRAMES,
        description="iframe selectors from the top page down; [] = top",
    )
    arguments: list[str] = Field(
        default_factory=list, description="method arguments, with <|NAME|> placeholders"
    )
    description: str = Field(
        default="", max_length=MAX_TEXT_CHARS, description="the model's text for this step"
    )
    fingerprint: ElementFingerprint | None = Field(
        default=None, description="the element acted on; None for page-level actions"
    )
    user_facing_selector: str | None = Field(
        default=None,
        max_length=MAX_TEXT_CHARS,
        description="the get_by_* locator generated code uses (found unique when recorded)",
    )

    @field_validator("selectors", "frame", "arguments")
    @classmethod
    def _bounded(cls, texts: list[str]) -> list[str]:
        if any(len(text) > MAX_TEXT_CHARS for text in texts):
            raise ValueError(f"an entry longer than {MAX_TEXT_CHARS} characters")
        return texts

    @model_validator(mode="after")
    def _replayable(self) -> CachedAction:
        limits = ALLOWED_METHODS.get(self.method)
        if limits is None:
            raise ValueError(f"method {self.method!r} is not on act()'s allow-list")
        low, high = limits
        if not low <= len(self.arguments) <= high:
            wanted = str(low) if low == high else f"{low} to {high}"
            raise ValueError(
                f"{self.method} takes {wanted} argument(s), the entry gives {len(self.arguments)}"
            )
        if not any(selector.strip() for selector in self.selectors):
            raise ValueError(f"the {self.method} step has no selector")
        with_placeholder = [a for a in self.arguments if has_placeholder(a)]
        if with_placeholder and self.method not in PLACEHOLDER_METHODS:
            raise ValueError(f"{self.method} cannot take a variable placeholder")
        if self.method in ONLY_PLACEHOLDER_METHODS and not all(
            _PLACEHOLDER.fullmatch(a.strip()) for a in self.arguments
        ):
            raise ValueError(
                f"{self.method} takes variable placeholders only (a file path is never stored)"
            )
        if with_placeholder and self.fingerprint is None:
            raise ValueError(
                f"the {self.method} step types a variable but has no element fingerprint"
            )
        if (
            self.user_facing_selector is not None
            and user_facing_call(self.user_facing_selector) is None
        ):
            raise ValueError("user_facing_selector is not one get_by_* locator")
        if self.method == "scroll" and self.arguments[0] not in SCROLL_DIRECTIONS:
            raise ValueError(f"scroll direction {self.arguments[0]!r} is not one of ours")
        return self

    @property
    def uses_variables(self) -> bool:
        return any(has_placeholder(a) for a in self.arguments)


MAX_ITEMS = 50
"""More checklist items than a workflow entry holds."""


class CachedItem(BaseModel):
    """One checklist item of a cached workflow(): its text and the element actions that did it
    (at least one: an item done without any would replay as done without a look)."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(max_length=MAX_TEXT_CHARS)
    find_page: bool = False
    actions: list[CachedAction] = Field(min_length=1, max_length=MAX_ACTIONS)


class PreviousVersion(BaseModel):
    """What an entry held before its last heal (one version back, for ``cache show --diff``)."""

    model_config = ConfigDict(extra="forbid")

    updated_at: Stamp
    reason: str = Field(default="", max_length=MAX_TEXT_CHARS, description="why it was healed")
    actions: list[CachedAction] = Field(default_factory=list, max_length=MAX_ACTIONS)
    assertions: list[CheckAssertion] | None = Field(default=None, max_length=MAX_ASSERTIONS)
    uncompiled: str | None = Field(default=None, max_length=MAX_TEXT_CHARS)
    items: list[CachedItem] | None = Field(default=None, max_length=MAX_ITEMS)
    extraction: CompiledExtraction | None = None


class CacheEntry(BaseModel):
    """A cache file: format version, readable key parts, timestamps and the actions.

    Make new entries with :meth:`create`; after a heal, :meth:`with_actions` keeps the
    creation time, refreshes ``updated_at`` and keeps the replaced actions in ``previous``.

    A check's entry (``kind="check"``) holds no actions: either its compiled ``assertions``,
    or, for a statement that could not be compiled, ``uncompiled``: why (so that
    ``cache_mode="require"`` can say it, and the model judges the statement on every run).
    """

    model_config = ConfigDict(extra="forbid")

    format_version: int = CACHE_FORMAT_VERSION
    key: str = Field(description="sha256 digest of the key parts; also the file name")
    kind: EntryKind = "act"
    instruction: str = Field(max_length=MAX_TEXT_CHARS)
    url: str = Field(max_length=MAX_TEXT_CHARS)
    variable_names: list[str] = Field(default_factory=list, max_length=100)
    created_at: Stamp = Field(default_factory=_now)
    updated_at: Stamp = Field(default_factory=_now)
    actions: list[CachedAction] = Field(default_factory=list, max_length=MAX_ACTIONS)
    assertions: list[CheckAssertion] | None = Field(default=None, max_length=MAX_ASSERTIONS)
    uncompiled: str | None = Field(default=None, max_length=MAX_TEXT_CHARS)
    items: list[CachedItem] | None = Field(default=None, max_length=MAX_ITEMS)
    extraction: CompiledExtraction | None = Field(
        default=None, description="an extract() entry's compiled reads (kind 'extract' only)"
    )
    previous: PreviousVersion | None = None

    @model_validator(mode="after")
    def _check_consistent(self) -> CacheEntry:
        if self.format_version != CACHE_FORMAT_VERSION:
            raise ValueError(f"format_version {self.format_version} is not {CACHE_FORMAT_VERSION}")
        if self.cache_key.digest != self.key:
            raise ValueError("key does not match the digest of instruction, url and variables")
        if (self.kind == "extract") != (self.extraction is not None):
            raise ValueError("an extract entry, and only one, holds compiled reads")
        if self.kind == "extract":
            if self.actions or self.assertions is not None or self.uncompiled is not None:
                raise ValueError("an extract entry holds compiled reads, no actions or assertions")
        elif self.kind == "check":
            if self.actions:
                raise ValueError("a check entry holds assertions, not actions")
            if bool(self.assertions) == (self.uncompiled is not None):
                raise ValueError("a check entry holds either assertions or why it has none")
        elif self.kind == "workflow":
            if self.actions or not self.items:
                raise ValueError("a workflow entry holds checklist items, each with its actions")
        elif self.items is not None:
            raise ValueError(f"an {self.kind} entry holds actions, not checklist items")
        elif not self.actions:
            raise ValueError("the entry has no actions")
        elif self.assertions is not None or self.uncompiled is not None:
            raise ValueError(f"an {self.kind} entry holds actions, not assertions")
        return self

    @classmethod
    def create(
        cls,
        key: CacheKey,
        actions: Iterable[CachedAction] = (),
        *,
        assertions: Iterable[CheckAssertion] | None = None,
        uncompiled: str | None = None,
        items: Iterable[CachedItem] | None = None,
        extraction: CompiledExtraction | None = None,
        now: datetime | None = None,
    ) -> CacheEntry:
        """A new entry for ``key`` holding ``actions`` (a check's: its ``assertions``, or why
        it has none; a workflow's: its ``items``; an extract's: its ``extraction``),
        timestamped ``now`` (default: now)."""
        stamp = now or _now()
        return cls(
            format_version=key.version,
            key=key.digest,
            kind=key.kind,
            instruction=key.instruction,
            url=key.url,
            variable_names=list(key.variable_names),
            created_at=stamp,
            updated_at=stamp,
            actions=list(actions),
            assertions=None if assertions is None else list(assertions),
            uncompiled=uncompiled,
            items=None if items is None else list(items),
            extraction=extraction,
        )

    @property
    def cache_key(self) -> CacheKey:
        """The :class:`CacheKey` this entry is stored under."""
        return CacheKey(
            instruction=self.instruction,
            url=self.url,
            variable_names=tuple(self.variable_names),
            version=self.format_version,
            kind=self.kind,
        )

    def with_actions(
        self, actions: Iterable[CachedAction], *, reason: str = "", now: datetime | None = None
    ) -> CacheEntry:
        """A copy with new actions (after self-healing), a fresh ``updated_at``, and the
        replaced actions kept as ``previous`` (one version back; older ones are dropped)."""
        previous = PreviousVersion(updated_at=self.updated_at, reason=reason, actions=self.actions)
        return self.model_copy(
            update={"actions": list(actions), "updated_at": now or _now(), "previous": previous}
        )

    def with_items(
        self, items: Iterable[CachedItem], *, reason: str = "", now: datetime | None = None
    ) -> CacheEntry:
        """A workflow entry healed: new ``items``, a fresh ``updated_at``, and the replaced
        items kept as ``previous`` (one version back)."""
        previous = PreviousVersion(updated_at=self.updated_at, reason=reason, items=self.items)
        return self.model_copy(
            update={"items": list(items), "updated_at": now or _now(), "previous": previous}
        )

    def with_assertions(
        self,
        assertions: Iterable[CheckAssertion] | None,
        *,
        uncompiled: str | None = None,
        reason: str = "",
        now: datetime | None = None,
    ) -> CacheEntry:
        """A check entry healed: new ``assertions`` (or why there are none), a fresh
        ``updated_at``, and what it held before kept as ``previous`` (one version back)."""
        previous = PreviousVersion(
            updated_at=self.updated_at,
            reason=reason,
            assertions=self.assertions,
            uncompiled=self.uncompiled,
        )
        contents = None if assertions is None else list(assertions)
        return self.model_validate(
            {
                **self.model_dump(),
                "assertions": contents,
                "uncompiled": uncompiled,
                "updated_at": now or _now(),
                "previous": previous,
            }
        )

    def with_extraction(
        self, extraction: CompiledExtraction, *, reason: str = "", now: datetime | None = None
    ) -> CacheEntry:
        """A copy with a recompiled extraction (after healing), keeping the replaced one as
        ``previous`` like :meth:`with_actions`."""
        previous = PreviousVersion(
            updated_at=self.updated_at, reason=reason, extraction=self.extraction
        )
        return self.model_copy(
            update={"extraction": extraction, "updated_at": now or _now(), "previous": previous}
        )

    def to_json(self) -> str:
        """The file's text: pretty-printed JSON, non-ASCII kept readable, final newline."""
        return self.model_dump_json(indent=2, exclude_none=True) + "\n"


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def format_entry_summary(entry: CacheEntry) -> str:
    """One line for ``list``: short digest, updated time, action count, instruction, url."""
    updated = entry.updated_at.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%SZ")
    count = len(entry.assertions or entry.actions or entry.items or [])
    noun = {"observe": "element", "check": "assertion", "workflow": "item"}.get(
        entry.kind, "action"
    )
    if entry.extraction is not None:
        count, noun = entry.extraction.field_count, "field"
    actions = f"{count} {noun}{'' if count == 1 else 's'}"
    if entry.uncompiled is not None:
        actions = "model judges"
    instruction = _clip(entry.instruction, 60)
    if entry.kind != "act":
        instruction = f"{entry.kind}: {instruction}"
    return f'{entry.key[:12]}  {updated}  {actions:>11}  "{instruction}"  {_clip(entry.url, 80)}'
