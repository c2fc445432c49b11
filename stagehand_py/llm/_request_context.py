"""What a model request is about, for fakes: the snapshot shown, the section, the step.

The loops set it around each request (:func:`request_context`); ``FunctionLLM`` passes it to
a function that takes a third argument, so a test can answer "the element whose text is
Save" from the snapshot instead of parsing the prompt. Real clients never read it.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from dataclasses import dataclass, field

from .._errors import ElementNotFoundError
from .._snapshot import Element, Snapshot


@dataclass(frozen=True)
class RequestContext:
    """The request being answered.

    ``kind``: act, verify, observe, extract or agent. ``snapshot``: the page as numbered
    elements (each with its ``selectors``); None for an extract that reads the page text (a
    compiled extract shows numbered elements).
    ``section``: the chunk indexes shown in this request; ``shown``: the element numbers the
    model may choose from. ``step``: actions taken so far in this act (the step number for
    the agent); ``attempt``: 1 for the first ask, 2 for the first re-ask...
    ``instruction``: the call's instruction (redacted).
    """

    kind: str
    instruction: str = ""
    snapshot: Snapshot | None = None
    section: tuple[int, ...] = ()
    shown: frozenset[int] = field(default_factory=frozenset)
    step: int = 0
    attempt: int = 1

    def elements(self) -> list[Element]:
        """The elements the model may choose from in this request (all, when not narrowed)."""
        if self.snapshot is None:
            return []
        return [e for e in self.snapshot.elements if not self.shown or e.index in self.shown]

    def find(self, text: str | None = None, *, tag: str | None = None, exact: bool = False) -> int:
        """The number of the first shown element whose text (or accessible name, or
        ``aria-label``/``placeholder``/``value``) contains ``text`` (equals it with
        ``exact=True``, both case-insensitively) and whose tag is ``tag`` when given.

        Raises :class:`~stagehand_py.ElementNotFoundError` naming what was looked for."""
        wanted = (text or "").strip().lower()
        for element in self.elements():
            if tag is not None and element.tag != tag:
                continue
            if text is None:
                return element.index
            labels = [element.text, element.name, *element.attributes.values(), *element.options]
            for label in (x.strip().lower() for x in labels if x):
                if (label == wanted) if exact else (wanted in label):
                    return element.index
        shown = ", ".join(f"{e.index}:{e.tag} {e.text[:20]!r}" for e in self.elements()[:30])
        raise ElementNotFoundError(
            f"No element shown in this {self.kind} request has text {text!r}"
            + (f" and tag {tag!r}" if tag else "")
            + f". Shown: {shown or 'nothing'}.",
            [],
        )


_CURRENT: contextvars.ContextVar[RequestContext | None] = contextvars.ContextVar(
    "stagehand_py_request_context", default=None
)


def current_request_context() -> RequestContext | None:
    """The context of the request being made in this task or thread, if a loop set one."""
    return _CURRENT.get()


@contextlib.contextmanager
def request_context(context: RequestContext) -> Iterator[RequestContext]:
    """Make ``context`` current for the requests made inside the ``with`` block."""
    token = _CURRENT.set(context)
    try:
        yield context
    finally:
        _CURRENT.reset(token)
