"""What the examples share: a local web server for their pages, and a stand-in model.

``model_or_stand_in()`` returns ``None`` when a model is configured (``STAGEHAND_PY_MODEL`` and
its key; ``STAGEHAND_PY_BASE_URL`` too for a local OpenAI-compatible server): the Stagehand then
uses it. Otherwise it returns a ``FunctionLLM`` from ``stagehand_py.testing`` that answers like a
model would from what it is shown: it finds each planned element by a pattern in the numbered
element lines of the prompt, and reads extract answers out of the page text. So every example
runs offline.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from stagehand_py.llm import Message, ToolCall, ToolSpec
from stagehand_py.testing import (
    AsyncFunctionLLM,
    FunctionLLM,
    do_action,
    serve_directory,
    skip_section,
)

PAGES = Path(__file__).resolve().parent / "pages"
_LINE = re.compile(r"^(\d+):(.*)$", re.MULTILINE)
_DONE_STEP = re.compile(r"^\d+\. ", re.MULTILINE)

# A planned action: (method, pattern of the element's line, arguments).
Step = tuple[str, str, list[str]]
PageReader = Callable[[str], dict[str, Any]]


@contextmanager
def serve_pages() -> Iterator[str]:
    """Serve examples/pages on 127.0.0.1; yield the base URL (trailing slash)."""
    with serve_directory(PAGES) as base_url:
        yield base_url


def model_configured() -> bool:
    return bool(os.environ.get("STAGEHAND_PY_MODEL"))


def find_line(text: str, pattern: str) -> int | None:
    """The number of the first ``N:<tag ...>text</tag>`` line matching ``pattern``."""
    for match in _LINE.finditer(text):
        if re.search(pattern, match.group(2)):
            return int(match.group(1))
    return None


class StandIn:
    """Plays a model's part for one example: ``steps`` for act(), readers for the rest."""

    def __init__(
        self,
        steps: list[Step] | None = None,
        *,
        extract: PageReader | None = None,
        observe: dict[str, str] | None = None,
    ) -> None:
        self.steps = list(steps or [])
        self.extract = extract
        self.observe = observe or {}  # instruction word -> pattern of the element line

    def chat(self, messages: list[Message], tools: list[ToolSpec]) -> ToolCall:
        prompt = next(m.content for m in messages if m.role == "user")
        section = next(m.content for m in reversed(messages) if m.role == "user")
        # Like a model, it reads how far the act got from the prompt ("Steps taken so far"),
        # so one stand-in serves any number of acts, one after another or at once.
        done = len(_DONE_STEP.findall(prompt.split("Variables available")[0]))
        if done >= len(self.steps):
            return skip_section("nothing left to do")
        method, pattern, args = self.steps[done]
        element = find_line(section, pattern)
        if element is None:
            return skip_section(f"no element like {pattern} here")
        completed = done + 1 == len(self.steps)
        return do_action(method, element, args, step=f"{method} {pattern}", completed=completed)

    def structured(self, messages: list[Message], schema: type[BaseModel]) -> dict[str, Any]:
        prompt = "\n".join(m.content for m in messages if m.role != "system")
        if schema.__name__ == "VerifyAnswer":
            return {"completed": True, "reason": "the plan is done"}
        if schema.__name__ == "ObserveAnswer":
            return {"elements": self._observed(prompt)}
        if self.extract is None:
            raise AssertionError(f"the stand-in cannot answer {schema.__name__}")
        return {"data": self.extract(prompt), "complete": True}

    def _observed(self, prompt: str) -> list[dict[str, Any]]:
        instruction = prompt.split("\n", 1)[0].lower()
        for word, pattern in self.observe.items():
            element = find_line(prompt, pattern)
            if word in instruction and element is not None:
                return [{"element": element, "description": word, "method": "click"}]
        return []

    def llm(self) -> FunctionLLM:
        return FunctionLLM(chat=self.chat, structured=self.structured, model="stand-in")

    def async_llm(self) -> AsyncFunctionLLM:
        return AsyncFunctionLLM(chat=self.chat, structured=self.structured, model="stand-in")


def model_or_stand_in(stand_in: StandIn) -> FunctionLLM | None:
    """``None`` (use the configured model) or the stand-in, with a note on stderr."""
    if model_configured():
        return None
    print("(no model configured: using an offline stand-in; see examples/README.md)")
    return stand_in.llm()


def async_model_or_stand_in(stand_in: StandIn) -> AsyncFunctionLLM | None:
    """The async twin of :func:`model_or_stand_in` (for ``AsyncStagehand``)."""
    if model_configured():
        return None
    print("(no model configured: using an offline stand-in; see examples/README.md)")
    return stand_in.async_llm()
