"""What one model request may spend: the single place where settings become RequestOptions.

Every caller (act, verify, observe, extract, the agent, checklists) builds the ``options=`` of
its model requests with :func:`request_options`, so a budget set per ``Stagehand``, per call,
by environment variable or on the command line means the same thing everywhere.

``max_tokens`` has a default per kind of request: an act or verify answer is one short tool
call, an extract answer can be long. The defaults bound what a runaway model (a small local
one looping inside a schema) can cost, and stay generous enough for reasoning models, whose
hidden reasoning counts against the same budget. An answer cut off by the budget is asked
again once with :func:`larger_budget`. ``temperature`` has no default: the server's own is
used, because reasoning models reject any other value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, get_args

from ._messages import RequestKind, RequestOptions


class BudgetSettings(Protocol):
    """What :func:`request_options` reads of the settings (``stagehand_py.Settings`` has both)."""

    @property
    def max_tokens(self) -> int | Mapping[str, int] | None: ...
    @property
    def temperature(self) -> float | None: ...


KINDS: tuple[RequestKind, ...] = get_args(RequestKind)

DEFAULT_MAX_TOKENS: Mapping[RequestKind, int] = {
    "act": 1024,
    "verify": 512,
    "observe": 2048,
    "extract": 4096,
    "agent": 2048,
    "checklist": 1024,
    "check": 1024,
    "other": 2048,
}
"""max_tokens of each kind of request when nothing else is set."""


def request_options(
    settings: BudgetSettings, kind: RequestKind, *, timeout_s: float | None = None
) -> RequestOptions:
    """The options of one model request of ``kind``: the budget and temperature ``settings``
    give it (per-call overrides are already merged into ``settings``), and ``timeout_s``, the
    time the caller has left (None: no deadline)."""
    return RequestOptions(
        kind=kind,
        max_tokens=max_tokens_for(settings.max_tokens, kind),
        temperature=settings.temperature,
        timeout_s=None if timeout_s is None else max(timeout_s, 0.001),
    )


def max_tokens_for(setting: int | Mapping[str, int] | None, kind: RequestKind) -> int:
    """The budget of ``kind`` under a ``max_tokens`` setting (a number, per-kind numbers, or
    None for the defaults)."""
    if isinstance(setting, int):
        return setting
    if setting and kind in setting:
        return setting[kind]
    return DEFAULT_MAX_TOKENS[kind]


def larger_budget(max_tokens: int | None) -> int:
    """The budget of the one retry of an answer cut off at ``max_tokens``."""
    return max(2 * (max_tokens or 0), 4096 if max_tokens is None else 0)


def parse_max_tokens(value: object) -> object:
    """A ``max_tokens`` setting from text (environment, command line): ``"1024"`` for every
    kind, ``"act=512,extract=8000"`` per kind, or both (``"1024,extract=8000"``). Other values
    pass through for validation; an unknown kind or a bad number raises ValueError, which
    Settings reports as a ConfigurationError."""
    if isinstance(value, Mapping):
        _check_kinds(value)
        return value
    if isinstance(value, int) and not _is_budget(value):
        raise ValueError(f"max_tokens={value!r}: the budget must be a whole number >= 1")
    if not isinstance(value, str):
        return value
    text = value.strip()
    if not text:
        return None
    everywhere: int | None = None
    per_kind: dict[str, int] = {}
    for item in (part.strip() for part in text.split(",")):
        kind, _, number = item.rpartition("=")
        budget = _positive(number, item)
        if kind:
            per_kind[kind.strip()] = budget
        else:
            everywhere = budget
    _check_kinds(per_kind)
    if not per_kind:
        return everywhere
    if everywhere is not None:
        per_kind = {kind: per_kind.get(kind, everywhere) for kind in KINDS}
    return per_kind


def _positive(number: str, item: str) -> int:
    try:
        budget = int(number.strip())
    except ValueError:
        raise ValueError(f"max_tokens {item!r}: {number.strip()!r} is not a whole number") from None
    if budget < 1:
        raise ValueError(f"max_tokens {item!r}: the budget must be at least 1")
    return budget


def _check_kinds(per_kind: Mapping[Any, object]) -> None:
    unknown = [str(kind) for kind in per_kind if kind not in KINDS]
    if unknown:
        raise ValueError(
            f"max_tokens: unknown kind(s) {', '.join(unknown)}; kinds are {', '.join(KINDS)}"
        )
    bad = [f"{kind}={budget}" for kind, budget in per_kind.items() if not _is_budget(budget)]
    if bad:
        raise ValueError(f"max_tokens: {', '.join(bad)}: each budget must be a whole number >= 1")


def _is_budget(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1
