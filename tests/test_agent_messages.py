"""The agent's message manager, without a browser: what a request holds, how tokens are
counted, the order of budget cuts, and the variables filter."""

from __future__ import annotations

from stagehand_py._usage import estimate_tokens
from stagehand_py._variables import Variables
from stagehand_py.agent import MessageManager
from stagehand_py.llm import ImagePart
from tests import secret_values

TASK = "Find the cheapest lamp and report the cart total."


def manager(**options: object) -> MessageManager:
    variables = Variables({"email": secret_values.EMAIL})
    defaults: dict[str, object] = {
        "redact": variables.redact,
        "placeholders": variables.placeholders,
        "max_input_tokens": 100_000,
        "max_history_items": 3,
    }
    defaults.update(options)
    return MessageManager(TASK, **defaults)  # type: ignore[arg-type]


def test_a_request_has_system_task_variables_example_history_and_state_in_order() -> None:
    mm = manager()
    mm.add_history(1, "Step 1: searched")
    mm.set_state(2, "Step 2 state\nElements in view:\n0:<button>Go</button>")
    request = mm.build()
    assert [e.kind for e in request.entries] == [
        "system",
        "task",
        "variables",
        "example",
        "history",
        "state",
    ]
    assert request.entries[0].role == "system"
    assert TASK in request.entries[1].text
    assert "<|EMAIL|>" in request.entries[2].text
    assert '"actions"' in request.entries[3].text  # an example of a valid answer
    assert request.cuts == []
    assert [m.role for m in request.messages] == ["system", "user", "user", "user", "user", "user"]


def test_no_variables_hint_without_variables() -> None:
    mm = MessageManager(TASK, redact=lambda text: text)
    assert "variables" not in [e.kind for e in mm.build().entries]


def test_tokens_are_counted_per_message_with_a_fixed_cost_per_image() -> None:
    lengths: list[int] = []

    def counter(text: str) -> int:
        lengths.append(len(text))
        return len(text)  # one token per character, to make the arithmetic visible

    mm = manager(count_tokens=counter, image_tokens=500)
    mm.set_state(1, "x" * 40, images=[ImagePart(data=b"png"), ImagePart(data=b"png")])
    request = mm.build()
    state = request.entries[-1]
    assert mm.tokens_of(state) == 40 + 2 * 500
    assert request.tokens == sum(len(e.text) for e in request.entries) + 1000
    assert estimate_tokens("abcdefgh") == 2 and estimate_tokens("abcdefghi") == 3


def test_every_message_is_filtered_before_it_is_stored() -> None:
    mm = manager()
    mm.add_history(1, f"typed {secret_values.EMAIL} into the field")
    mm.set_state(2, f'<input value="{secret_values.EMAIL}">')
    mm.add_turn("user", f"retry, and do not show {secret_values.EMAIL}")
    dumped = mm.build().dump_text()
    assert secret_values.EMAIL not in dumped
    assert dumped.count("<|EMAIL|>") >= 3
    assert all(secret_values.EMAIL not in e.text for e in mm.history)


def test_budget_drops_the_oldest_images_first() -> None:
    mm = manager(max_input_tokens=3000, image_tokens=800)
    mm.add_history(1, "step one")
    mm.set_state(2, "state", images=[ImagePart(data=b"a"), ImagePart(data=b"b")])
    request = mm.build()  # ~600 tokens of text + 1600 of images: fits
    assert request.cuts == [] and len(request.entries[-1].images) == 2
    mm.max_input_tokens = request.tokens - 100
    request = mm.build()
    assert request.cuts == ["image of step 2"]
    assert len(request.entries[-1].images) == 1
    assert request.tokens <= mm.max_input_tokens


def test_budget_then_drops_history_beyond_max_history_items_never_system_or_task() -> None:
    mm = manager(max_history_items=2)
    for step in range(1, 7):
        mm.add_history(step, f"Step {step}: " + "did something useful. " * 40)
    mm.set_state(7, "Step 7 state")
    whole = mm.build()
    assert whole.cuts == []
    mm.max_input_tokens = whole.tokens - 200
    request = mm.build()
    assert request.cuts == ["history of steps 1-4"]
    texts = [e.text for e in request.entries if e.kind == "history"]
    assert texts[0] == "[4 earlier step(s) (steps 1-4) omitted to fit the token budget]"
    assert [t.split(":")[0] for t in texts[1:]] == ["Step 5", "Step 6"]
    assert request.entries[0].kind == "system" and TASK in request.entries[1].text
    assert request.tokens <= mm.max_input_tokens
    assert len(mm.history) == 6  # the stored history stays whole; only the request is cut


def test_budget_finally_truncates_the_state_text_proportionally() -> None:
    mm = manager(max_history_items=1)
    mm.add_history(1, "Step 1: short")
    elements = "\n".join(f"{i}:<button>Button number {i}</button>" for i in range(400))
    mm.set_state(2, "Step 2 of at most 50.\nElements in view:\n" + elements)
    opening = sum(mm.tokens_of(e) for e in mm.build().entries if e.kind != "state")
    mm.max_input_tokens = opening + 500
    request = mm.build()
    state = request.entries[-1]
    assert request.tokens <= mm.max_input_tokens
    assert state.text.startswith("Step 2 of at most 50.")  # the top survives, the list is cut
    assert state.text.endswith("[... cut here to fit the token budget]")
    assert len(request.cuts) == 1 and request.cuts[0].startswith("state text cut from ")
    assert estimate_tokens(state.text) > 400  # proportional: the budget is used, not emptied


def test_an_impossible_budget_is_reported_and_never_cuts_system_or_task() -> None:
    mm = manager()
    mm.set_state(1, "state " * 100)
    mm.max_input_tokens = 50  # less than the system prompt alone
    request = mm.build()
    assert request.entries[0].text.startswith("You are a browser agent")
    assert TASK in request.entries[1].text
    assert request.entries[-1].text == ""
    assert request.cuts[-1].startswith("over budget by ")


def test_turn_messages_belong_to_one_step_and_the_dump_shows_everything() -> None:
    mm = manager()
    mm.set_state(1, "state one")
    mm.add_turn("assistant", '{"actions": []}')
    mm.add_turn("user", "Your answer cannot be run")
    request = mm.build()
    assert [e.kind for e in request.entries][-3:] == ["state", "turn", "turn"]
    dump = request.dump()
    assert dump[-1] == {
        "kind": "turn",
        "role": "user",
        "content": "Your answer cannot be run",
        "images": 0,
    }
    mm.set_state(2, "state two")
    assert [e.kind for e in mm.build().entries][-1] == "state"
    assert mm.last_request is not None and "--- state (user) ---" in mm.last_request.dump_text()
