"""Variables: values the user passes to act() that the model must never see.

The model is told only the *names*, written as ``<|NAME|>`` placeholders; it answers with
placeholders and we substitute the values locally, right before calling Playwright. Any
text that leaves this process (prompts, logs, results, cache files, exception messages)
goes through :meth:`Variables.redact` first.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ._secret import Secret

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# <|NAME|> is what we tell the model; %name% is accepted too (Stagehand v1 users write it).
_PLACEHOLDER = re.compile(r"<\|([A-Za-z_][A-Za-z0-9_]*)\|>|%([A-Za-z_][A-Za-z0-9_]*)%")


def placeholder(name: str) -> str:
    return f"<|{name.upper()}|>"


class Variables:
    """An immutable set of named secret values."""

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, object] | None = None) -> None:
        from ._errors import ConfigurationError

        cleaned: dict[str, str] = {}
        for name, value in (values or {}).items():
            # --- issue 18: a Secret (the credential sources' values) is typed as its value;
            # the hardening branch (#13) replaces this hunk with domain-scoped secrets.
            if isinstance(value, Secret):
                if value.domains is not None:  # enforced by #13's scope checks, not here
                    raise ConfigurationError(
                        f"Variable {name!r}: Secret(domains=...) is not supported by this "
                        "version; pass Secret(value) without domains."
                    )
                value = value.get_secret_value()
            # --- end issue 18
            if not isinstance(name, str) or not _NAME.match(name):
                raise ConfigurationError(
                    f"Variable name {name!r} is not valid: use letters, digits and underscores, "
                    "starting with a letter (e.g. 'email' or 'card_number')."
                )
            if name.upper() in cleaned:
                raise ConfigurationError(
                    f"Variable names are case-insensitive; {name!r} is given twice."
                )
            if value is None or isinstance(value, bool) or not isinstance(value, (str, int, float)):
                # The value itself is never echoed: it may be a secret.
                raise ConfigurationError(
                    f"Variable {name!r} must be a string (or a number), not {type(value).__name__}."
                )
            cleaned[name.upper()] = str(value)
        self._values = cleaned

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

    def secret_values(self) -> list[str]:
        """The values, longest first (for redaction and leak checks). Empty values skipped."""
        return sorted((v for v in self._values.values() if v), key=len, reverse=True)

    def substitute(self, text: str) -> str:
        """Replace known placeholders with their values. Unknown placeholders stay as written."""

        def repl(match: re.Match[str]) -> str:
            name = (match.group(1) or match.group(2)).upper()
            return self._values.get(name, match.group(0))

        return _PLACEHOLDER.sub(repl, text)

    def unknown_placeholders(self, text: str) -> list[str]:
        """Placeholder names in ``text`` that are not defined (fed back to the model)."""
        unknown: list[str] = []
        for match in _PLACEHOLDER.finditer(text):
            name = (match.group(1) or match.group(2)).upper()
            if name not in self._values and match.group(1):
                unknown.append(name)
        return unknown

    def redact(self, text: str) -> str:
        """Replace every occurrence of a secret value with its placeholder."""
        if not self._values or not text:
            return text
        by_value = {v: n for n, v in self._values.items() if v}
        for value in sorted(by_value, key=len, reverse=True):
            if value in text:
                text = text.replace(value, placeholder(by_value[value]))
        return text

    def contains_secret(self, text: str) -> bool:
        return any(value in text for value in self.secret_values())
