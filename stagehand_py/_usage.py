"""What model requests cost in tokens, requests and time: :class:`Usage` (a leaf module).

Errors, results and the LLM layer all carry a :class:`Usage`, so it sits below all of them;
prices and the session meter build on it in ``stagehand_py.llm``.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict


class Usage(BaseModel):
    """Usage of one or more model requests. ``cached_tokens`` is part of ``prompt_tokens``."""

    model_config = ConfigDict(frozen=True)

    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    wall_time_s: float = 0.0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(
            requests=self.requests + other.requests,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            wall_time_s=self.wall_time_s + other.wall_time_s,
        )

    def __radd__(self, other: object) -> Usage:
        # Lets ``sum(usages)`` work: sum() starts from the integer 0.
        if other == 0:
            return self
        if isinstance(other, Usage):
            return other + self
        return NotImplemented


def estimate_tokens(text: str) -> int:
    """About four characters per token, the usual rule of thumb."""
    return math.ceil(len(text) / 4)
