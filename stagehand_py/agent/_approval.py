"""Ready approvers: one that asks on the console, one that asks only when a rule matches.

An approver is any callable ``(step, proposed_output, state) -> Approve | Retry(feedback) |
Skip | Cancel`` (async for the async API, if it wants). It sees every action of a step before
any of them runs.
"""

from __future__ import annotations

import re
import select
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TextIO

from .._errors import ConfigurationError
from ._actions import AgentOutput, describe_action
from ._state import AgentState, ApprovalDecision, Approve, Cancel, Retry, Skip

Approver = Callable[[int, AgentOutput, AgentState], ApprovalDecision]
AnyApprover = Callable[
    [int, AgentOutput, AgentState], "ApprovalDecision | Awaitable[ApprovalDecision]"
]


def proposed_lines(output: AgentOutput, state: AgentState) -> list[str]:
    """The proposed actions as numbered lines, each with the element it acts on."""
    lines = []
    for number, action in enumerate(output.actions, 1):
        index = getattr(action, "index", None)
        element = state.element_line(index) if isinstance(index, int) else None
        lines.append(f"{number}. {describe_action(action, element)}")
    return lines


class ConsoleApprover:
    """Asks ``[a]pprove [r]etry [s]kip [c]ancel`` on the console for every step.

    Prints the step's goal and every proposed action (placeholders, never secret values) to
    ``output`` (stderr by default) and reads the answer from ``input`` (stdin). On a terminal
    it stops waiting when the run's time is up and answers ``Cancel``.
    """

    def __init__(self, input: TextIO | None = None, output: TextIO | None = None) -> None:
        self._input = input
        self._output = output

    def __call__(self, step: int, output: AgentOutput, state: AgentState) -> ApprovalDecision:
        out = self._output or sys.stderr
        out.write(f"\nStep {step} on {state.url}\n")
        if output.next_goal:
            out.write(f"Goal: {output.next_goal}\n")
        for line in proposed_lines(output, state):
            out.write(f"  {line}\n")
        while True:
            answer = self._ask(out, "[a]pprove [r]etry [s]kip [c]ancel? ", state.time_left_s)
            if answer is None:
                return Cancel("no answer before the run's time ran out")
            choice = answer.strip().lower()[:1]
            if choice in ("a", "y"):
                return Approve()
            if choice == "s":
                return Skip("skipped on the console")
            if choice == "c":
                return Cancel("cancelled on the console")
            if choice == "r":
                feedback = self._ask(out, "Feedback for the model: ", state.time_left_s)
                if feedback is None:
                    return Cancel("no answer before the run's time ran out")
                return Retry(feedback.strip() or "Try something else.")
            out.write("Please answer a, r, s or c.\n")

    def _ask(self, out: TextIO, prompt: str, time_left_s: float) -> str | None:
        out.write(prompt)
        out.flush()
        source = self._input or sys.stdin
        if source is sys.stdin and _is_terminal(source):
            ready, _, _ = select.select([source], [], [], max(0.0, time_left_s))
            if not ready:
                out.write("\n")
                return None
        line = source.readline()
        if not line:  # end of input: nobody can answer any more
            return None
        return line


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except ValueError:  # a closed stream
        return False


@dataclass(frozen=True)
class ApprovalRule:
    """When to ask: all given conditions must match one proposed action.

    ``actions``: action names (``("click",)``); ``element``: a regular expression searched in
    the element's line (``<button>Pay now</button>``, case-insensitive); ``text``: one searched
    in the action's text arguments (fill/type text, navigate URL, pressed key, option)."""

    actions: tuple[str, ...] = ()
    element: str | None = None
    text: str | None = None

    def __post_init__(self) -> None:
        for pattern in (self.element, self.text):
            if pattern is None:
                continue
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ConfigurationError(
                    f"ApprovalRule pattern {pattern!r} is not a valid regular expression: {exc}."
                ) from None

    def matches(self, output: AgentOutput, state: AgentState) -> list[str]:
        """Descriptions of the proposed actions this rule matches."""
        found = []
        for action in output.actions:
            if self.actions and action.action not in self.actions:
                continue
            index = getattr(action, "index", None)
            line = state.element_line(index) if isinstance(index, int) else None
            if self.element is not None and not (
                line is not None and re.search(self.element, line, re.IGNORECASE)
            ):
                continue
            if self.text is not None:
                values = [
                    str(getattr(action, name))
                    for name in ("text", "url", "key", "option", "instruction")
                    if getattr(action, name, None) is not None
                ]
                if not any(re.search(self.text, v, re.IGNORECASE) for v in values):
                    continue
            found.append(describe_action(action, line))
        return found


class RuleApprover:
    """Approves on its own unless a proposed action matches one of ``rules``; then ``ask``
    decides (a :class:`ConsoleApprover` by default; an async one works with the async API).

    ``RuleApprover.for_clicks("pay|delete|submit")`` asks before clicking any element whose
    line matches the pattern.
    """

    def __init__(self, rules: Sequence[ApprovalRule], ask: AnyApprover | None = None) -> None:
        if not rules:
            raise ConfigurationError("RuleApprover needs at least one ApprovalRule.")
        self.rules = tuple(rules)
        self.ask: AnyApprover = ask if ask is not None else ConsoleApprover()
        self.asked: list[list[str]] = []

    @classmethod
    def for_clicks(cls, element_pattern: str, ask: AnyApprover | None = None) -> RuleApprover:
        return cls([ApprovalRule(actions=("click",), element=element_pattern)], ask)

    def matching(self, output: AgentOutput, state: AgentState) -> list[str]:
        found: list[str] = []
        for rule in self.rules:
            found.extend(m for m in rule.matches(output, state) if m not in found)
        return found

    def __call__(
        self, step: int, output: AgentOutput, state: AgentState
    ) -> ApprovalDecision | Awaitable[ApprovalDecision]:
        matched = self.matching(output, state)
        if not matched:
            return Approve()
        self.asked.append(matched)
        return self.ask(step, output, state)


def check_decision(decision: object) -> ApprovalDecision:
    """The approver's answer, or a ConfigurationError saying what it must return."""
    if isinstance(decision, (Approve, Retry, Skip, Cancel)):
        return decision
    raise ConfigurationError(
        f"The approval callback returned {type(decision).__name__}; it must return "
        "Approve(), Retry(feedback), Skip() or Cancel() (from stagehand_py.agent)."
    )
