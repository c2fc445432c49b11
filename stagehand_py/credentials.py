"""Credential sources for ``variables``: the environment, a ``.env`` file, the OS keychain.

Each source returns a ``dict`` of names to :class:`~stagehand_py.Secret` values, ready for
``variables=``::

    from stagehand_py.credentials import from_dotenv, from_env, from_keyring

    page.act("log in as <|EMAIL|> with <|PASSWORD|>", variables=from_env("SHOP_"))
    page.act("log in ...", variables=from_dotenv(".env", names=["EMAIL", "PASSWORD"]))
    page.act("log in ...", variables=from_keyring("shop.example", ["EMAIL", "PASSWORD"]))

A :class:`~stagehand_py.Secret` prints as a mask (``repr``, ``str``, f-strings, tracebacks)
and, once passed as a variable, its value is redacted from prompts, logs, results, the
history, the action cache and the command line's output like any variable's. Errors name
the source and the variable, never a value. The keychain needs the optional ``keyring``
package: ``pip install "pystagehand[keyring]"``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from ._dotenv import DotenvError, parse_dotenv
from ._errors import ConfigurationError
from ._secret import Secret

__all__ = ["from_dotenv", "from_env", "from_keyring"]

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
KEYRING_HINT = 'install the optional extra: pip install "pystagehand[keyring]"'


def _names(names: Sequence[str], source: str) -> list[str]:
    if isinstance(names, str) or not isinstance(names, Sequence):
        raise ConfigurationError(
            f"{source} takes a list of variable names, e.g. ['EMAIL', 'PASSWORD'], "
            f"not {type(names).__name__}."
        )
    bad = [n for n in names if not isinstance(n, str) or not _NAME.match(n)]
    if bad or not names:
        raise ConfigurationError(
            f"{source}: variable names are letters, digits and underscores, starting with a "
            f"letter; got {bad[0]!r}."
            if bad
            else f"{source}: no variable names given."
        )
    return list(names)


def _pick(
    values: Mapping[str, str], source: str, *, prefix: str | None, names: Sequence[str] | None
) -> dict[str, Secret]:
    """``names`` (each must be there), or every name starting with ``prefix`` (stripped)."""
    if names is not None:
        wanted = _names(names, source)
        missing = [n for n in wanted if n not in values]
        if missing:
            raise ConfigurationError(f"{source} has no {', '.join(missing)}: set it or drop it.")
        return {n: Secret(values[n]) for n in wanted}
    if prefix is None:
        return {n: Secret(v) for n, v in values.items()}
    found = {n[len(prefix) :]: v for n, v in values.items() if n.startswith(prefix)}
    found.pop("", None)  # the prefix alone names nothing
    unusable = [n for n in found if not _NAME.match(n)]
    if unusable:
        raise ConfigurationError(
            f"{source}: {prefix}{unusable[0]} does not give a variable name after the prefix "
            f"{prefix!r} (letters, digits and underscores, starting with a letter)."
        )
    if not found:
        raise ConfigurationError(f"{source} has no names starting with {prefix!r}.")
    return {n: Secret(v) for n, v in found.items()}


def from_env(
    prefix_or_names: str | Sequence[str], *, environ: Mapping[str, str] | None = None
) -> dict[str, Secret]:
    """Variables from the environment.

    A string is a prefix: every environment variable starting with it, named without it
    (``from_env("SHOP_")`` gives ``EMAIL`` from ``SHOP_EMAIL``). A list names the variables
    to read, each of which must be set. ``environ`` replaces ``os.environ`` (tests).
    """
    env = os.environ if environ is None else environ
    if isinstance(prefix_or_names, str):
        if not prefix_or_names:
            raise ConfigurationError(
                "from_env() needs a prefix such as 'SHOP_' (every variable of the environment "
                "would be a secret otherwise) or a list of names."
            )
        return _pick(env, "The environment", prefix=prefix_or_names, names=None)
    return _pick(env, "The environment", prefix=None, names=prefix_or_names)


def from_dotenv(
    path: str | os.PathLike[str] = ".env",
    *,
    names: Sequence[str] | None = None,
    prefix: str | None = None,
) -> dict[str, Secret]:
    """Variables from a ``.env`` file (``NAME=value`` lines; see :mod:`stagehand_py._dotenv`
    for the dialect): every name in it, or only ``names``, or those starting with ``prefix``
    (named without it). The environment is not changed."""
    if names is not None and prefix is not None:
        raise ConfigurationError("from_dotenv() takes names= or prefix=, not both.")
    file = Path(path)
    try:
        text = file.read_text("utf-8")
    except FileNotFoundError:
        raise ConfigurationError(f"No .env file at {file}: check the path.") from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "it is not UTF-8 text"
        raise ConfigurationError(f"Cannot read the .env file {file}: {reason}.") from None
    try:
        values = parse_dotenv(text)
    except DotenvError as exc:
        raise ConfigurationError(f"The .env file {file}, line {exc.line}: {exc.reason}.") from None
    return _pick(values, f"The .env file {file}", prefix=prefix, names=names)


def from_keyring(service: str, names: Sequence[str]) -> dict[str, Secret]:
    """Variables from the OS keychain: for each name, the password the ``keyring`` package
    holds for (``service``, name), e.g. stored with ``keyring set shop.example PASSWORD``."""
    if not isinstance(service, str) or not service.strip():
        raise ConfigurationError("from_keyring() needs the service name the values are under.")
    wanted = _names(names, f"The keychain service {service!r}")
    try:
        import keyring
        from keyring.errors import KeyringError
    except ImportError:
        raise ConfigurationError(
            f"from_keyring() needs the keyring package: {KEYRING_HINT}."
        ) from None
    found: dict[str, Secret] = {}
    for name in wanted:
        try:
            value = keyring.get_password(service, name)
        except KeyringError as exc:
            raise ConfigurationError(
                f"The keychain could not give {name!r} of service {service!r} "
                f"({type(exc).__name__}); check that a keychain backend is available."
            ) from None
        if value is None:
            raise ConfigurationError(
                f"The keychain has no {name!r} for service {service!r}: store it with "
                f"`keyring set {service} {name}`."
            )
        found[name] = Secret(value)
    return found
