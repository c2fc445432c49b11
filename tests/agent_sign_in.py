"""Two users signing in with their own secrets on tabs of one browser context, each through
its own agent run, with a fake model that tells the runs apart by their task.

The sign-in page sends a GET form: once a user signed in, that tab's URL and title carry the
e-mail and password typed, and every other run's state lists that tab.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

from stagehand_py.llm import Message
from tests import secret_values
from tests.agent_plan import AgentPlan, Do, done

USERS: dict[str, dict[str, str]] = {
    "A": {"email": secret_values.EMAIL, "password": secret_values.PASSWORD},
    "B": {"email": "grace.hopper@compiler.test", "password": "Flow-Matic-1959-C0bol"},
}
_OTHER_TAB_SIGNED_IN = re.compile(r"^  \[\d+\] Signed in as (?!.*\(current\)$)", re.MULTILINE)


def task(who: str) -> str:
    return f"Sign in as user {who}."


class SignInModel:
    """Answers both runs (``structured=``): sign in, wait twice, done; keeps what each run
    was sent."""

    def __init__(self) -> None:
        self.sent: dict[str, list[str]] = {who: [] for who in USERS}
        self._plans = {
            who: AgentPlan(
                [
                    Do("fill", r'^<input\b[^>]*name="email"', text="<|EMAIL|>"),
                    Do("fill", r'^<input\b[^>]*name="password"', text="<|PASSWORD|>"),
                    Do("click", r"^<button\b[^>]*>Sign in"),
                ],
                [Do("wait", seconds=1)],
                [Do("wait", seconds=1)],
                done("signed in"),
            )
            for who in USERS
        }

    def __call__(self, messages: list[Message], schema: type[BaseModel]) -> dict[str, Any]:
        text = "\n".join(m.content for m in messages)
        who = next(who for who in USERS if task(who) in text)
        self.sent[who].append(text)
        return self._plans[who](messages, schema)

    def saw_the_other_tab_signed_in(self, who: str) -> bool:
        return any(_OTHER_TAB_SIGNED_IN.search(text) for text in self.sent[who])


def leaks(text: str, of: str) -> list[str]:
    """The forms of user ``of``'s values found in ``text``."""
    forms = {form for value in USERS[of].values() for form in secret_values.derived_forms(value)}
    return sorted(form for form in forms if form in text)
