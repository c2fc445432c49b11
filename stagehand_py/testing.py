"""Fakes for your own tests: models that answer from a script or a function, offline.

Models
    ``ScriptedLLM`` / ``AsyncScriptedLLM`` answer each request with the next queued item and
    keep every request they received (``.requests``, each a ``RecordedRequest`` with its
    ``options.kind``: act, verify, observe, extract, agent ...), so a test can assert on what
    the model was sent. ``FunctionLLM`` / ``AsyncFunctionLLM`` compute answers with your
    functions ``chat(messages, tools)`` and ``structured(messages, schema)``; a function with a
    third parameter also gets the request's ``RequestContext`` (``kind``, the ``snapshot``
    shown, the ``section``, the ``step`` count, the ``attempt``, and ``find("Save")`` for the
    number of the shown element whose text is Save). Use the sync
    fakes with ``Stagehand`` and the async ones with ``AsyncStagehand`` (the other way round is
    a ``ConfigurationError``).

Replies, one builder per kind of request
    act (a chat request with tools)
        ``do_action(method, element, args=(), *, step, why, completed)``: act on element N;
        ``skip_section(reason)``: the element is not in the section shown;
        ``tool_call(name, **arguments)``: any other tool call.
    verify (after ``completed=True``)
        ``verify_answer(completed=True, reason="")``.
    observe
        ``observe_answer(*elements)``: element numbers, or ``observed(element, description,
        method="click", arguments=())`` for more; none means nothing was found.
    extract (one request per part of the page)
        ``extract_answer(data, *, complete=True)``: ``data`` shaped like your schema (a dict
        or an instance); ``complete=False`` asks for the next part.
    check (one request per part of the page, usually one)
        ``check_answer(holds=True, *assertions, reason="", evidence=(), why_not=None)``:
        whether the statement holds and the assertions that compile it, each
        ``expectation(kind, element=None, value=None)``, e.g. ``expectation("to_have_text", 5,
        "42.00")``; ``why_not="..."`` says it cannot be compiled.
    agent (one request per step)
        ``agent_output(*actions, thinking="", evaluation_previous_goal="", memory="",
        next_goal="")``: a plain dict the agent's output model validates; each action is a
        dict in the agent's action format, named by its ``action`` field, with the element's
        number as ``index``, e.g. ``{"action": "click", "index": 3}``,
        ``{"action": "fill", "index": 4, "text": "<|EMAIL|>"}`` or
        ``{"action": "done", "success": True, "text": "Ordered."}``.

A scripted act with its verify answer::

    llm = ScriptedLLM(do_action("click", 4, completed=True), verify_answer(True, "sent"))

Pages
    ``serve_directory(path)`` serves your fixture pages from 127.0.0.1 in a ``with`` block.
"""

from __future__ import annotations

from ._async.llm.testing import (
    AsyncFunctionLLM,
    AsyncScriptedLLM,
    RecordedRequest,
    RequestContext,
)
from ._fake_support import (
    agent_output,
    check_answer,
    do_action,
    expectation,
    extract_answer,
    observe_answer,
    observed,
    skip_section,
    tool_call,
    verify_answer,
)
from ._page_server import serve_directory
from ._sync.llm.testing import FunctionLLM, ScriptedLLM

__all__ = [
    "AsyncFunctionLLM",
    "AsyncScriptedLLM",
    "FunctionLLM",
    "RecordedRequest",
    "RequestContext",
    "ScriptedLLM",
    "agent_output",
    "check_answer",
    "do_action",
    "expectation",
    "extract_answer",
    "observe_answer",
    "observed",
    "serve_directory",
    "skip_section",
    "tool_call",
    "verify_answer",
]
