"""Secret values that never show themselves: not in ``repr``, ``str``, logs or tracebacks.

:class:`Secret` is the public wrapper a user puts in ``variables`` (optionally bound to the
domains where it may be typed). :class:`SecretText` is what the SDK carries internally from
the moment ``variables`` arrive until the Playwright call that types the value: a ``str``
(Playwright sends it as is) whose ``repr``/``str``/``format`` print a mask, so a traceback
that prints local variables (``pytest --showlocals``, JUnit XML) shows ``'<secret>'``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._errors import ConfigurationError
from ._secret_scope import parse_patterns

MASK = "**********"


class SecretText(str):
    """A ``str`` holding a secret value; printing it shows a mask, never the value.

    Concatenation, slicing and ``join`` give plain strings (CPython builds new ``str``
    objects), so only code that asks for it with :func:`reveal` ever handles the raw value
    as an ordinary string.
    """

    __slots__ = ()

    def __new__(cls, value: object = "") -> SecretText:
        if type(value) is cls:
            return value  # immutable: no copy (values can be megabytes)
        # str(value) would call a SecretText's own __str__ and keep the mask, not the value.
        return super().__new__(cls, str.__str__(value) if isinstance(value, str) else value)

    def __repr__(self) -> str:
        return "'<secret>'"

    def __str__(self) -> str:
        return MASK

    def __format__(self, spec: str) -> str:
        return format(MASK, spec)

    def __reduce__(self) -> Any:  # pickling (multiprocessing, caches) would carry the value
        raise TypeError("A secret value cannot be pickled.")


def reveal(value: str) -> str:
    """The raw value of a :class:`SecretText` (or any ``str``) as a plain ``str``."""
    return str.__str__(value)


class Secret:
    """A variable value to type into a page but never show anywhere else.

    ``Secret("hunter2")`` behaves like a plain variable value; ``domains`` binds it to the
    sites where it may be used (``["*.example.com", "https://login.example.org"]``): a field
    on any other origin is refused. Without ``domains`` a variable may be used only on the
    origin (scheme, host, port) of the page the call started on.

    ``repr``/``str`` show a mask; :meth:`get_secret_value` returns the value.
    """

    __slots__ = ("_domains", "_value")

    def __init__(self, value: str, *, domains: Sequence[str] | None = None) -> None:
        if not isinstance(value, str):
            raise ConfigurationError(
                f"Secret() takes the value as a string, not {type(value).__name__}."
            )
        if isinstance(domains, str) or (
            domains is not None
            and not (isinstance(domains, Sequence) and all(isinstance(d, str) for d in domains))
        ):
            raise ConfigurationError(
                "Secret(domains=...) takes a list of domain patterns, e.g. "
                "domains=['*.example.com', 'https://login.example.org']."
            )
        self._value = SecretText(value)
        self._domains: tuple[str, ...] | None = None if domains is None else tuple(domains)
        if self._domains is not None:
            parse_patterns(self._domains)  # a malformed pattern fails here, not mid-act

    @property
    def domains(self) -> tuple[str, ...] | None:
        """The domain patterns the value is bound to (``None``: the call's own origin)."""
        return self._domains

    def get_secret_value(self) -> str:
        """The value itself (as a plain ``str``)."""
        return reveal(self._value)

    @property
    def text(self) -> SecretText:
        """The value as the SDK carries it (masked when printed)."""
        return self._value

    def __repr__(self) -> str:
        domains = f", domains={list(self._domains)!r}" if self._domains is not None else ""
        return f"Secret('{MASK}'{domains})"

    def __str__(self) -> str:
        return MASK

    def __format__(self, spec: str) -> str:
        return format(MASK, spec)

    def __reduce__(self) -> Any:
        raise TypeError("A Secret cannot be pickled.")
