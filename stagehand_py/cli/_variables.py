"""The variable options every command that takes an instruction shares, and reading them.

``--vars-file``, ``--vars-env`` and ``--vars-keyring`` keep values off the command line (and so
out of ``ps`` and the shell's history); ``--var NAME=VALUE`` is for values that are no secret.
"""

from __future__ import annotations

import argparse

from .._errors import ConfigurationError
from ..credentials import from_dotenv, from_env, from_keyring


def parse_variables(pairs: list[str] | None) -> dict[str, str]:
    """``NAME=VALUE`` pairs from ``--var``; the value may contain ``=``."""
    variables: dict[str, str] = {}
    for pair in pairs or []:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise ConfigurationError(f"--var expects NAME=VALUE, got {name!r}.")
        variables[name.strip()] = value
    return variables


def add_variable_options(parser: argparse.ArgumentParser, used_in: str) -> None:
    """The variables for ``<|NAME|>`` in ``used_in``: from a .env file, the environment, the
    OS keychain, or ``--var`` (each repeatable)."""
    group = parser.add_argument_group(
        "variables", f"values for <|NAME|> in the {used_in}; they never reach the model"
    )
    group.add_argument(
        "--vars-file",
        action="append",
        metavar="FILE",
        help="variables from a .env file (NAME=VALUE lines)",
    )
    group.add_argument(
        "--vars-env",
        action="append",
        metavar="PREFIX",
        help="variables from the environment: NAME from PREFIX+NAME (values never shown)",
    )
    group.add_argument(
        "--vars-keyring",
        action="append",
        metavar="SERVICE:NAME[,NAME]",
        help="variables from the OS keychain (needs the keyring extra)",
    )
    group.add_argument(
        "--var",
        action="append",
        metavar="NAME=VALUE",
        help="one variable on the command line, where ps and the shell history see it: "
        "for values that are no secret",
    )


def credential_variables(args: argparse.Namespace) -> dict[str, object]:
    """The variables of the command line: ``--vars-file`` files, then ``--vars-env`` (the
    environment wins over a file, as with dotenv), then ``--vars-keyring``, then ``--var``."""
    variables: dict[str, object] = {}
    for path in args.vars_file or ():
        variables.update(from_dotenv(path))
    for prefix in args.vars_env or ():
        variables.update(from_env(prefix))
    for spec in args.vars_keyring or ():
        service, _, names = spec.rpartition(":")
        if not service or not names:
            raise ConfigurationError(f"--vars-keyring expects SERVICE:NAME[,NAME], got {spec!r}.")
        variables.update(from_keyring(service, [n.strip() for n in names.split(",")]))
    variables.update(parse_variables(args.var))
    return variables
