"""Fakes for your own tests: models that answer from a script or a function, offline.

``ScriptedLLM``/``AsyncScriptedLLM`` answer each request with the next queued item and keep
every request they received (``.requests``), so a test can assert on what the model was
sent. ``FunctionLLM``/``AsyncFunctionLLM`` compute answers with your functions.
``do_action``, ``skip_section`` and ``tool_call`` build the tool calls act() expects.
``serve_directory(path)`` serves your fixture pages from 127.0.0.1 in a ``with`` block.
"""

from __future__ import annotations

from ._async.llm.testing import (
    AsyncFunctionLLM,
    AsyncScriptedLLM,
    RecordedRequest,
    do_action,
    skip_section,
    tool_call,
)
from ._page_server import serve_directory
from ._sync.llm.testing import FunctionLLM, ScriptedLLM

__all__ = [
    "AsyncFunctionLLM",
    "AsyncScriptedLLM",
    "FunctionLLM",
    "RecordedRequest",
    "ScriptedLLM",
    "do_action",
    "serve_directory",
    "skip_section",
    "tool_call",
]
