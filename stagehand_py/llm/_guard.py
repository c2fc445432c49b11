"""A global switch that forbids real model requests (a test suite's safety net).

On when the environment sets ``STAGEHAND_PY_BLOCK_REAL_LLM=1`` or after
``block_real_requests()``; ``block_real_requests(False)`` forces it off and
``block_real_requests(None)`` hands the decision back to the environment. Used as a context
manager it restores the previous setting on exit. Loopback endpoints (``127.0.0.1``,
``localhost``, ``::1``) stay allowed, so tests can use a local fake server or model.
Providers call :func:`check_request_allowed` before any network I/O.
"""

from __future__ import annotations

import os
from types import TracebackType
from urllib.parse import urlsplit

from .._errors import RealRequestsBlockedError
from .._loopback import is_loopback_name

ENV_VAR = "STAGEHAND_PY_BLOCK_REAL_LLM"
_TRUTHY = frozenset({"1", "true", "yes", "on"})

# None: the environment decides. True/False: forced by block_real_requests().
_override: bool | None = None


class _Restore:
    """Returned by block_real_requests(): the switch is already set; ``with`` undoes it."""

    def __init__(self, previous: bool | None) -> None:
        self._previous = previous

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        global _override
        _override = self._previous


def block_real_requests(enabled: bool | None = True) -> _Restore:
    """Forbid (True), allow (False) or let the environment decide (None) real model requests.

    Takes effect at once; ``with block_real_requests(): ...`` restores the previous setting.
    """
    global _override
    previous = _override
    _override = enabled
    return _Restore(previous)


def real_requests_blocked() -> bool:
    if _override is not None:
        return _override
    return os.environ.get(ENV_VAR, "").strip().lower() in _TRUTHY


def is_loopback_url(url: str) -> bool:
    return is_loopback_name((urlsplit(url).hostname or "").strip("[]").lower())


def check_request_allowed(url: str, model: str) -> None:
    """Raise RealRequestsBlockedError if ``url`` is a real endpoint while the switch is on."""
    if real_requests_blocked() and not is_loopback_url(url):
        raise RealRequestsBlockedError(
            f"Real model requests are switched off, but model {model!r} would call {url}. "
            f"Use a fake from stagehand_py.testing or a loopback base_url, or turn the switch "
            f"off: unset {ENV_VAR} / call block_real_requests(False)."
        )
