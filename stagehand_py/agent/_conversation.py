"""The message manager: what an agent request holds, counted in tokens and kept in budget.

A request is: the system prompt, the task, the variable placeholders hint, an example answer,
the history items of past steps, the current state and any messages of the current step (a
re-ask, a human's feedback). Every text passes the variables filter before it is stored, so no
secret value can reach a request, a log or a saved run.

Tokens are counted per message with a pluggable counter (characters / 4 by default) plus a
fixed cost per image. When a request exceeds ``max_input_tokens`` it is cut, in this order:
1. the oldest images are dropped;
2. history items older than the newest ``max_history_items`` are dropped (one line says so);
3. the longest remaining text (the state first) is truncated proportionally.
The system prompt and the task are never cut. Cuts apply to the request being built; the
stored history stays whole, and each cut is reported (``BuiltRequest.cuts``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .._usage import estimate_tokens
from ..llm._messages import ImagePart, Message
from . import _prompts

TokenCounter = Callable[[str], int]
EntryKind = Literal["system", "task", "variables", "example", "history", "state", "turn"]
_PROTECTED: frozenset[EntryKind] = frozenset({"system", "task", "variables", "example", "turn"})
_CUT_NOTE = "\n[... cut here to fit the token budget]"


@dataclass
class Entry:
    """One message of the conversation and what it costs."""

    kind: EntryKind
    role: Literal["system", "user", "assistant"]
    text: str
    images: list[ImagePart] = field(default_factory=list)
    step: int | None = None


@dataclass
class BuiltRequest:
    """The messages of one request, their estimated tokens and what the budget cut."""

    entries: list[Entry]
    tokens: int
    cuts: list[str]

    @property
    def messages(self) -> list[Message]:
        return [Message(role=e.role, content=e.text, images=list(e.images)) for e in self.entries]

    @property
    def chars(self) -> int:
        return sum(len(e.text) for e in self.entries)

    def dump(self) -> list[dict[str, Any]]:
        """Every message as a plain dict (images as a count), for debugging and saved runs."""
        return [
            {"kind": e.kind, "role": e.role, "content": e.text, "images": len(e.images)}
            for e in self.entries
        ]

    def dump_text(self) -> str:
        parts = []
        for e in self.entries:
            images = f" +{len(e.images)} image(s)" if e.images else ""
            parts.append(f"--- {e.kind} ({e.role}){images} ---\n{e.text}")
        return "\n".join(parts)


class MessageManager:
    """Builds each step's request from the fixed opening, the history and the state."""

    def __init__(
        self,
        task: str,
        *,
        redact: Callable[[str], str],
        placeholders: Sequence[str] = (),
        max_actions: int = 3,
        max_wait_s: float = 10.0,
        max_input_tokens: int = 32_000,
        max_history_items: int = 10,
        count_tokens: TokenCounter = estimate_tokens,
        image_tokens: int = 800,
        system_template: str = _prompts.SYSTEM_PROMPT,
    ) -> None:
        self._redact = redact
        self._count = count_tokens
        self.max_input_tokens = max_input_tokens
        self.max_history_items = max_history_items
        self.image_tokens = image_tokens
        self._opening: list[Entry] = []
        self._history: list[Entry] = []
        self._state: Entry | None = None
        self._turn: list[Entry] = []
        self.last_request: BuiltRequest | None = None
        self._add_opening(
            "system", "system", _prompts.system_prompt(max_actions, max_wait_s, system_template)
        )
        self._add_opening("task", "user", _prompts.task_message(task))
        if placeholders:
            self._add_opening("variables", "user", _prompts.variables_message(placeholders))
        self._add_opening("example", "user", _prompts.example_message())

    # ------------------------------------------------------------------ storing
    def _entry(
        self,
        kind: EntryKind,
        role: Literal["system", "user", "assistant"],
        text: str,
        images: Sequence[ImagePart] = (),
        step: int | None = None,
    ) -> Entry:
        # The one door into the conversation: nothing is stored unfiltered.
        return Entry(kind, role, self._redact(text), list(images), step)

    def _add_opening(
        self, kind: EntryKind, role: Literal["system", "user", "assistant"], text: str
    ) -> None:
        self._opening.append(self._entry(kind, role, text))

    def set_task(self, text: str) -> None:
        """Replace the task message (a checklist workflow rewrites it as its items progress)."""
        for position, entry in enumerate(self._opening):
            if entry.kind == "task":
                self._opening[position] = self._entry("task", "user", text)

    def clear_history(self) -> None:
        """Forget the past steps (a checklist workflow starts each item afresh)."""
        self._history = []

    def add_history(self, step: int, text: str) -> None:
        """A finished step, as later requests see it."""
        self._history.append(self._entry("history", "user", text, step=step))

    def set_state(self, step: int, text: str, images: Sequence[ImagePart] = ()) -> None:
        """The current state (replaces the previous one) and starts a new step's turn."""
        self._state = self._entry("state", "user", text, images, step=step)
        self._turn = []

    def add_turn(self, role: Literal["user", "assistant"], text: str) -> None:
        """A message of the current step only: the model's rejected answer, a re-ask, a
        human's feedback. Dropped when the next state is set."""
        self._turn.append(self._entry("turn", role, text))

    @property
    def state_text(self) -> str:
        """The current state as the model reads it (redacted), or ``""`` before the first."""
        return self._state.text if self._state is not None else ""

    @property
    def history(self) -> list[Entry]:
        return list(self._history)

    def tokens_of(self, entry: Entry) -> int:
        return self._count(entry.text) + self.image_tokens * len(entry.images)

    # ------------------------------------------------------------------ building
    def build(self) -> BuiltRequest:
        """This step's request, cut to ``max_input_tokens`` as the module docstring says."""
        history = [Entry(e.kind, e.role, e.text, list(e.images), e.step) for e in self._history]
        state = self._state
        if state is not None:
            state = Entry(state.kind, state.role, state.text, list(state.images), state.step)
        cuts: list[str] = []

        def assemble() -> list[Entry]:
            return [*self._opening, *history, *([state] if state else []), *self._turn]

        def total() -> int:
            return sum(self.tokens_of(e) for e in assemble())

        budget = self.max_input_tokens
        # 1. the oldest images first
        for entry in [*history, *([state] if state else [])]:
            while entry.images and total() > budget:
                entry.images.pop(0)
                cuts.append(f"image of step {entry.step}")
        # 2. history items beyond the newest max_history_items
        if total() > budget and len(history) > self.max_history_items:
            keep = len(history) - self.max_history_items
            dropped = history[:keep]
            history = history[keep:]
            first, last = dropped[0].step, dropped[-1].step
            span = f"step {first}" if first == last else f"steps {first}-{last}"
            cuts.append(f"history of {span}")
            note = f"[{len(dropped)} earlier step(s) ({span}) omitted to fit the token budget]"
            history.insert(0, self._entry("history", "user", note))
        # 3. the longest text, the state first, truncated proportionally
        while total() > budget:
            cuttable = [e for e in assemble() if e.kind not in _PROTECTED and e.text]
            if not cuttable:
                cuts.append(
                    f"over budget by {total() - budget} tokens: the system prompt, task and "
                    "this step's messages are never cut"
                )
                break
            longest = max(cuttable, key=lambda e: (e.kind == "state", len(e.text)))
            excess = total() - budget
            tokens = self.tokens_of(longest) - self.image_tokens * len(longest.images)
            keep_fraction = max(0.0, (tokens - excess) / tokens) if tokens else 0.0
            keep_chars = max(0, int(len(longest.text) * keep_fraction) - len(_CUT_NOTE) - 8)
            before = len(longest.text)
            longest.text = longest.text[:keep_chars] + _CUT_NOTE if keep_chars else ""
            what = "state" if longest.kind == "state" else f"history of step {longest.step}"
            cuts.append(f"{what} text cut from {before} to {len(longest.text)} characters")
        request = BuiltRequest(assemble(), total(), cuts)
        self.last_request = request
        return request
