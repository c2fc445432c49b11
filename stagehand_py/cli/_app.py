"""The argument parser of ``pystagehand`` (also ``python -m stagehand_py``) and its entry point."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from playwright.sync_api import Error as PlaywrightError

from .. import __version__
from .._config import SNAPSHOT_MODES
from .._errors import StagehandError
from .._run_modes import RUN_MODES
from ._agent import add_agent_command
from ._commands import (
    act_command,
    add_codegen_option,
    add_page_command,
    cache_command,
    check_command,
    extract_command,
    observe_command,
    snapshot_command,
)
from ._demo import demo_command
from ._mcp import add_mcp_command
from ._output import add_json_option, fail
from ._session import add_browser_options
from ._variables import add_variable_options
from ._workflow import add_workflow_commands

PROG = "pystagehand"
DESCRIPTION = """\
Drive a web page in plain language from the command line.

Model: --model provider/name (or STAGEHAND_PY_MODEL), key from OPENAI_API_KEY /
ANTHROPIC_API_KEY (or --api-key-env NAME), --base-url for an OpenAI-compatible server.
Every command takes --json: stdout then holds one JSON object and nothing else; progress,
usage and log lines go to stderr.
Exit codes: 0 done, 1 failed (one line on stderr says why), 2 bad command line.
"""
EXIT_BROKEN_PIPE = 141  # what a shell reports for a process stopped by SIGPIPE

Command = Callable[[argparse.Namespace], int]


def _version() -> str:
    return f"{PROG} {__version__}"


def _env_option(group: Any, flag: str, env: str, what: str) -> None:
    """An option whose default is the environment variable ``env`` (read when the parser is
    built, so an option given on the command line wins)."""
    group.add_argument(flag, default=os.environ.get(env), help=f"{what} (default: ${env})")


def _model_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("model")
    _env_option(group, "--model", "STAGEHAND_PY_MODEL", "provider/name, e.g. openai/gpt-4.1-mini")
    _env_option(
        group,
        "--base-url",
        "STAGEHAND_PY_BASE_URL",
        "OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1",
    )
    group.add_argument(
        "--api-key-env",
        metavar="NAME",
        help="read the API key from this environment variable instead of the provider's usual one",
    )
    group.add_argument(
        "--max-tokens",
        metavar="N|KIND=N,...",
        help="answer budget per model request: a number, or per kind (act=512,extract=8000); "
        "default: $STAGEHAND_PY_MAX_TOKENS, else per-kind defaults",
    )
    group.add_argument(
        "--temperature",
        type=float,
        help="sampling temperature (default: $STAGEHAND_PY_TEMPERATURE, else the server's)",
    )


def _limit_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("limits")
    group.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help="time budget of the call and of opening the page (default: $STAGEHAND_PY_TIMEOUT "
        "or 120)",
    )
    group.add_argument(
        "--max-steps",
        type=int,
        metavar="N",
        help="most actions one act may take (default: $STAGEHAND_PY_MAX_STEPS or 10)",
    )


def _run_mode_option(parser: argparse.ArgumentParser, choices: tuple[str, ...]) -> None:
    parser.add_argument(
        "--mode",
        choices=choices,
        help="run preset: dev = headed, DevTools, slow_mo 500 ms; prod = headless, fast, "
        "logging at ERROR",
    )


def _page_options(
    parser: argparse.ArgumentParser, *, model: bool = True, modes: tuple[str, ...] = RUN_MODES
) -> None:
    if model:
        _model_options(parser)
    _limit_options(parser)
    add_browser_options(parser)
    _run_mode_option(parser, modes)
    if model:
        cache = parser.add_argument_group("action cache")
        _env_option(cache, "--cache-dir", "STAGEHAND_PY_CACHE_DIR", "action cache directory")
        cache.add_argument(
            "--cache-mode",
            choices=("read-write", "read-only", "require"),
            help="read-write (default), read-only (never write) or require (a miss fails, the "
            "model is never called); default: $STAGEHAND_PY_CACHE_MODE",
        )
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")
    add_json_option(parser)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action="version", version=_version())
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    snapshot = commands.add_parser("snapshot", help="print the numbered chunks the model sees")
    snapshot.add_argument("url", help="the page to open")
    snapshot.add_argument("--screenshot", metavar="PATH", help="also save an annotated PNG")
    # --mode is the run preset on every page command; snapshot's older --mode dom|aria still
    # works and means --view (the two sets of values cannot be confused).
    _page_options(snapshot, model=False, modes=(*RUN_MODES, *SNAPSHOT_MODES))
    snapshot.add_argument(
        "--view", choices=SNAPSHOT_MODES, help="DOM serializer (default) or aria tree"
    )
    snapshot.set_defaults(run=snapshot_command)

    act = add_page_command(
        commands,
        "act",
        "instruction",
        'what to do, e.g. "click Sign in"; <|NAME|> stands for a variable',
        help="do what an instruction says on a page",
        run=act_command,
    )
    add_variable_options(act, "instruction")
    add_codegen_option(act, "what was done")
    _page_options(act)

    extract = add_page_command(
        commands,
        "extract",
        "instruction",
        'what to extract, e.g. "every product and its price"',
        help="extract data from a page (JSON on stdout)",
        run=extract_command,
    )
    extract.add_argument("--schema", metavar="FILE", help="a JSON schema for the result")
    extract.add_argument(
        "--cache-key",
        help="share one compiled cache entry across pages of one template (e.g. product-page)",
    )
    add_codegen_option(extract, "the compiled reads (needs --cache-dir and --schema)")
    add_variable_options(extract, "instruction")
    _page_options(extract)

    observe = add_page_command(
        commands,
        "observe",
        "instruction",
        "which elements to find (default: the page's main controls)",
        optional=True,
        help="list elements matching an instruction",
        run=observe_command,
    )
    add_variable_options(observe, "instruction")
    _page_options(observe)

    check = add_page_command(
        commands,
        "check",
        "statement",
        'what should hold, e.g. "the cart shows 2 items"',
        help="assert a statement about a page (exit 1 when it does not hold)",
        description="Asks the model whether the statement holds and compiles it into "
        "Playwright assertions; with --cache-dir the next run replays them with no model call.",
        run=check_command,
    )
    add_variable_options(check, "statement")
    add_codegen_option(check, "the compiled assertions (expect lines)")
    _page_options(check)

    add_agent_command(commands, _page_options)
    add_workflow_commands(commands, _page_options)
    add_mcp_command(commands, _page_options)

    demo = commands.add_parser(
        "demo",
        help="act, extract and observe on a bundled page with your model",
        description="Runs act (with variables), extract and observe on a bundled page served "
        "from 127.0.0.1. With no model configured, prints what to set and the request the "
        "model would have been sent, and exits 0.",
    )
    demo.add_argument(
        "--fake", action="store_true", help="offline stand-in model that knows the demo page"
    )
    _page_options(demo)
    demo.set_defaults(run=demo_command)

    cache = commands.add_parser("cache", help="list, show or clear the action cache")
    cache.add_argument(
        "cache_action",
        choices=("list", "show", "clear"),
        help="list the entries, show one (as JSON), or clear them all",
    )
    cache.add_argument("key", nargs="?", help="for show: the key or a unique prefix of it")
    _env_option(cache, "--cache-dir", "STAGEHAND_PY_CACHE_DIR", "action cache directory")
    cache.add_argument(
        "--diff",
        action="store_true",
        help="for show: what the entry's last heal changed (its previous version against now)",
    )
    add_json_option(cache)
    cache.set_defaults(run=cache_command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    try:
        return _run(argv)
    except BrokenPipeError:
        # The reader went away (`... | head`): stop quietly, as command-line tools do, and keep
        # Python from complaining again when it flushes stdout at exit.
        _silence_stdout()
        return EXIT_BROKEN_PIPE


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)  # --help and --version print here
    if args.command == "cache" and args.cache_action == "show" and not args.key:
        parser.error("cache show needs a KEY")
    logging.getLogger("stagehand_py").addHandler(logging.NullHandler())
    run: Command = args.run
    try:
        return run(args)
    except StagehandError as exc:
        return fail(args, exc)
    except PlaywrightError as exc:
        return fail(args, exc, prefix="browser: ")
    except KeyboardInterrupt:
        return fail(args, None, message="interrupted", code=130, kind="Interrupted")


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real stdout (captured in tests): nothing to silence
        pass
