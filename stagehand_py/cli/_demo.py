"""``demo``: act, extract and observe on the bundled example page with the configured model.

With no model configured it prints what to set and the first request the model would have
been sent, and exits 0: nothing failed, nothing was sent. ``--fake`` runs the whole flow
offline with a stand-in that knows the demo page.
"""

from __future__ import annotations

import argparse
from contextlib import suppress
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from .._errors import ConfigurationError, StagehandError
from .._page_server import serve_directory
from .._sync.page import StagehandPage
from .._sync.stagehand import Stagehand
from ..testing import FunctionLLM
from ._demo_model import DemoModel, PromptRecorder
from ._output import emit_json, json_mode, note
from ._progress import progress
from ._session import browser_options, build_stagehand, open_page, usage_line

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples_data"
SIGNUP = (
    "Sign up for the coffee club as <|NAME|> with email <|EMAIL|> and password <|PASSWORD|>, "
    "espresso grind, on the Pro plan, then create the account"
)
# Demo values; the password shows that a variable's value never reaches the model.
DEMO_VARIABLES = {"name": "Ada Lovelace", "email": "ada@example.com", "password": "Demo-Pa55-0412"}
DASHBOARD = "the button that opens the member dashboard"
SYSTEM_LINES_SHOWN = 6

SETUP_HELP = """\
No model is configured, so the demo stopped before asking one. Set one of:

  OpenAI:     export STAGEHAND_PY_MODEL=openai/gpt-4.1-mini OPENAI_API_KEY=sk-...
  Anthropic:  export STAGEHAND_PY_MODEL=anthropic/claude-sonnet-4-5 ANTHROPIC_API_KEY=sk-ant-...
  A local OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio):
      python -m stagehand_py demo --base-url http://127.0.0.1:11434/v1 --model openai/llama3.1
  No model at all (scripted answers, to see the flow):  python -m stagehand_py demo --fake
"""


class Membership(BaseModel):
    """What the demo extracts from the confirmation page."""

    name: str = Field(description="the member's full name")
    plan: str = Field(description="the plan's name")
    monthly_price_eur: float = Field(description="the monthly price in EUR")
    member_number: str = Field(description="the member number, like NW-12345")


def demo_command(args: argparse.Namespace) -> int:
    llm: Any = None
    if args.fake:
        model = DemoModel()
        llm = FunctionLLM(chat=model.chat, structured=model.structured, model="demo-fake")
    stagehand = build_stagehand(args, llm=llm)
    try:
        stagehand.llm  # noqa: B018  (creating the client is what checks the configuration)
    except ConfigurationError as exc:
        return _show_what_to_set(args, str(exc))
    say = note if json_mode(args) else print  # JSON mode: only the JSON object on stdout
    with serve_directory(EXAMPLES_DIR) as base_url:
        url = base_url + "demo.html"
        say(f"stagehand_py demo: model {stagehand.llm.model}; page {url}")
        with open_page(url, stagehand, **browser_options(args)) as page:
            outcome = _run_flow(page, stagehand, quiet=args.quiet, say=say)
    say(usage_line(stagehand.history))
    if json_mode(args):
        emit_json(args, {"model": stagehand.llm.model, **outcome})
    return 0


def _run_flow(
    page: StagehandPage, stagehand: Stagehand, *, quiet: bool, say: Any = print
) -> dict[str, Any]:
    say(f"\n1. act: {SIGNUP}")
    with progress("act", enabled=not quiet):
        acted = page.act(SIGNUP, variables=DEMO_VARIABLES)
    say(_indent(stagehand.history[-1].summary()))
    shown = page.locator("#member-name").inner_text()
    say(f"   page check: the confirmation names {shown!r}")

    say("\n2. extract: the membership details")
    with progress("extract", enabled=not quiet):
        membership = page.extract(
            "the membership details: member name, plan, monthly price in EUR, member number",
            schema=Membership,
        )
    say(f"   {membership!r}")
    for line in _placeholder_notes(membership):
        say(f"   {line}")

    say(f"\n3. observe: {DASHBOARD}")
    with progress("observe", enabled=not quiet):
        found = page.observe(DASHBOARD)
    for number, item in enumerate(found, 1):
        say(f"   {number}. {item.description}: {item.method} on {item.selector}")
    dashboard = None
    if found:
        replay = page.act(found[0])
        say(f"   act(observed) -> {replay.message or 'ok'} ({replay.llm_calls} LLM call(s))")
        shown_note = page.locator("#dashboard-note")
        dashboard = shown_note.inner_text() if shown_note.is_visible() else None
        say(f"   page check: {dashboard or 'dashboard not open'}")
    say("")
    return {
        "act": acted.model_dump(mode="json"),
        "member_name_shown": shown,
        "extract": membership.model_dump(mode="json"),
        "observe": [item.model_dump(mode="json") for item in found],
        "dashboard": dashboard,
    }


def _placeholder_notes(membership: BaseModel) -> list[str]:
    """Why a field holds a placeholder: a value passed as a variable is a secret, redacted in
    every later result of the page it was used on (the page itself still shows it)."""
    notes = []
    for field, value in membership.model_dump().items():
        held = [
            f"<|{name.upper()}|>" for name in DEMO_VARIABLES if f"<|{name.upper()}|>" in str(value)
        ]
        if held:
            notes.append(
                f"({field} is {held[0]}: a value passed as a variable is a secret, so this "
                "page's later results show its placeholder; the page check above read the value "
                "from the page itself)"
            )
    return notes


def _show_what_to_set(args: argparse.Namespace, reason: str) -> int:
    if json_mode(args):
        return _what_to_set_json(args, reason)
    print(SETUP_HELP)
    print(f"(why: {reason.splitlines()[0]})\n")
    recorder = _capture_first_request(args)
    if not recorder.messages:
        print("(the demo could not capture the request)")
        return 0
    tools = ", ".join(tool.name for tool in recorder.tools) or "none"
    print(f"The first request the model would have been sent (tools: {tools}):")
    for message in recorder.messages:
        lines = message.content.splitlines()
        if message.role == "system" and len(lines) > SYSTEM_LINES_SHOWN:
            hidden = len(lines) - SYSTEM_LINES_SHOWN
            lines = [*lines[:SYSTEM_LINES_SHOWN], f"(... {hidden} more lines)"]
        print(f"---- {message.role} ----")
        print("\n".join(lines))
    return 0


def _capture_first_request(args: argparse.Namespace) -> PromptRecorder:
    recorder = PromptRecorder()
    stagehand = Stagehand(llm=recorder)
    with (
        serve_directory(EXAMPLES_DIR) as base_url,
        open_page(base_url + "demo.html", stagehand, **browser_options(args)) as page,
        suppress(StagehandError),  # the recorder stops the act once it holds the request
    ):
        page.act(SIGNUP, variables=DEMO_VARIABLES)
    return recorder


def _what_to_set_json(args: argparse.Namespace, reason: str) -> int:
    recorder = _capture_first_request(args)
    emit_json(
        args,
        {
            "configured": False,
            "why": reason.splitlines()[0],
            "help": SETUP_HELP,
            "tools": [tool.name for tool in recorder.tools],
            "request": [
                {"role": message.role, "content": message.content} for message in recorder.messages
            ],
        },
    )
    return 0


def _indent(text: str) -> str:
    return "\n".join("   " + line for line in text.splitlines())
