"""Secrets remembered for the session: a value used on any page of a browser context stays
redacted on every page of that context.

Each ``Stagehand`` keeps a :class:`SecretRegistry`. Every call records the variables it was
given against its page's browser context; every call on that context redacts those values as
well as its own, so an email typed by one act is not sent to the model by the next extract,
and two agents running at once on two tabs of one context (which list each other's tabs, and
whose URLs and titles carry what was typed) do not show each other's values. A call reads the
memory live (:class:`ContextMemory`): a value another call starts using while it runs is
redacted from then on. The memory of a context is what every live session used on it.
Contexts are held weakly: a closed context's entry goes with it.

Two more consumers read what the registries hold:

- a :class:`logging.Filter` on the package's loggers redacts every record with the values of
  every live registry (a URL logged by a module that has no ``Variables`` at hand included);
- :class:`UsedSecrets` collects the values used while it is active (the pytest plugin uses
  one per test, to scrub the Playwright traces written for it).
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from ._playwright_identity import identity
from ._redaction import Redactor
from ._secret import SecretText
from ._variables import Variables

_LOCK = threading.Lock()
_REGISTRIES: weakref.WeakSet[SecretRegistry] = weakref.WeakSet()
_RECORDERS: list[UsedSecrets] = []
_version = 0  # bumped whenever a registry learns a value (the log filter's cache key)


def _context_key(page: object) -> Any:
    """The object that identifies ``page``'s browser context (the page itself for an object
    that has none): what the memory of used values is kept by."""
    context = getattr(page, "context", None)
    return identity(context) if context is not None else identity(page)


class ContextMemory:
    """The values every live session used on one browser context, read when a call redacts
    (see :class:`~stagehand_py._variables.SecretMemory`)."""

    def __init__(self, key: Any) -> None:
        self._key = weakref.ref(key)

    def __repr__(self) -> str:
        return "ContextMemory()"

    def version(self) -> int:
        return _version

    def pairs(self) -> list[tuple[str, SecretText]]:
        key = self._key()
        if key is None:
            return []
        with _LOCK:
            registries = list(_REGISTRIES)
        return [pair for registry in registries for pair in registry._known(key)]


class SecretRegistry:
    """Values used per browser context, for one Stagehand."""

    def __init__(self) -> None:
        self._by_context: weakref.WeakKeyDictionary[Any, dict[str, list[SecretText]]] = (
            weakref.WeakKeyDictionary()
        )
        with _LOCK:
            _REGISTRIES.add(self)

    def __repr__(self) -> str:
        return f"SecretRegistry({len(self._by_context)} context(s))"

    def remember(self, page: object, variables: Variables) -> None:
        """Record ``variables``' values as used on ``page``'s browser context."""
        global _version
        items = variables.items()
        if not items:
            return
        with _LOCK:
            known = self._by_context.setdefault(_context_key(page), {})
            for name, value in items:
                values = known.setdefault(name, [])
                if value not in values:
                    values.append(value)
            _version += 1
            for recorder in _RECORDERS:
                recorder.add(items)

    def carry_over(self, source: object, target: object) -> None:
        """A tab opened from ``source`` inherits its remembered values (a tab opens in its
        opener's context, so this matters only for a target kept elsewhere)."""
        global _version
        source_key, target_key = _context_key(source), _context_key(target)
        if source_key is target_key:
            return
        with _LOCK:
            known = self._by_context.get(source_key)
            if not known:
                return
            into = self._by_context.setdefault(target_key, {})
            for name, values in known.items():
                kept = into.setdefault(name, [])
                kept.extend(v for v in values if v not in kept)
            _version += 1

    def _known(self, key: Any) -> list[tuple[str, SecretText]]:
        with _LOCK:
            known = self._by_context.get(key, {})
            return [(name, value) for name, values in known.items() for value in values]

    def remembered(self, page: object) -> list[tuple[str, SecretText]]:
        """What this session used on ``page``'s browser context."""
        return self._known(_context_key(page))

    def for_call(
        self, page: object, variables: Variables | Mapping[str, object] | None
    ) -> Variables:
        """The call's variables, remembered for ``page``'s browser context and redacting,
        for as long as the call runs, what any call used on that context."""
        given = Variables.of(variables)
        self.remember(page, given)
        return given.remembering_from(ContextMemory(_context_key(page)))

    def all_values(self) -> list[tuple[str, SecretText]]:
        with _LOCK:
            pages = list(self._by_context.values())
        return [
            (name, value) for known in pages for name, values in known.items() for value in values
        ]


class UsedSecrets:
    """Collects the values any registry learns while active (``with UsedSecrets() as used``)."""

    def __init__(self) -> None:
        self._items: list[tuple[str, SecretText]] = []

    def add(self, items: list[tuple[str, SecretText]]) -> None:
        self._items.extend(items)

    @property
    def items(self) -> list[tuple[str, SecretText]]:
        return list(self._items)

    def __bool__(self) -> bool:
        return bool(self._items)

    def __enter__(self) -> UsedSecrets:
        with _LOCK:
            _RECORDERS.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        with _LOCK:
            if self in _RECORDERS:
                _RECORDERS.remove(self)


@contextmanager
def recording_used_secrets() -> Iterator[UsedSecrets]:
    with UsedSecrets() as used:
        yield used


class RedactingLogFilter(logging.Filter):
    """Redacts every record of the package's loggers with the values of all live registries."""

    def __init__(self) -> None:
        super().__init__()
        self._cached: tuple[int, Redactor] | None = None

    def _redactor(self) -> Redactor:
        version = _version
        if self._cached is None or self._cached[0] != version:
            with _LOCK:
                registries = list(_REGISTRIES)
            pairs = [pair for registry in registries for pair in registry.all_values()]
            self._cached = (version, Redactor(pairs))
        return self._cached[1]

    def filter(self, record: logging.LogRecord) -> bool:
        redactor = self._redactor()
        if not redactor:
            return True
        message = record.getMessage()
        redacted = redactor.redact(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        return True


_FILTER = RedactingLogFilter()


def redact_known(text: str) -> str:
    """``text`` without any value a live registry remembers (what the log filter does)."""
    redactor = _FILTER._redactor()
    return redactor.redact(text) if redactor else text


# Filters run only for records logged on the logger itself, so each of the package's loggers
# gets one (children do not inherit a parent's filters).
for _name in ("stagehand_py", "stagehand_py.llm", "stagehand_py.cache"):
    logging.getLogger(_name).addFilter(_FILTER)
