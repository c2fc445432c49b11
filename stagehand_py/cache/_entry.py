"""What one cache file holds: the ordered actions of one successful act(), plus its key parts.

Files are pretty-printed JSON so a person can read and diff them. Arguments carry variable
placeholders (``<|EMAIL|>``), never values.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timezone

from pydantic import BaseModel, Field, field_validator, model_validator

from ._fingerprint import ElementFingerprint
from ._key import CACHE_FORMAT_VERSION, CacheKey


def _now() -> datetime:
    return datetime.now(timezone.utc)


class CachedAction(BaseModel):
    """One step of a cached act(), replayable without the model."""

    method: str = Field(description="allow-listed Playwright method, e.g. 'fill' or 'click'")
    selectors: list[str] = Field(
        default_factory=list, description="every selector for the element, most exact first"
    )
    frame: list[str] = Field(
        default_factory=list, description="iframe selectors from the top page down; [] = top"
    )
    arguments: list[str] = Field(
        default_factory=list, description="method arguments, with <|NAME|> placeholders"
    )
    description: str = Field(default="", description="the model's text for this step")
    fingerprint: ElementFingerprint | None = Field(
        default=None, description="the element acted on; None for page-level actions"
    )


class CacheEntry(BaseModel):
    """A cache file: format version, readable key parts, timestamps and the actions.

    Make new entries with :meth:`create`; after a heal, :meth:`with_actions` keeps the
    creation time and refreshes ``updated_at``.
    """

    format_version: int = CACHE_FORMAT_VERSION
    key: str = Field(description="sha256 digest of the key parts; also the file name")
    instruction: str
    url: str
    variable_names: list[str] = Field(default_factory=list)
    created_at: datetime = Field(default_factory=_now)
    updated_at: datetime = Field(default_factory=_now)
    actions: list[CachedAction] = Field(default_factory=list)

    @field_validator("created_at", "updated_at")
    @classmethod
    def _aware(cls, stamp: datetime) -> datetime:
        # A hand-edited file may drop the zone; comparing naive and aware times would crash.
        return stamp if stamp.tzinfo is not None else stamp.replace(tzinfo=timezone.utc)

    @model_validator(mode="after")
    def _check_consistent(self) -> CacheEntry:
        if self.format_version != CACHE_FORMAT_VERSION:
            raise ValueError(f"format_version {self.format_version} is not {CACHE_FORMAT_VERSION}")
        if self.cache_key.digest != self.key:
            raise ValueError("key does not match the digest of instruction, url and variables")
        return self

    @classmethod
    def create(
        cls, key: CacheKey, actions: Iterable[CachedAction], *, now: datetime | None = None
    ) -> CacheEntry:
        """A new entry for ``key`` holding ``actions``, timestamped ``now`` (default: now)."""
        stamp = now or _now()
        return cls(
            format_version=key.version,
            key=key.digest,
            instruction=key.instruction,
            url=key.url,
            variable_names=list(key.variable_names),
            created_at=stamp,
            updated_at=stamp,
            actions=list(actions),
        )

    @property
    def cache_key(self) -> CacheKey:
        """The :class:`CacheKey` this entry is stored under."""
        return CacheKey(
            instruction=self.instruction,
            url=self.url,
            variable_names=tuple(self.variable_names),
            version=self.format_version,
        )

    def with_actions(
        self, actions: Iterable[CachedAction], *, now: datetime | None = None
    ) -> CacheEntry:
        """A copy with new actions (e.g. after self-healing) and a fresh ``updated_at``."""
        return self.model_copy(update={"actions": list(actions), "updated_at": now or _now()})

    def to_json(self) -> str:
        """The file's text: pretty-printed JSON, non-ASCII kept readable, final newline."""
        return self.model_dump_json(indent=2) + "\n"


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def format_entry_summary(entry: CacheEntry) -> str:
    """One line for ``list``: short digest, updated time, action count, instruction, url."""
    updated = entry.updated_at.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%SZ")
    count = len(entry.actions)
    actions = f"{count} action{'' if count == 1 else 's'}"
    instruction = _clip(entry.instruction, 60)
    return f'{entry.key[:12]}  {updated}  {actions:>10}  "{instruction}"  {_clip(entry.url, 80)}'
