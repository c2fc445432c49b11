"""The ``workflow`` and ``history`` commands.

``pystagehand workflow URL "text"`` turns the text into a checklist and works through it on
the page (progress on stderr; the checklist as it ended, each item and the usage on stdout).
``pystagehand history list|show|clear`` reads or clears the per-site workflow history. With
``--json`` each prints one JSON object on stdout and nothing else.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Any

from .._errors import ConfigurationError
from .._variables import Variables
from ..workflow._history import HISTORY_DIR_ENV, SiteHistory, WorkflowHistory
from ._commands import add_page_command, usage_out
from ._output import add_json_option, emit_json, json_mode, run_failed
from ._progress import progress
from ._session import browser_options, build_stagehand, open_page, usage_line
from ._variables import add_variable_options, credential_variables


def add_workflow_commands(
    commands: Any, page_options: Callable[[argparse.ArgumentParser], None]
) -> None:
    """Register ``workflow`` and ``history`` on the command line's sub-parsers."""
    workflow = add_page_command(
        commands,
        "workflow",
        "text",
        "the request, in plain words; <|NAME|> stands for a variable",
        url_help="the page to start from",
        help="turn a request into a checklist and work through it on a page",
        description="One model request turns TEXT into a checklist; each item then runs step "
        "by step until its completion check says it is done. Exit code 0 when every item is "
        "done, 1 otherwise (the reason on stderr).",
        run=workflow_command,
    )
    add_variable_options(workflow, "text")
    workflow.add_argument(
        "--fallback-model", metavar="MODEL", help="the model emergency mode switches to"
    )
    _add_history_dir(workflow, "per-site workflow history", "; none when unset")
    workflow.add_argument("--no-sitemap", action="store_true", help="no sitemap hints")
    workflow.add_argument(
        "--view", choices=("aria", "dom"), help="how pages are read before any escalation (aria)"
    )
    workflow.add_argument("--max-attempts", type=int, metavar="N", help="steps per item (12)")
    page_options(workflow)  # its --timeout is the workflow's budget (default 900 s)

    history = commands.add_parser(
        "history", help="list, show or clear the per-site workflow history"
    )
    history.add_argument(
        "history_action",
        choices=("list", "show", "clear"),
        help="list the sites, show one, or clear one (or all)",
    )
    history.add_argument(
        "site", nargs="?", help="a site (domain or URL): for show, or to clear one"
    )
    _add_history_dir(history, "per-site workflow history directory")
    add_json_option(history)
    history.set_defaults(run=history_command)


def _add_history_dir(parser: argparse.ArgumentParser, what: str, unset: str = "") -> None:
    """``--history-dir``, whose default is the environment's."""
    parser.add_argument(
        "--history-dir",
        default=os.environ.get(HISTORY_DIR_ENV),
        help=f"{what} (default: ${HISTORY_DIR_ENV}{unset})",
    )


def workflow_command(args: argparse.Namespace) -> int:
    variables = credential_variables(args)
    limits: dict[str, Any] = {}
    if args.view:
        limits["view"] = args.view
    if args.max_attempts is not None:
        limits["max_attempts"] = args.max_attempts
    if args.timeout is not None:
        limits["timeout_s"] = args.timeout
    stagehand = build_stagehand(args)
    title = Variables(variables).redact(args.text)
    with open_page(args.url, stagehand, **browser_options(args)) as page:
        with progress(f"workflow: {title}", enabled=not args.quiet):
            result = page.workflow(
                args.text,
                variables=variables,
                fallback_model=args.fallback_model,
                history_dir=args.history_dir or None,
                sitemap=False if args.no_sitemap else None,
                **limits,
            )
        payload: dict[str, Any] = {}
        if json_mode(args):
            payload["result"] = result.model_dump(mode="json")
            if result.success:
                emit_json(args, payload)  # else it goes out with the error, below
        else:
            print(result.summary())
            print("checklist:")
            print("\n".join(f"  {line}" for line in result.checklist))
            if result.replayed:
                print(f"replayed from history: items {', '.join(map(str, result.replayed))}")
        usage_out(args, usage_line(stagehand.history))
    if not result.success:
        return run_failed(args, "workflow", result.reason, result.message, payload)
    return 0


def _history(args: argparse.Namespace) -> WorkflowHistory:
    if not args.history_dir:
        raise ConfigurationError(
            f"No history directory: pass --history-dir DIR or set {HISTORY_DIR_ENV}."
        )
    return WorkflowHistory(args.history_dir)


def history_command(args: argparse.Namespace) -> int:
    history = _history(args)
    if json_mode(args):
        return _history_json(args, history)
    if args.history_action == "list":
        domains = history.domains()
        if not domains:
            print(f"no workflow history in {history.directory}")
        for domain in domains:
            site = history.site(domain)
            print(
                f"{domain}  {len(site.flows)} flow(s), {len(site.failures)} failure(s), "
                f"{len(site.checklists)} checklist(s)"
            )
        return 0
    if args.history_action == "show":
        if not args.site:
            raise ConfigurationError("history show needs a SITE (a domain or a URL).")
        print(format_site(history.site(history.domain_of(args.site))))
        return 0
    removed = history.clear(args.site)
    what = f"the history of {history.domain_of(args.site)}" if args.site else "the history"
    print(f"cleared {what}: {removed} file(s) removed")
    return 0


def _history_json(args: argparse.Namespace, history: WorkflowHistory) -> int:
    directory = str(history.directory)
    if args.history_action == "list":
        sites: list[dict[str, Any]] = []
        for domain in history.domains():
            stored = history.site(domain)
            sites.append(
                {
                    "domain": domain,
                    "flows": len(stored.flows),
                    "failures": len(stored.failures),
                    "checklists": len(stored.checklists),
                }
            )
        emit_json(args, {"directory": directory, "sites": sites})
        return 0
    if args.history_action == "show":
        if not args.site:
            raise ConfigurationError("history show needs a SITE (a domain or a URL).")
        site = history.site(history.domain_of(args.site))
        emit_json(args, {"directory": directory, "site": site.model_dump(mode="json")})
        return 0
    cleared = history.domain_of(args.site) if args.site else None
    removed = history.clear(args.site)
    emit_json(args, {"directory": directory, "site": cleared, "removed": removed})
    return 0


def format_site(site: SiteHistory) -> str:
    """Every flow, failure and checklist of one site, readable."""
    lines = [f"site: {site.domain}"]
    if not (site.flows or site.failures or site.checklists):
        lines.append("  (nothing stored)")
    for stored in site.checklists:
        lines.append(f"checklist ({stored.recorded_at:%Y-%m-%d}): {stored.request}")
        lines.extend(f"  [] {item}" for item in stored.checklist)
    for flow in site.flows:
        replay = "" if flow.replayable else " (not replayable)"
        lines.append(
            f"flow ({flow.recorded_at:%Y-%m-%d}) on {flow.start_path}{replay}: {flow.item}"
        )
        lines.extend(f"  - {step}" for step in flow.steps)
    for failure in site.failures:
        lines.append(
            f"failure ({failure.recorded_at:%Y-%m-%d}) {failure.code} at {failure.url}: "
            f"{failure.item}: {failure.message}"
        )
    return "\n".join(lines)
