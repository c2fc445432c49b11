"""Secrets remembered for the session: a value used on a page stays redacted for that page.

Each ``Stagehand`` keeps a :class:`SecretRegistry`. Every call records the variables it was
given against its page (and, when an act moves to a tab it opened, against that tab too);
later calls on the same page redact those values as well as their own, so an email typed by
one act is not sent to the model by the next extract or observe. Pages are held weakly: a
closed page's entry goes with it.

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

from ._redaction import Redactor
from ._secret import SecretText
from ._variables import Variables

_LOCK = threading.Lock()
_REGISTRIES: weakref.WeakSet[SecretRegistry] = weakref.WeakSet()
_RECORDERS: list[UsedSecrets] = []
_version = 0  # bumped whenever a registry learns a value (the log filter's cache key)


def _page_key(page: object) -> Any:
    """The object that identifies a page: Playwright's implementation object, which the
    user's page and its wrapped twin share."""
    return getattr(page, "_impl_obj", page)


class SecretRegistry:
    """Values used per page, for one Stagehand."""

    def __init__(self) -> None:
        self._by_page: weakref.WeakKeyDictionary[Any, dict[str, list[SecretText]]] = (
            weakref.WeakKeyDictionary()
        )
        with _LOCK:
            _REGISTRIES.add(self)

    def __repr__(self) -> str:
        return f"SecretRegistry({len(self._by_page)} page(s))"

    def remember(self, page: object, variables: Variables) -> None:
        """Record ``variables``' values as used on ``page``."""
        global _version
        items = variables.items()
        if not items:
            return
        with _LOCK:
            known = self._by_page.setdefault(_page_key(page), {})
            for name, value in items:
                values = known.setdefault(name, [])
                if value not in values:
                    values.append(value)
            _version += 1
            for recorder in _RECORDERS:
                recorder.add(items)

    def carry_over(self, source: object, target: object) -> None:
        """A tab opened from ``source`` inherits its remembered values."""
        global _version
        with _LOCK:
            known = self._by_page.get(_page_key(source))
            if not known:
                return
            into = self._by_page.setdefault(_page_key(target), {})
            for name, values in known.items():
                kept = into.setdefault(name, [])
                kept.extend(v for v in values if v not in kept)
            _version += 1

    def remembered(self, page: object) -> list[tuple[str, SecretText]]:
        with _LOCK:
            known = self._by_page.get(_page_key(page), {})
            return [(name, value) for name, values in known.items() for value in values]

    def for_call(
        self, page: object, variables: Variables | Mapping[str, object] | None
    ) -> Variables:
        """The call's variables, remembered for ``page`` and redacting what earlier calls
        used there too."""
        given = Variables.of(variables)
        earlier = self.remembered(page)
        self.remember(page, given)
        return given.remembering(earlier) if earlier else given

    def all_values(self) -> list[tuple[str, SecretText]]:
        with _LOCK:
            pages = list(self._by_page.values())
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
