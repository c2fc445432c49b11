"""extract() with the action cache: compiled once by the model, then read with no model call
(the cache's one path is :class:`~.cached.AsyncCachedCall`).

The first run asks the model for the data and the element each value came from, compiles
per-field reads (:mod:`..extract.compiled`) and stores them with the schema's digest, never a
value. A replay reads the page with them and validates through the same schema: zero model
calls while the page keeps its structure, whatever its values. A field that no longer reads
or validates makes the entry stale: the model extracts again and the entry heals
(``cache_mode="require"``: :class:`~stagehand_py.CacheMissError` naming the field). An
extraction that cannot be compiled is not stored; its outcome says which field and why.

The key is the instruction plus the schema's digest, the variable names, and the page URL
(normalised like act's), or the caller's ``cache_key`` so that one entry serves every page of
one template.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import Page as AsyncPage
from pydantic import ValidationError

from ..._config import Settings
from ..._deadline_clock import Deadline
from ..._errors import ExtractError
from ..._variables import Variables
from ...cache import ActionCache, CachedAction, CacheEntry, CacheKey
from ...cache._key import normalize_instruction, normalize_variable_names
from ...cache._store import CacheStatus
from ...extract._compile import FieldUnreadable
from ...extract._target import ExtractTarget
from ..browser.settle import settle
from ..extract.compiled import (
    ask_sourced,
    compile_reads,
    finish,
    replay_data,
    schema_digest,
)
from ..extract.read import ExtractOutcome, extract
from ..llm.source import ModelSource
from .cached import AsyncCachedCall, Drift, Stale

logger = logging.getLogger("stagehand_py")
TOO_LARGE = "the page is too large to show as numbered elements in one request"
UNSOURCED = "the model named no element for any value; the data was read from the page text instead"
UNFIT = (
    "the answer read from the numbered elements did not fit the schema; the data was read "
    "from the page text instead"
)


@dataclass(frozen=True)
class ExtractReading:
    """What an extract() reads: its schema, selector, chunk size and cache key."""

    schema: Any
    selector: str | None
    chunk_chars: int
    cache_key: str | None

    @property
    def compiles(self) -> bool:
        """Whether it may be compiled into the cache (a schema, the whole page)."""
        return self.schema is not None and self.selector is None

    def cache_for(self, cache: ActionCache | None) -> ActionCache | None:
        """The cache a compiled extract goes through, or None (no schema, a selector, no
        cache)."""
        return cache if self.compiles else None

    def cached_call(
        self,
        page: AsyncPage,
        llm: ModelSource,
        instruction: str,
        variables: Variables,
        settings: Settings,
    ) -> AsyncCachedExtract:
        """The extract as a call through the cache."""
        return AsyncCachedExtract(
            page,
            llm,
            instruction,
            variables,
            settings,
            target=ExtractTarget.from_schema(self.schema),
            schema=self.schema,
            cache_key=self.cache_key,
            chunk_chars=self.chunk_chars,
        )


@dataclass
class AsyncCachedExtract(AsyncCachedCall[ExtractOutcome]):
    """An extract() with a schema through the cache: its entry is the compiled reads."""

    kind = "extract"

    target: ExtractTarget = field(kw_only=True)
    schema: Any = field(kw_only=True)  # as the user gave it (the text path takes it again)
    cache_key: str | None = field(default=None, kw_only=True)
    chunk_chars: int = field(default=12000, kw_only=True)
    # Filled by the caller before run(): its outcome (filled as the work goes) and deadline.
    outcome: ExtractOutcome = field(default_factory=lambda: ExtractOutcome(value=None))
    deadline: Deadline = field(default_factory=lambda: Deadline.after(120.0))

    def key(self, cache: ActionCache) -> CacheKey:
        digest, _ = schema_digest(self.target)
        said = f"{self.instruction} [schema {digest[:12]}]"
        if self.cache_key is None:
            return self.keyed(cache, said)
        return CacheKey(
            instruction=normalize_instruction(said),
            url=f"cache_key:{self.cache_key}",
            variable_names=normalize_variable_names(self.variables.names),
            kind="extract",
        )

    async def replay(self, entry: CacheEntry) -> ExtractOutcome:
        started = time.monotonic()
        compiled = entry.extraction
        digest, _ = schema_digest(self.target)
        if compiled is None or compiled.schema_digest != digest:
            raise Drift("the entry was compiled for another schema")
        await settle(self.page, timeout_ms=self.deadline.cap_ms(self.settings.settle_timeout_ms))
        data = await replay_data(self.page, compiled, self.variables.redact)
        if isinstance(data, FieldUnreadable):
            raise Drift(str(data))
        try:
            value = self.target.finish(data)
        except ValidationError as exc:
            error = exc.errors(include_url=False, include_input=False)[0]
            where = "/" + "/".join(str(part) for part in error["loc"])
            raise Drift(f"field {where}: the value read no longer fits the schema") from None
        self.outcome.value = value
        self.outcome.compiled = compiled
        self.outcome.duration_s = time.monotonic() - started
        return self.outcome

    async def ask(self, stale: Stale | None, *, cached: bool) -> ExtractOutcome:
        started = time.monotonic()
        outcome, redact, url = self.outcome, self.variables.redact, self.page.url
        await settle(self.page, timeout_ms=self.deadline.cap_ms(3000))
        answer = await ask_sourced(
            self.page,
            self._model(),
            self.instruction,
            self.target,
            redact=redact,
            deadline=self.deadline,
            settings=self.settings,
            outcome=outcome,
        )
        try:
            value = None if answer is None else finish(self.target, answer.data, redact(url))
        except ExtractError:
            answer = None  # not sourced: asked again from the page text
            outcome.not_compiled = {"/": UNFIT}
        if answer is not None and not answer.sources:
            answer = None  # a model that does not name elements reads the page text instead
            outcome.not_compiled = {"/": UNSOURCED}
        if answer is None:  # today's text path, in chunks; not compiled
            await self._from_text()
            outcome.not_compiled = outcome.not_compiled or {"/": TOO_LARGE}
        else:
            outcome.value = value
            compiled, why = await compile_reads(self.page, self.target, answer, redact=redact)
            outcome.compiled, outcome.not_compiled = compiled, why
        if outcome.not_compiled:
            logger.info(
                "stagehand_py: extract not compiled, the model runs every time: %s",
                "; ".join(f"{k or '/'}: {v}" for k, v in outcome.not_compiled.items()),
            )
        outcome.duration_s = time.monotonic() - started
        return outcome

    async def _from_text(self) -> None:
        await extract(
            self.page,
            self._model(),
            self.instruction,
            self.schema,
            max_chars_per_chunk=self.chunk_chars,
            max_retries=self.settings.max_reasks,
            redact=self.variables.redact,
            deadline=self.deadline,
            settings=self.settings,
            outcome=self.outcome,
        )

    def succeeded(self, result: ExtractOutcome) -> bool:
        return result.compiled is not None

    async def entry_actions(self, result: ExtractOutcome) -> list[CachedAction]:
        return []  # an extract entry holds reads, not actions (see entry_for)

    async def entry_for(
        self, key: CacheKey, result: ExtractOutcome, stale: Stale | None
    ) -> CacheEntry | None:
        if result.compiled is None:
            return None
        if stale is not None:
            return stale.entry.with_extraction(result.compiled, reason=stale.reason)
        return CacheEntry.create(key, extraction=result.compiled)

    def mark(self, result: ExtractOutcome, status: CacheStatus, stale: Stale | None) -> None:
        result.cache = status
