"""The README model: a fake that knows what the README's instructions mean on the pages under
``tests/pages/ci/sites/``, and works it out from what it is sent, as a model would.

act: each instruction has a plan of ``(method, pattern of the element's line, arguments)``;
the step to take next is read from the prompt ("Steps taken so far"), and the element number
from the section shown. verify: done. observe and extract: a pattern or a reader per
instruction. check: the pattern of the element a statement is about, and the assertion that
compiles it. An instruction it does not know fails loudly, naming this file: a new README
block that talks to the model needs its plan here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from stagehand_py.llm import Message, ToolCall, ToolSpec
from stagehand_py.testing import (
    AsyncFunctionLLM,
    FunctionLLM,
    check_answer,
    do_action,
    expectation,
    extract_answer,
    observe_answer,
    observed,
    skip_section,
    verify_answer,
)

Plan = list[tuple[str, str, list[str]]]

_SEARCH: Plan = [
    ("fill", r'^<input\b[^>]*type="search"', ["walnut lamp"]),
    ("click", r"^<button\b[^>]*>Search", []),
    ("click", r"^<a\b[^>]*>Walnut desk lamp", []),
]
ACT_PLANS: dict[str, Plan] = {
    "search for walnut lamp and open the first result": _SEARCH,
    "accept the cookies": [("click", r"^<button\b[^>]*>Accept cookies", [])],
    "log in as <|USER|> with <|PASSWORD|>": [
        ("fill", r'^<input\b[^>]*name="user"', ["<|USER|>"]),
        ("fill", r'^<input\b[^>]*type="password"', ["<|PASSWORD|>"]),
        ("click", r"^<button\b[^>]*>Log in", []),
    ],
    "fill all form fields with <|EMAIL|> and <|PASSWORD|>": [
        ("fill", r'^<input\b[^>]*type="email"', ["<|EMAIL|>"]),
        ("fill", r'^<input\b[^>]*type="password"', ["<|PASSWORD|>"]),
    ],
    "submit the form": [("click", r"^<button\b[^>]*>Create account", [])],
    "add the lamp to the cart": [("click", r"^<button\b[^>]*>Add to cart", [])],
}
# observe instruction -> (pattern of the element's line, description, method, arguments)
OBSERVE: dict[str, tuple[str, str, str, list[str]]] = {
    "the add-to-cart button": (r"^<button\b[^>]*>Add to cart", "Add to cart button", "click", []),
    "the search box": (r'^<input\b[^>]*type="search"', "the search box", "fill", ["walnut lamp"]),
}


# check statement -> (pattern of the element's line, assertion kind, expected value)
CHECKS: dict[str, tuple[str, str, str]] = {
    "the cart shows 1 item": (r'^<span\b[^>]*id="cart-count"', "to_have_text", "1"),
    "the page says 'Thanks for joining'": (
        r"Thanks for joining",
        "to_contain_text",
        "Thanks for joining",
    ),
}


def _featured(text: str) -> dict[str, Any]:
    match = re.search(r"(Walnut desk lamp)\]?\s*:?\s*EUR ([\d.]+)", text)
    return {"name": match.group(1), "price": float(match.group(2))} if match else {}


def _product(text: str) -> dict[str, Any]:
    name = re.search(r"^# (.+)$", text, re.MULTILINE)
    price = re.search(r"EUR ([\d.]+)", text)
    found: dict[str, Any] = {}
    if name:
        found["name"] = name.group(1).strip()
    if price:
        found["price"] = float(price.group(1))
    return found


def _rows(text: str) -> dict[str, Any]:
    rows = re.findall(r"\| ([A-Z][A-Za-z ]+?) \| ([\d.]+) \|", text)
    return {"rows": [{"name": name, "price": float(price)} for name, price in rows]}


EXTRACT: dict[str, Callable[[str], dict[str, Any]]] = {
    "the product's name and price": _product,
    "the featured product's name and price": _featured,
    "the featured product": lambda text: {"name": _featured(text).get("name")},
    "every row": _rows,
}

_LINE = re.compile(r"^(\d+):(.*)$", re.MULTILINE)
_DONE_STEP = re.compile(r"^\d+\. ", re.MULTILINE)
HERE = "tests/readme_harness/readme_model.py"


def _field(prompt: str, name: str) -> str:
    match = re.search(rf"^{name}: (.*)$", prompt, re.MULTILINE)
    return " ".join(match.group(1).split()) if match else ""


def _find(text: str, pattern: str) -> int | None:
    for match in _LINE.finditer(text):
        if re.search(pattern, match.group(2)):
            return int(match.group(1))
    return None


class ReadmeModel:
    def chat(self, messages: list[Message], tools: list[ToolSpec]) -> ToolCall:
        prompt = next(m.content for m in messages if m.role == "user")
        goal = _field(prompt, "Goal")
        plan = ACT_PLANS.get(goal)
        if plan is None:
            raise AssertionError(f"The README model has no plan for act({goal!r}): add to {HERE}")
        section = next(m.content for m in reversed(messages) if m.role == "user")
        done = len(_DONE_STEP.findall(prompt.split("Variables available")[0]))
        if done >= len(plan):
            return skip_section("the plan is done")
        method, pattern, args = plan[done]
        element = _find(section.split("position first):")[-1], pattern)
        if element is None:
            return skip_section("not in this section")
        return do_action(method, element, args, completed=done + 1 == len(plan))

    def structured(self, messages: list[Message], schema: type[BaseModel]) -> Any:
        prompt = "\n".join(m.content for m in messages if m.role != "system")
        if schema.__name__ == "VerifyAnswer":
            return verify_answer(True, "the plan is done")
        if schema.__name__ == "CheckAnswer":
            return self._check(prompt)
        instruction = _field(prompt, "Instruction")
        if schema.__name__ == "ObserveAnswer":
            if instruction not in OBSERVE:
                raise AssertionError(f"No observe answer for {instruction!r}: add it to {HERE}")
            pattern, description, method, arguments = OBSERVE[instruction]
            element = _find(prompt, pattern)
            found = [] if element is None else [observed(element, description, method, arguments)]
            return observe_answer(*found)
        reader = EXTRACT.get(instruction)
        if reader is None:
            raise AssertionError(f"No extract reader for {instruction!r}: add it to {HERE}")
        return extract_answer(reader(prompt))

    def _check(self, prompt: str) -> Any:
        statement = _field(prompt, "Statement")
        if statement not in CHECKS:
            raise AssertionError(f"No check answer for {statement!r}: add it to {HERE}")
        pattern, kind, value = CHECKS[statement]
        element = _find(prompt, pattern)
        if element is None:
            return check_answer(False, reason=f"no element on the page matches {pattern}")
        return check_answer(True, expectation(kind, element, value), reason="it is shown")

    def sync_llm(self) -> FunctionLLM:
        return FunctionLLM(chat=self.chat, structured=self.structured, model="readme-model")

    def async_llm(self) -> AsyncFunctionLLM:
        return AsyncFunctionLLM(chat=self.chat, structured=self.structured, model="readme-model")


README_MODEL = ReadmeModel()
