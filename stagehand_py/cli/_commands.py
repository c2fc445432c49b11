"""The page commands (snapshot, act, extract, observe, check) and the cache commands.

Each returns the process exit code. Results go to stdout (text, or one JSON object with
``--json``); progress and usage go to stderr in JSON mode.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .._config import SnapshotMode
from .._errors import ActError, CacheError, CheckError, ConfigurationError
from .._inspect_api import annotated_screenshot, take_snapshot
from .._sync.stagehand import Stagehand
from .._variables import Variables
from ..cache import ActionCache
from ..cache._manage import clear_entries, entry_diff, list_entries, show_entry
from ._output import emit_json, emit_result, json_mode, note, print_code, spent_before_failing
from ._progress import progress
from ._session import browser_options, build_stagehand, open_page, usage_line
from ._variables import credential_variables


def add_page_command(
    commands: Any,
    name: str,
    target: str,
    target_help: str,
    *,
    run: Callable[[argparse.Namespace], int],
    url_help: str = "the page to open",
    optional: bool = False,
    **parser: str,
) -> argparse.ArgumentParser:
    """A command on one page that takes what to do there, run by ``run``: its parser
    (``parser`` holds ``help=`` and ``description=``) with the page's URL and ``target`` (its
    instruction, statement, task or text) as arguments."""
    command: argparse.ArgumentParser = commands.add_parser(name, **parser)
    command.set_defaults(run=run)
    command.add_argument("url", help=url_help)
    if optional:
        command.add_argument(target, nargs="?", default=None, help=target_help)
    else:
        command.add_argument(target, help=target_help)
    return command


def add_codegen_option(parser: argparse.ArgumentParser, of_what: str) -> None:
    """``--codegen [sync|async]``: also print the plain Playwright code ``of_what``."""
    parser.add_argument(
        "--codegen",
        nargs="?",
        const="sync",
        choices=("sync", "async"),
        help=f"also print the plain Playwright Python code of {of_what} (sync by default); "
        "variables are read from os.environ, never written out",
    )


def usage_out(args: argparse.Namespace, line: str) -> None:
    # In JSON mode the usage is inside the JSON object; the line is for people, on stderr.
    if json_mode(args):
        note(line)
    else:
        print(line)


def titled(verb: str, instruction: str, variables: dict[str, object]) -> str:
    """The progress line's title: ``verb: instruction``, a variable's value in it redacted (as
    the SDK redacts it everywhere else)."""
    return f"{verb}: {Variables(variables).redact(instruction)}"


@contextmanager
def counted(args: argparse.Namespace, stagehand: Stagehand) -> Iterator[None]:
    """The block of a command's calls: when one raises after sending model requests (a
    timeout, a model that never answered usably), what they cost still reaches the output,
    as the usage line on stderr and, with ``--json``, in the error object."""
    try:
        yield
    except Exception:
        spent_before_failing(args, stagehand.history)
        raise


def snapshot_command(args: argparse.Namespace) -> int:
    stagehand = build_stagehand(args)
    view: SnapshotMode = args.view or ("aria" if args.mode == "aria" else "dom")
    preset = args.mode if args.mode in ("dev", "prod") else None
    with open_page(args.url, stagehand, **browser_options(args, mode=preset)) as page:
        snap = take_snapshot(page, mode=view)
        if args.screenshot:
            annotated_screenshot(page, args.screenshot)
    if json_mode(args):
        chunks = [
            {**chunk.model_dump(mode="json"), "text": snap.render_chunk(chunk.index)}
            for chunk in snap.chunks
        ]
        emit_json(
            args,
            {
                "url": snap.url,
                "title": snap.title,
                "elements": [e.model_dump(mode="json") for e in snap.elements],
                "chunks": chunks,
                "screenshot": args.screenshot,
            },
        )
        return 0
    print(f"{snap.title} - {snap.url}")
    print(f"{len(snap.elements)} elements in {len(snap.chunks)} chunk(s), nearest first")
    for position, chunk in enumerate(snap.chunks, 1):
        count = len(chunk.element_indexes)
        print(f"\n--- chunk {chunk.index} (shown {position}.; {count} elements) ---")
        print(snap.render_chunk(chunk.index))
    if args.screenshot:
        print(f"\nannotated screenshot: {args.screenshot}")
    return 0


def act_command(args: argparse.Namespace) -> int:
    stagehand = build_stagehand(args)
    variables = credential_variables(args)
    with open_page(args.url, stagehand, **browser_options(args)) as page:
        with (
            counted(args, stagehand),
            progress(titled("act", args.instruction, variables), enabled=not args.quiet),
        ):
            result = page.act(args.instruction, variables=variables, raise_on_failure=False)
        code = None
        if args.codegen and result.success:
            # Records hold placeholders only; redacting again is a second lock on the door.
            generated = result.to_playwright_code(args.codegen, url=args.url)
            code = Variables(variables).redact(generated)
        if json_mode(args):
            if result.success:
                emit_result(args, result, code)
        else:
            print(stagehand.history[-1].summary())
            print_code(code, "act")
        usage_out(args, usage_line(stagehand.history))
    if not result.success:
        raise ActError(result.message, result)
    return 0


def check_command(args: argparse.Namespace) -> int:
    stagehand = build_stagehand(args)
    variables = credential_variables(args)
    failed: CheckError | None = None
    with open_page(args.url, stagehand, **browser_options(args)) as page:
        with (
            counted(args, stagehand),
            progress(titled("check", args.statement, variables), enabled=not args.quiet),
        ):
            try:
                result = stagehand.check(page, args.statement, variables=variables)
            except CheckError as error:
                failed, result = error, error.result
        code = None
        if args.codegen and result.compiled:
            generated = result.to_playwright_code(args.codegen, url=args.url)
            code = Variables(variables).redact(generated)  # placeholders only; a second lock
        if json_mode(args):
            if failed is None:
                emit_result(args, result, code)
        else:
            print(stagehand.history[-1].summary())
            print("".join(f"  evidence: {line}\n" for line in result.evidence), end="")
            print_code(code, "check")
        usage_out(args, usage_line(stagehand.history))
    if failed is not None:
        raise failed
    return 0


def _load_schema(path: str | None) -> dict[str, Any] | None:
    if path is None:
        return None
    try:
        schema = json.loads(Path(path).read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigurationError(f"--schema {path}: cannot read a JSON schema ({exc}).") from None
    if not isinstance(schema, dict):
        raise ConfigurationError(f"--schema {path}: a JSON schema must be an object.")
    return schema


def extract_command(args: argparse.Namespace) -> int:
    schema = _load_schema(args.schema)
    stagehand = build_stagehand(args)
    variables = credential_variables(args)
    with open_page(args.url, stagehand, **browser_options(args)) as page:
        with (
            counted(args, stagehand),
            progress(titled("extract", args.instruction, variables), enabled=not args.quiet),
        ):
            keyed = {"cache_key": args.cache_key} if args.cache_key else {}
            outcome = stagehand.extract(
                page, args.instruction, schema, variables=variables, **keyed
            )
        value: Any = outcome.value if schema else outcome.value["text"]
        code = _extraction_code(args, outcome)
        if json_mode(args):
            record = stagehand.history[-1]
            payload = {
                "data": value,
                "cache": outcome.cache,
                "not_compiled": outcome.not_compiled,
                "llm_calls": record.llm_calls,
                "usage": record.usage.model_dump(mode="json"),
            }
            emit_json(args, {**payload, **({"playwright_code": code} if code else {})})
        else:
            print(
                value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
            )
            print_code(code, "extract")
        usage_out(args, usage_line(stagehand.history))
    return 0


def _extraction_code(args: argparse.Namespace, outcome: Any) -> str | None:
    """``--codegen``: the compiled reads as Playwright code; on stderr, why there are none."""
    if not args.codegen:
        return None
    if outcome.compiled is None:
        why = "; ".join(f"{k or '/'}: {v}" for k, v in outcome.not_compiled.items())
        print(
            "no code: this extract was not compiled ("
            + (why or "compiling needs --cache-dir and --schema")
            + ")",
            file=sys.stderr,
        )
        return None
    code: str = outcome.to_playwright_code(args.codegen, url=args.url)
    return code


def observe_command(args: argparse.Namespace) -> int:
    stagehand = build_stagehand(args)
    variables = credential_variables(args)
    with open_page(args.url, stagehand, **browser_options(args)) as page:
        with (
            counted(args, stagehand),
            progress(
                titled("observe", args.instruction or "(main controls)", variables),
                enabled=not args.quiet,
            ),
        ):
            results = page.observe(args.instruction, variables=variables)
        if json_mode(args):
            record = stagehand.history[-1]
            emit_json(
                args,
                {
                    "results": [r.model_dump(mode="json") for r in results],
                    "cache": record.cache,
                    "llm_calls": record.llm_calls,
                    "usage": record.usage.model_dump(mode="json"),
                },
            )
        else:
            if not results:
                print("nothing found")
            for number, found in enumerate(results, 1):
                arguments = ", ".join(repr(a) for a in found.arguments)
                print(f"{number}. {found.description}")
                print(f"   {found.method}({arguments}) on {found.selector}")
        usage_out(args, usage_line(stagehand.history))
    return 0


def cache_command(args: argparse.Namespace) -> int:
    directory = args.cache_dir
    if not directory:
        raise ConfigurationError(
            "The cache commands need --cache-dir DIR (or STAGEHAND_PY_CACHE_DIR)."
        )
    if not Path(directory).is_dir():
        raise CacheError(f"{directory} is not a directory: nothing cached there yet.")
    cache = ActionCache(Path(directory))
    if args.cache_action == "list":
        if json_mode(args):
            entries = [
                {
                    "key": e.key,
                    "kind": e.kind,
                    "instruction": e.instruction,
                    "url": e.url,
                    "actions": len(e.actions) + sum(len(i.actions) for i in e.items or []),
                    "assertions": len(e.assertions or []),
                    "items": len(e.items or []),
                    "fields": e.extraction.field_count if e.extraction is not None else 0,
                    "updated_at": e.updated_at.isoformat(),
                    "healed": e.previous is not None,
                }
                for e in cache.entries()
            ]
            emit_json(args, {"directory": str(directory), "entries": entries})
        else:
            print(list_entries(cache))
    elif args.cache_action == "show":
        entry = cache.find(args.key)
        if json_mode(args):
            payload: dict[str, Any] = {"entry": entry.model_dump(mode="json", exclude_none=True)}
            if args.diff:
                payload["diff"] = entry_diff(entry)
            emit_json(args, payload)
        else:
            print(entry_diff(entry) if args.diff else show_entry(cache, entry.key))
    else:
        removed = clear_entries(cache)
        if json_mode(args):
            emit_json(args, {"directory": str(directory), "removed": removed})
        else:
            print(f"Removed {removed} entr{'y' if removed == 1 else 'ies'} from {directory}.")
    return 0
