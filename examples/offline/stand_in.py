"""The stand-in model: what a model would answer to the examples' requests, worked out from
what it is sent (the numbered element lines, the page text), as a model would.

Each act instruction has a plan: ``(method, pattern, arguments)``, the pattern ending on the
element's line (text before it, such as a heading, may anchor it); the step to take next is
read from the prompt ("Steps taken so far"). observe, extract and check
answers are found by a pattern in what the request shows. An instruction it does not know
gets a plain "nothing to do" (act) or fails loudly, naming this file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from stagehand_py.llm import ToolCall
from stagehand_py.testing import check_answer, do_action, expectation, skip_section

Plan = list[tuple[str, str, list[str]]]
HERE = "examples/offline/stand_in.py"

ACT_PLANS: dict[str, Plan] = {
    # fill_form.py, on pages/signup.html
    "subscribe <|FIRST_NAME|> (<|EMAIL|>) to the cycling newsletter, accepting emails": [
        ("fill", r"^\d+:<input\b[^>]*first", ["<|FIRST_NAME|>"]),
        ("fill", r"^\d+:<input\b[^>]*email", ["<|EMAIL|>"]),
        ("select_option", r"^\d+:<select\b", ["Cycling"]),
        ("check", r"^\d+:<input\b[^>]*checkbox", []),
        ("click", r"^\d+:<button\b[^>]*>Subscribe", []),
    ],
    # scrape_many.py, on pages/product.html
    "open the product specifications": [("click", r"^\d+:<button\b[^>]*>Show specifications", [])],
    # test_checkout_suite, on pages/shop.html
    "add the blue mug to the cart": [("click", r"Blue mug.*?^\d+:<button\b[^>]*>Add to cart", [])],
    "fill the shipping form with <|NAME|>, <|EMAIL|> and card <|CARD|>, express delivery": [
        ("fill", r"^\d+:<input\b[^>]*name=\"name\"", ["<|NAME|>"]),
        ("fill", r"^\d+:<input\b[^>]*email", ["<|EMAIL|>"]),
        ("fill", r"^\d+:<input\b[^>]*card", ["<|CARD|>"]),
        ("click", r"^\d+:<(input|label)\b[^>]*(express|Express)", []),
    ],
}
# observe instruction (a word of it) -> pattern of the lines of the elements it finds
OBSERVE: dict[str, str] = {
    "next page": r"^<a\b[^>]*>Next page",
    "add to cart": r"^<button\b[^>]*>Add to cart",
}
# check statement -> (pattern of the element's line, assertion kind, expected value)
CHECKS: dict[str, tuple[str, str, str]] = {
    "the cart shows 1 item": (r'^<span\b[^>]*id="cart-count"', "to_have_text", "1"),
    "the cart shows 3 items": (r'^<span\b[^>]*id="cart-count"', "to_have_text", "3"),
}


def _products(text: str) -> dict[str, Any]:
    rows = re.findall(r"([A-Z][A-Za-z ]+?)\s*\|\s*(\d+\.\d\d)", text)
    return {"products": [{"name": name.strip(), "price_eur": price} for name, price in rows]}


def _product(text: str) -> dict[str, Any]:
    found = {
        "name": re.search(r"^# (.+)$", text, re.MULTILINE),
        "price_eur": re.search(r"EUR ([\d.]+)", text),
        "weight_kg": re.search(r"Weight \| ([\d.]+) kg", text),
        "material": re.search(r"Material \| ([^|\n]+?) \|", text),
    }
    return {key: match.group(1).strip() for key, match in found.items() if match}


def _mugs(text: str) -> dict[str, Any]:
    mugs = re.findall(r"^#+ ([A-Z][a-z]+ mug)\s+([\d.]+) EUR", text, re.MULTILINE)
    return {"mugs": [{"name": name, "price_eur": float(price)} for name, price in mugs]}


def _sourced_mugs(prompt: str) -> dict[str, Any]:
    """The mugs read from numbered elements, each value with the element it came from (what
    lets extract() compile its reads and replay them with no model)."""
    names = re.findall(r"^(\d+):<h2\b[^>]*>([A-Z][a-z]+ mug)</h2>", prompt, re.MULTILINE)
    prices = re.findall(r"^(\d+):<p\b[^>]*>([\d.]+) EUR</p>", prompt, re.MULTILINE)
    mugs, sources = [], {}
    for n, ((name_at, name), (price_at, price)) in enumerate(zip(names, prices, strict=True)):
        mugs.append({"name": name, "price_eur": float(price)})
        sources[f"/mugs/{n}/name"] = [int(name_at)]
        sources[f"/mugs/{n}/price_eur"] = [int(price_at)]
    return {"data": {"mugs": mugs}, "sources": sources, "complete": True}


# Answers for an extract() that shows the page as numbered elements (a schema and a cache).
SOURCED: dict[str, Callable[[str], dict[str, Any]]] = {
    "every mug and its price": _sourced_mugs,
}

EXTRACT: dict[str, Callable[[str], dict[str, Any]]] = {
    "every product and its price": _products,
    "the product's name, price, weight and material": _product,
    "every mug and its price": _mugs,
}

_LINE = re.compile(r"^(\d+):(.*)$", re.MULTILINE)
_DONE_STEP = re.compile(r"^\d+\. ", re.MULTILINE)


def _field(prompt: str, name: str) -> str:
    match = re.search(rf"^{name}: (.*)$", prompt, re.MULTILINE)
    return " ".join(match.group(1).split()) if match else ""


def _find(text: str, pattern: str) -> list[int]:
    return [int(m.group(1)) for m in _LINE.finditer(text) if re.search(pattern, m.group(2))]


def act_step(prompt: str, section: str) -> dict[str, Any]:
    """The next step of the act in ``prompt`` (its first user message), found in ``section``
    (its last): the arguments of a ``doAction`` or ``skipSection`` tool call."""
    plan = ACT_PLANS.get(_field(prompt, "Goal"), [])
    done = len(_DONE_STEP.findall(prompt.split("Variables available")[0]))
    if done >= len(plan):
        return _call(skip_section("the plan is done"))
    method, pattern, arguments = plan[done]
    element = _element(section.split("position first):")[-1], pattern)
    if element is None:
        return _call(skip_section("not in this section"))
    return _call(do_action(method, element, arguments, completed=done + 1 == len(plan)))


def _element(section: str, pattern: str) -> int | None:
    """The number of the line on which the first match of ``pattern`` ends."""
    match = re.search(pattern, section, re.MULTILINE | re.DOTALL)
    if match is None:
        return None
    return int(section[: match.end()].rsplit("\n", 1)[-1].split(":", 1)[0])


def answer(schema_name: str, prompt: str) -> dict[str, Any]:
    """The structured answer named ``schema_name`` to ``prompt`` (its messages' text)."""
    if schema_name == "VerifyAnswer":
        return {"completed": True, "reason": "the plan is done"}
    if schema_name == "CheckAnswer":
        return _check(_field(prompt, "Statement"), prompt)
    instruction = _field(prompt, "Instruction")
    if schema_name == "ObserveAnswer":
        pattern = next((p for word, p in OBSERVE.items() if word in instruction.lower()), None)
        found = _find(prompt, pattern) if pattern else []
        return {"elements": [{"element": n, "description": instruction} for n in found]}
    if "<page_elements>" in prompt and instruction in SOURCED:
        return SOURCED[instruction](prompt)
    reader = EXTRACT.get(instruction)
    if reader is None:
        raise LookupError(f"The stand-in cannot answer {schema_name} {instruction!r}: see {HERE}")
    return {"data": reader(prompt), "complete": True}


def _check(statement: str, prompt: str) -> dict[str, Any]:
    if statement not in CHECKS:
        raise LookupError(f"The stand-in has no answer for check({statement!r}): see {HERE}")
    pattern, kind, value = CHECKS[statement]
    found = _find(prompt, pattern)
    if not found:
        return check_answer(False, reason="the element it is about is not shown").model_dump()
    return check_answer(True, expectation(kind, found[0], value), reason="shown").model_dump()


def _call(call: ToolCall) -> dict[str, Any]:
    return {"name": call.name, "arguments": call.arguments}
