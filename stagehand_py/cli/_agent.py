"""The ``agent`` command: let the model drive a page, step by step, until a task is done.

Progress (each step's goal and each action's outcome) goes to stderr as it happens; the run's
summary and usage go to stdout (with ``--json``, the run as one JSON object and usage on stderr).
``--approve`` asks on the console before every step. ``--timeout`` and ``--max-steps`` are the
command line's shared limit options; here they bound the whole run and its steps.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from .._variables import Variables
from ..agent import ConsoleApprover
from ._commands import add_codegen_option, add_page_command, usage_out
from ._output import emit_json, json_mode, print_code, run_failed
from ._progress import progress
from ._session import browser_options, build_stagehand, open_page, usage_line
from ._variables import add_variable_options, credential_variables


def add_agent_command(
    commands: Any, page_options: Callable[[argparse.ArgumentParser], None]
) -> None:
    """Register ``agent`` on the command line's sub-parsers."""
    agent = add_page_command(
        commands,
        "agent",
        "task",
        "what to get done; <|NAME|> stands for a variable",
        url_help="the page to start from",
        help="let the model drive a page step by step until a task is done",
        description="Observe, think, act, step after step, until the model says the task is "
        "done. Exit code 0 when it succeeded, 1 when it did not (the reason on stderr).",
        run=agent_command,
    )
    agent.add_argument(
        "--approve", action="store_true", help="approve, retry, skip or cancel every step"
    )
    agent.add_argument("--vision", action="store_true", help="send a screenshot with each step")
    agent.add_argument("--save", metavar="FILE", help="write the run as JSON (screenshots beside)")
    add_variable_options(agent, "task")
    agent.add_argument(
        "--allow-domain",
        action="append",
        metavar="PATTERN",
        help="only let the agent reach hosts matching this glob (repeatable)",
    )
    add_codegen_option(agent, "the run's actions")
    page_options(agent)


def agent_command(args: argparse.Namespace) -> int:
    variables = credential_variables(args)
    limits: dict[str, Any] = {"use_vision": args.vision}
    if args.max_steps is not None:
        limits["max_steps"] = args.max_steps
    if args.allow_domain:
        limits["allowed_domains"] = args.allow_domain
    if args.timeout is not None:
        limits["timeout_s"] = args.timeout
    stagehand = build_stagehand(args)
    approval = ConsoleApprover() if args.approve else None
    title = Variables(variables).redact(args.task)
    with open_page(args.url, stagehand, **browser_options(args)) as page:
        with progress(f"agent: {title}", enabled=not args.quiet):
            result = page.agent(args.task, variables=variables, approval=approval, **limits)
        saved = result.save(args.save) if args.save else None
        code = None
        if args.codegen and result.success:
            # The history holds placeholders only; redacting again is a second lock.
            code = Variables(variables).redact(
                result.to_playwright_code(args.codegen, url=args.url)
            )
        payload: dict[str, Any] = {}
        if json_mode(args):
            payload["result"] = result.model_dump(mode="json")
            if saved is not None:
                payload["saved"] = str(saved)
            if code is not None:
                payload["playwright_code"] = code
            if result.success:
                emit_json(args, payload)  # else it goes out with the error, below
        else:
            print(result.summary())
            if result.data is not None:
                print(f"data: {result.data}")
            if saved is not None:
                print(f"saved: {saved}")
            print_code(code, "run")
        usage_out(args, usage_line(stagehand.history))
    if not result.success:
        first = result.final_text.strip().splitlines()[0] if result.final_text.strip() else ""
        return run_failed(args, "agent", result.reason, first, payload)
    return 0
