"""What model requests cost in money: an optional price table, and the session's meter.

Every response of the LLM layer carries a :class:`~stagehand_py.Usage`; act/extract/observe
add up the usages of their requests, and a session keeps a :class:`UsageMeter` with totals
per kind.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

from .._usage import Usage


class ModelPrice(BaseModel):
    """US dollars per one million tokens. Cached input defaults to the plain input price."""

    model_config = ConfigDict(frozen=True)

    input: float
    output: float
    cached_input: float | None = None


class PriceTable(BaseModel):
    """Prices per model, to turn token counts into an estimated cost.

    Keys are model names as sent to the provider (``"gpt-4.1-mini"``); a key with the
    provider prefix (``"openai/gpt-4.1-mini"``) matches too. No built-in prices: they change
    too often to ship, so the user supplies them.
    """

    prices: dict[str, ModelPrice] = Field(default_factory=dict)

    @classmethod
    def of(cls, prices: Mapping[str, ModelPrice | Mapping[str, float]]) -> PriceTable:
        """Build from ``{"gpt-4.1-mini": {"input": 0.4, "output": 1.6}, ...}``."""
        return cls(
            prices={
                name: p if isinstance(p, ModelPrice) else ModelPrice.model_validate(dict(p))
                for name, p in prices.items()
            }
        )

    def price_of(self, model: str) -> ModelPrice | None:
        if model in self.prices:
            return self.prices[model]
        bare = model.split("/", 1)[1] if "/" in model else model
        for name, price in self.prices.items():
            if name == bare or name.split("/", 1)[-1] == bare:
                return price
        return None

    def cost(self, model: str, usage: Usage) -> float | None:
        """Estimated cost in dollars, or None when the table has no price for ``model``."""
        price = self.price_of(model)
        if price is None:
            return None
        cached = min(usage.cached_tokens, usage.prompt_tokens)
        cached_price = price.input if price.cached_input is None else price.cached_input
        dollars = (
            (usage.prompt_tokens - cached) * price.input
            + cached * cached_price
            + usage.completion_tokens * price.output
        )
        return dollars / 1_000_000


class UsageMeter:
    """Session totals: usage per kind of call ("act", "extract", "observe", "verify", ...).

    Pass the ``model`` of each call to :meth:`add` (or once, to the constructor) so that
    :meth:`cost` can price a session that used more than one model.
    """

    def __init__(self, prices: PriceTable | None = None, model: str = "") -> None:
        self.prices = prices
        self.model = model
        self._by_kind: dict[str, Usage] = {}
        self._by_model: dict[str, Usage] = {}
        self._calls: dict[str, int] = {}

    def add(self, kind: str, usage: Usage, model: str | None = None) -> None:
        """Record one call of ``kind`` (its usage may span several model requests)."""
        self._by_kind[kind] = self._by_kind.get(kind, Usage()) + usage
        self._calls[kind] = self._calls.get(kind, 0) + 1
        name = model or ""
        self._by_model[name] = self._by_model.get(name, Usage()) + usage

    @property
    def by_kind(self) -> dict[str, Usage]:
        return dict(self._by_kind)

    @property
    def by_model(self) -> dict[str, Usage]:
        """Usage per model name ("" for calls recorded without one)."""
        return dict(self._by_model)

    def calls(self, kind: str) -> int:
        """How many calls of ``kind`` were recorded."""
        return self._calls.get(kind, 0)

    def of(self, kind: str) -> Usage:
        return self._by_kind.get(kind, Usage())

    @property
    def total(self) -> Usage:
        return sum(self._by_kind.values(), Usage())

    def cost(self, model: str | None = None) -> float | None:
        """Estimated session cost in dollars; None without prices for every model used.

        ``model`` prices the whole session as that model; otherwise each call is priced as
        the model it was recorded with (the meter's ``model`` when it had none).
        """
        if self.prices is None:
            return None
        if model:
            return self.prices.cost(model, self.total)
        total = 0.0
        for name, usage in self._by_model.items():
            priced = self.prices.cost(name or self.model, usage) if (name or self.model) else None
            if priced is None:
                return None
            total += priced
        return total

    def __repr__(self) -> str:
        parts = ", ".join(
            f"{k}={v.requests}req/{v.total_tokens}tok" for k, v in self._by_kind.items()
        )
        return f"UsageMeter({parts})"
