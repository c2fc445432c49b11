"""Variables: values the user passes to act() that the model must never see.

The model is told only the *names*, written as ``<|NAME|>`` placeholders; it answers with
placeholders and we substitute the values locally, right before calling Playwright. Any
text that leaves this process (prompts, logs, results, cache files, exception messages)
goes through :meth:`Variables.redact` first, which finds the values in their derived forms
too (see :mod:`stagehand_py._redaction`) and, through ``remembered``, the values used on the
same page by earlier calls.

Values are held as :class:`~stagehand_py._secret.SecretText`, so printing a ``Variables`` or
a traceback's locals never shows one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence

from ._errors import ConfigurationError
from ._redaction import SHORT_VALUE_CHARS, Redactor
from ._secret import Secret, SecretText, reveal
from ._secret_scope import SecretScope

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# <|NAME|> is what we tell the model; %name% is accepted too (Stagehand v1 users write it).
_PLACEHOLDER = re.compile(r"<\|([A-Za-z_][A-Za-z0-9_]*)\|>|%([A-Za-z_][A-Za-z0-9_]*)%")
# A positional step of an XPath (``input[3]``); its number is the package's, not page text.
_XPATH_POSITION = re.compile(r"\[(\d+)\]")


def placeholder(name: str) -> str:
    return f"<|{name.upper()}|>"


def _placeholder_names(text: str) -> list[str]:
    return [(m.group(1) or m.group(2)).upper() for m in _PLACEHOLDER.finditer(text)]


def _checked_mapping(values: object) -> Mapping[object, object]:
    if values is None:
        return {}
    if not isinstance(values, Mapping):
        raise ConfigurationError(
            "variables must be a mapping of names to values, e.g. "
            "variables={'email': 'ada@example.com', 'password': Secret('...')}; "
            f"got a {type(values).__name__}."
        )
    return values


def _secret_text(name: str, value: object) -> tuple[SecretText, tuple[str, ...] | None]:
    if isinstance(value, Secret):
        return value.text, value.domains
    if value is None or isinstance(value, bool) or not isinstance(value, (str, int, float)):
        # The value itself is never echoed: it may be a secret.
        raise ConfigurationError(
            f"Variable {name!r} must be a string, a number or a stagehand_py.Secret, "
            f"not {type(value).__name__}."
        )
    return SecretText(value), None


class Variables:
    """An immutable set of named secret values, plus values remembered from earlier calls
    on the same page (redacted too, but not offered to the model or substituted)."""

    __slots__ = (
        "_default_domains",
        "_domains",
        "_redactor",
        "_remembered",
        "_start_url",
        "_values",
    )

    def __init__(
        self,
        values: Mapping[str, object] | None = None,
        *,
        remembered: Iterable[tuple[str, str]] = (),
    ) -> None:
        # pytest prints the locals of frames in a traceback; this one holds the raw mapping.
        __tracebackhide__ = True
        given = _checked_mapping(values)
        cleaned: dict[str, SecretText] = {}
        domains: dict[str, tuple[str, ...]] = {}
        for name in given:
            if not isinstance(name, str) or not _NAME.match(name):
                raise ConfigurationError(
                    f"Variable name {name!r} is not valid: use letters, digits and underscores, "
                    "starting with a letter (e.g. 'email' or 'card_number')."
                )
            if name.upper() in cleaned:
                raise ConfigurationError(
                    f"Variable names are case-insensitive; {name!r} is given twice."
                )
            cleaned[name.upper()], scope = _secret_text(name, given[name])
            if scope is not None:
                domains[name.upper()] = scope
        self._values = cleaned
        self._domains = domains
        self._remembered = tuple((n.upper(), SecretText(v)) for n, v in remembered)
        self._redactor: Redactor | None = None
        self._start_url: str | None = None
        self._default_domains: tuple[str, ...] = ()

    @classmethod
    def of(cls, variables: Variables | Mapping[str, object] | None) -> Variables:
        """``variables`` as given to a public call (a mapping, None, or already Variables)."""
        return variables if isinstance(variables, Variables) else cls(variables)

    def _copy(self) -> Variables:
        copy = Variables.__new__(Variables)
        for slot in Variables.__slots__:
            setattr(copy, slot, getattr(self, slot))
        copy._redactor = None
        return copy

    def remembering(self, values: Iterable[tuple[str, str]]) -> Variables:
        """A copy that also redacts ``values`` (name, value) used earlier on the same page."""
        copy = self._copy()
        copy._remembered = (*self._remembered, *((n.upper(), SecretText(v)) for n, v in values))
        return copy

    def bound_to(self, start_url: str, default_domains: Sequence[str] = ()) -> Variables:
        """A copy whose values may be typed only on the origin of ``start_url`` (the page the
        call starts on), or on ``default_domains`` when given; ``Secret(domains=...)`` wins."""
        copy = self._copy()
        copy._start_url = start_url
        copy._default_domains = tuple(default_domains)
        return copy

    def scope(self, name: str) -> SecretScope | None:
        """Where variable ``name`` may be typed; None when the variables are not bound to a
        call (library code that builds its own)."""
        if self._start_url is None:
            return None
        return SecretScope.for_variable(self._start_url, self.domains(name), self._default_domains)

    def __bool__(self) -> bool:
        return bool(self._values)

    def __repr__(self) -> str:  # never show values
        return f"Variables(names={self.names!r})"

    @property
    def names(self) -> list[str]:
        """Upper-cased names, sorted: what prompts and cache keys use."""
        return sorted(self._values)

    @property
    def placeholders(self) -> list[str]:
        return [placeholder(name) for name in self.names]

    def items(self) -> list[tuple[str, SecretText]]:
        """(name, value) pairs given to this call (values masked when printed)."""
        return sorted(self._values.items())

    def domains(self, name: str) -> tuple[str, ...] | None:
        """The domain patterns ``Secret(domains=...)`` bound variable ``name`` to, if any."""
        return self._domains.get(name.upper())

    def secret_values(self) -> list[str]:
        """Every value to keep out of text, this call's and remembered ones, longest first
        (for redaction and leak checks). Empty values skipped."""
        values = {v for v in self._values.values() if v} | {v for _, v in self._remembered if v}
        return sorted(values, key=len, reverse=True)

    def substitute(self, text: str) -> str:
        """Replace known placeholders with their values. Unknown placeholders stay as written.

        The result is a :class:`SecretText` when a value went in, so it prints masked."""
        whole = _PLACEHOLDER.fullmatch(text)
        if whole is not None and (whole.group(1) or whole.group(2)).upper() in self._values:
            return self._values[(whole.group(1) or whole.group(2)).upper()]  # no copy
        substituted = False

        def repl(match: re.Match[str]) -> str:
            nonlocal substituted
            name = (match.group(1) or match.group(2)).upper()
            if name not in self._values:
                return match.group(0)
            substituted = True
            return reveal(self._values[name])

        out = _PLACEHOLDER.sub(repl, text)
        return SecretText(out) if substituted else out

    def unknown_placeholders(self, text: str) -> list[str]:
        """Placeholder names in ``text`` (``<|NAME|>`` or ``%name%``) that are not defined
        (fed back to the model, or refused when the user wrote them)."""
        return [name for name in _placeholder_names(text) if name not in self._values]

    def used_names(self, texts: Sequence[str]) -> list[str]:
        """Names of defined variables that ``texts`` refer to by placeholder."""
        used = {name for text in texts for name in _placeholder_names(text)}
        return sorted(used & set(self._values))

    @property
    def redactor(self) -> Redactor:
        if self._redactor is None:
            self._redactor = Redactor([*self._values.items(), *self._remembered])
        return self._redactor

    def redact(self, text: str) -> str:
        """Replace every secret value (derived forms included) with its placeholder. Values
        shorter than ``SHORT_VALUE_CHARS`` only as whole tokens, outside the package's
        numbering and markup."""
        if not text:
            return text
        return self.redactor.redact(text)

    def contains_secret(self, text: str) -> bool:
        return self.redactor.contains(text)

    def without_secrets(self, texts: Iterable[str]) -> list[str]:
        """``texts`` (selectors) less those that quote a secret: a selector cannot be redacted
        and still work, so one that quotes the page's echo of a value is left out. A short
        value ("3") that is only a position in an XPath (``input[3]``) is no echo: the position
        is written as a difference (``input[5-2]``, the same element) and the selector kept."""
        kept: list[str] = []
        for text in texts:
            if self.contains_secret(text):
                text = _positions_rewritten(text, self.contains_secret)
            if not self.contains_secret(text):
                kept.append(text)
        return kept


def _positions_rewritten(selector: str, holds: Callable[[str], bool]) -> str:
    """An XPath selector whose positions that read as a value are written as differences
    (``[3]`` -> ``[5-2]``); other selectors, and XPaths with quoted text, unchanged."""
    if not selector.startswith("xpath=") or '"' in selector or "'" in selector:
        return selector

    def rewrite(match: re.Match[str]) -> str:
        position = int(match.group(1))
        if not holds(match.group(1)):
            return match.group(0)
        for offset in range(2, 100):
            difference = f"[{position + offset}-{offset}]"
            if not holds(difference):
                return difference
        return match.group(0)

    return _XPATH_POSITION.sub(rewrite, selector)


__all__ = ["SHORT_VALUE_CHARS", "Variables", "placeholder"]
