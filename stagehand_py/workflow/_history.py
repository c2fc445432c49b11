"""Per-site workflow history: the flows that worked and the failures, as JSON files.

One file per site (registrable domain, see :mod:`._domains`) under the history directory
(``history_dir=``, ``$STAGEHAND_PY_HISTORY_DIR`` or pytest's ``--stagehand-history-dir``),
written atomically like the action cache (:func:`~stagehand_py.cache._files.write_atomically`).

A flow is one checklist item and the element actions that did it, in the action cache's own
form (selectors, frame, arguments with ``<|NAME|>`` placeholders, fingerprint), so a later
workflow replays it through the cache's replay with no model call. A failure is the item, an
error code, the page URL and the message. The checklist a request became is kept too, so a
second run of the same request on the same site needs no checklist request either. URLs are
stored without query string or fragment (they often carry what was typed).

Bounded: opening the history deletes entries older than ``retention_days`` (90), and a site
keeps at most ``MAX_FLOWS`` flows (one per item and starting page, the newest),
``MAX_FAILURES`` failures (the newest) and ``MAX_FILE_BYTES`` bytes (the oldest entries go
first). Files are read as the action cache reads its entries
(:func:`~stagehand_py.cache._files.read_bounded`): a regular file of at most ``MAX_FILE_BYTES``,
opened without blocking; anything else in the folder (a FIFO, a device, a huge or sparse file,
one that cannot be read or parsed) is skipped with a :class:`HistoryWarning`.

No variable value is written: every text is redacted by the caller, and a write whose JSON
still holds a value in any form the stores' scanner finds
(:class:`~stagehand_py.cache._secrets.ValueScanner`: any case, whitespace collapsed,
percent-encoded, an e-mail's local part...) is refused.
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, ValidationError

from .._errors import ConfigurationError
from ..cache._entry import CachedAction, Stamp
from ..cache._files import read_or_warn, unlink, write_atomically
from ..cache._key import normalize_instruction
from ..cache._secrets import find_value
from ..cache._store import CacheWarning
from ._domains import file_name_for, registrable_domain

logger = logging.getLogger("stagehand_py")

HISTORY_DIR_ENV = "STAGEHAND_PY_HISTORY_DIR"
HISTORY_FORMAT_VERSION = 1
RETENTION_DAYS = 90
MAX_FLOWS = 100
MAX_FAILURES = 200
MAX_CHECKLISTS = 50
MAX_FILE_BYTES = 8 << 20
"""Largest site file read or written (8 MiB; 100 long flows and 200 failures fit in 3)."""


class HistoryWarning(CacheWarning):
    """A history file could not be used (not a regular file, too large, corrupt, another
    format); that site's history counts as empty."""


def _now() -> datetime:
    return datetime.now(timezone.utc)


def page_url(url: str) -> str:
    """``url`` without query string and fragment, as the history stores it."""
    return url.split("#", 1)[0].split("?", 1)[0]


def _key(text: str) -> str:
    return normalize_instruction(text).casefold()


def start_path(url: str) -> str:
    """Where an item starts, as flows are matched: the URL's path (no host, port or query)."""
    try:
        return urlsplit(url).path or "/"
    except ValueError:
        return url.split("?", 1)[0]


class FlowRecord(BaseModel):
    """A checklist item that succeeded, and the actions that did it."""

    item: str
    start_path: str = Field(description="path of the page the item started on")
    url: str = Field(description="the page the item started on (redacted)")
    actions: list[CachedAction] = Field(
        default_factory=list, description="the element actions, replayable by the cache"
    )
    steps: list[str] = Field(default_factory=list, description="every action, as a line")
    replayable: bool = Field(
        default=True, description="False when the item needed more than element actions"
    )
    recorded_at: Stamp = Field(default_factory=_now)

    @property
    def key(self) -> tuple[str, str]:
        return _key(self.item), self.start_path


class FailureRecord(BaseModel):
    """A checklist item that could not be done."""

    item: str
    code: str = Field(description="an ActErrorCode, e.g. MAX_STEPS or TIMEOUT")
    url: str = Field(description="the page it ended on (redacted)")
    message: str
    recorded_at: Stamp = Field(default_factory=_now)


class ChecklistRecord(BaseModel):
    """The checklist a request became on this site (stored when every item was done)."""

    request: str
    checklist: list[str]
    find_page: list[int] = Field(default_factory=list)
    recorded_at: Stamp = Field(default_factory=_now)


class SiteHistory(BaseModel):
    """One site's file."""

    format_version: int = HISTORY_FORMAT_VERSION
    domain: str
    checklists: list[ChecklistRecord] = Field(default_factory=list)
    flows: list[FlowRecord] = Field(default_factory=list)
    failures: list[FailureRecord] = Field(default_factory=list)

    def to_json(self) -> str:
        return self.model_dump_json(indent=2) + "\n"


R = TypeVar("R", bound=BaseModel)


def _add(records: list[R], record: R, cap: int, *, replaces: Callable[[R], bool]) -> None:
    """Add ``record`` to ``records`` in place, dropping those it ``replaces`` and the oldest
    past ``cap``."""
    records[:] = [older for older in records if not replaces(older)] + [record]
    del records[:-cap]


def holds_secret(record: BaseModel, secret_values: Iterable[str]) -> bool:
    """True when a value, in any form the stores' scanner finds, occurs in ``record``."""
    data = record.model_dump(mode="json", exclude={"recorded_at"})
    return find_value(data, secret_values) is not None


class WorkflowHistory:
    """The history stored in ``directory``; opening it deletes entries past retention.

    ``now`` is the clock entries are stamped and aged with (tests pass their own).
    """

    def __init__(
        self,
        directory: str | os.PathLike[str],
        *,
        now: Callable[[], datetime] = _now,
        retention_days: float = RETENTION_DAYS,
    ) -> None:
        self.directory = Path(directory).expanduser()
        if self.directory.exists() and not self.directory.is_dir():
            raise ConfigurationError(
                f"The history directory {str(self.directory)!r} is a file. Point history_dir "
                f"(or {HISTORY_DIR_ENV}) at a directory; it is created if missing."
            )
        self.now = now
        self.retention = timedelta(days=retention_days)
        self.purged = self.purge()

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] | None = None, **options: Any
    ) -> WorkflowHistory | None:
        """The history in ``$STAGEHAND_PY_HISTORY_DIR``, or None when that is unset."""
        directory = (os.environ if environ is None else environ).get(HISTORY_DIR_ENV, "").strip()
        return cls(directory, **options) if directory else None

    def __repr__(self) -> str:
        return f"WorkflowHistory({str(self.directory)!r})"

    # ---------- reading ----------

    def path_for(self, domain: str) -> Path:
        return self.directory / file_name_for(domain)

    def site(self, domain: str) -> SiteHistory:
        """``domain``'s history (empty when there is none or its file is unusable)."""
        return self._load(self.path_for(domain)) or SiteHistory(domain=domain)

    def domains(self) -> list[str]:
        """Every site with a history file, sorted."""
        found = [self.site_of_file(path) for path in self._paths()]
        return sorted(d for d in found if d)

    def site_of_file(self, path: Path) -> str:
        site = self._load(path)
        return site.domain if site is not None else ""

    def _paths(self) -> list[Path]:
        if not self.directory.is_dir():
            return []
        return sorted(self.directory.glob("*.json"))

    def _load(self, path: Path) -> SiteHistory | None:
        """The history in ``path``: None when there is none, or it is unusable (warned)."""
        raw = read_or_warn(path, MAX_FILE_BYTES, self._warn)
        if raw is None:
            return None
        try:
            site = _parsed(raw)
        except _NotHistory as exc:
            self._warn(path, str(exc))
            return None
        return site

    def _warn(self, path: Path, reason: str) -> None:
        message = f"Ignoring the history file {path}: {reason}. That site's history is empty."
        logger.warning("history: %s", message)
        warnings.warn(message, HistoryWarning, stacklevel=4)

    def find_flow(self, url: str, item: str) -> FlowRecord | None:
        """The stored flow of ``item`` starting on ``url``'s page, if any."""
        wanted = (_key(item), start_path(url))
        for flow in self.site(registrable_domain(url)).flows:
            if flow.key == wanted:
                return flow
        return None

    def find_checklist(self, url: str, request: str) -> ChecklistRecord | None:
        """The checklist ``request`` became on ``url``'s site before, if any."""
        wanted = _key(request)
        for stored in self.site(registrable_domain(url)).checklists:
            if _key(stored.request) == wanted:
                return stored
        return None

    # ---------- writing ----------

    def record_flow(self, url: str, flow: FlowRecord, *, secret_values: Iterable[str]) -> bool:
        """Store ``flow`` (replacing the flow of the same item and page); False when refused."""
        if self._refused(flow, "flow of an item", secret_values):
            return False
        site = self.site(registrable_domain(url))
        _add(site.flows, flow, MAX_FLOWS, replaces=lambda older: older.key == flow.key)
        return self._write(site)

    def record_checklist(
        self, url: str, stored: ChecklistRecord, *, secret_values: Iterable[str]
    ) -> bool:
        """Store the checklist of a request (replacing an older one); False when refused."""
        if self._refused(stored, "checklist", secret_values):
            return False
        site = self.site(registrable_domain(url))
        request = _key(stored.request)
        _add(
            site.checklists,
            stored,
            MAX_CHECKLISTS,
            replaces=lambda older: _key(older.request) == request,
        )
        return self._write(site)

    def record_failure(
        self, url: str, failure: FailureRecord, *, secret_values: Iterable[str]
    ) -> bool:
        """Append ``failure`` to its site's history; False when refused."""
        if self._refused(failure, "failure of an item", secret_values):
            return False
        site = self.site(registrable_domain(url))
        _add(site.failures, failure, MAX_FAILURES, replaces=lambda older: False)
        return self._write(site)

    @staticmethod
    def _refused(record: BaseModel, what: str, secret_values: Iterable[str]) -> bool:
        """True (and a warning) when ``record`` holds a variable's value: it is not stored."""
        if not holds_secret(record, secret_values):
            return False
        logger.warning("history: %s not stored: it holds a variable's value", what)
        return True

    def remove_flow(self, url: str, item: str) -> bool:
        """Forget the flow of ``item`` on ``url``'s page (it no longer replays)."""
        site = self.site(registrable_domain(url))
        wanted = (_key(item), start_path(url))
        kept = [f for f in site.flows if f.key != wanted]
        if len(kept) == len(site.flows):
            return False
        site.flows = kept
        return self._write(site)

    @staticmethod
    def domain_of(site: str) -> str:
        """The site a domain, host or URL given by a person names (``www.shop.example`` ->
        ``shop.example``)."""
        return registrable_domain(site) or site.strip().lower()

    def clear(self, domain: str | None = None) -> int:
        """Delete one site's history (a domain, host or URL) or all of it; files removed."""
        if domain is not None:
            return int(unlink(self.path_for(self.domain_of(domain))))
        if not self.directory.is_dir():
            return 0
        return sum(1 for path in self.directory.glob("*.json") if unlink(path))

    def purge(self) -> int:
        """Delete entries older than the retention; how many went (files rewritten once)."""
        cutoff = self.now() - self.retention
        removed = 0
        for path in self._paths():
            site = self._load(path)
            if site is None or path != self.path_for(site.domain):
                continue
            checklists = [c for c in site.checklists if c.recorded_at >= cutoff]
            flows = [f for f in site.flows if f.recorded_at >= cutoff]
            failures = [f for f in site.failures if f.recorded_at >= cutoff]
            kept = len(checklists) + len(flows) + len(failures)
            gone = len(site.checklists) + len(site.flows) + len(site.failures) - kept
            if not gone:
                continue
            removed += gone
            site.checklists, site.flows, site.failures = checklists, flows, failures
            if kept:
                self._write(site)
            else:
                unlink(path)
        return removed

    def _write(self, site: SiteHistory) -> bool:
        path = self.path_for(site.domain)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            write_atomically(path, _fitted(site))
        except OSError as exc:
            # A history that cannot be written must not fail a workflow that ran.
            logger.warning("history: could not write %s: %s", path, exc.strerror or exc)
            return False
        return True


class _NotHistory(Exception):
    """A file that is not a history this version reads (the message says why)."""


def _parsed(raw: bytes) -> SiteHistory:
    try:
        site = SiteHistory.model_validate_json(raw)
    except ValidationError as exc:
        first = exc.errors(include_url=False, include_input=False)[0]
        raise _NotHistory(f"it is not a history file ({first['msg']})") from None
    if site.format_version != HISTORY_FORMAT_VERSION:
        raise _NotHistory(f"it has history format {site.format_version}")
    return site


def _fitted(site: SiteHistory) -> bytes:
    """``site`` as its file, within ``MAX_FILE_BYTES``: the oldest failures go first, then
    the oldest flows and checklists (a file the history could not read back is no use)."""
    data = site.to_json().encode("utf-8")
    while len(data) > MAX_FILE_BYTES:
        entries = site.failures or site.flows or site.checklists
        if not entries:
            break
        del entries[0]
        data = site.to_json().encode("utf-8")
    return data


def open_history(
    history_dir: str | os.PathLike[str] | WorkflowHistory | None,
) -> WorkflowHistory | None:
    """The workflow history: the one given, the directory given, or $STAGEHAND_PY_HISTORY_DIR."""
    if isinstance(history_dir, WorkflowHistory):
        return history_dir
    directory = history_dir if history_dir is not None else os.environ.get(HISTORY_DIR_ENV)
    if directory is None or directory == "":
        return None
    if not isinstance(directory, (str, os.PathLike)):
        raise ConfigurationError(
            "history_dir must be a directory's path (a str or pathlib.Path) or a "
            f"WorkflowHistory, not {type(directory).__name__}."
        )
    return WorkflowHistory(directory)
