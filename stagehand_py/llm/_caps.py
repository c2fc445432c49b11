"""Hard spending caps: a model request that would take spending past a cap is not sent.

A cap (US dollars, tokens, or both) belongs to a scope: one call (``max_cost_usd=`` on the
call), one Stagehand (its settings), or the pytest session (every Stagehand of the process,
``--stagehand-max-cost``). Each scope keeps a :class:`Ledger`: what its requests spent, and
what its requests in flight hold. Before a request is sent, its worst case (its prompt tokens,
estimated from its text, pictures and tools, plus its whole answer budget ``max_tokens``,
priced at the full input price) is held in the ledger of every scope in force; when that
would take one past its cap, the request is not sent and :class:`BudgetExceededError` says
which call hit which cap. When the request ends, what it held gives way to what it really
cost, failed and abandoned requests included. Holding before sending keeps concurrent calls
(``asyncio.gather``, threads) from crossing a cap together.

One model call can send more than one request (a retry, a re-ask of an answer that did not
validate or was cut off, another rung of a local server's ladder). The models call
:func:`check_next_request` before each one after the first: what the call has spent so far
plus the first request's estimate must still fit.
"""

from __future__ import annotations

import contextvars
import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from .._errors import BudgetExceededError, ConfigurationError
from .._usage import Usage, estimate_tokens
from ._messages import Message, RequestOptions
from ._options import DEFAULT_MAX_TOKENS
from ._usage import PriceTable

COST, TOKENS = "max_cost_usd", "max_total_tokens"
# One lock for every ledger: a request is held in several ledgers at once, and sync calls
# send their requests from threads.
_LOCK = threading.Lock()
_PER_MESSAGE = 4  # tokens a chat format adds around each message
_SCOPE_WORDS = {"call": "this call", "Stagehand": "this Stagehand"}
_RAISE = {
    "call": {COST: "max_cost_usd= on the call", TOKENS: "max_total_tokens= on the call"},
    "Stagehand": {
        COST: "Stagehand(max_cost_usd=...) or STAGEHAND_PY_MAX_COST_USD",
        TOKENS: "Stagehand(max_total_tokens=...) or STAGEHAND_PY_MAX_TOTAL_TOKENS",
    },
}


@dataclass(frozen=True)
class Amount:
    """Tokens and US dollars: what a request may cost, or what a ledger holds."""

    tokens: int = 0
    usd: float = 0.0

    def __add__(self, other: Amount) -> Amount:
        return Amount(self.tokens + other.tokens, self.usd + other.usd)

    def __sub__(self, other: Amount) -> Amount:
        return Amount(self.tokens - other.tokens, self.usd - other.usd)


@dataclass(frozen=True)
class Estimate:
    """A request's worst case, known before it is sent."""

    prompt_tokens: int
    answer_tokens: int

    @property
    def usage(self) -> Usage:
        return Usage(prompt_tokens=self.prompt_tokens, completion_tokens=self.answer_tokens)

    def describe(self) -> str:
        return (
            f"about {self.prompt_tokens:,} prompt tokens and an answer of up to "
            f"{self.answer_tokens:,}"
        )


def estimate_request(
    messages: Sequence[Message],
    options: RequestOptions | None,
    *,
    tools_text: str = "",
    image_tokens: int = 800,
) -> Estimate:
    """The worst case of one request: its messages (each picture as ``image_tokens``, as
    the agent counts them), its tools or schema (``tools_text``), and its answer budget."""
    prompt = estimate_tokens(tools_text) + sum(_tokens_of(m, image_tokens) for m in messages)
    kind = options.kind if options is not None else "other"
    budget = options.max_tokens if options is not None else None
    return Estimate(prompt, budget or DEFAULT_MAX_TOKENS[kind])


def _tokens_of(message: Message, image_tokens: int) -> int:
    calls = "".join(
        call.name + (json.dumps(call.arguments) if call.arguments else call.raw_arguments)
        for call in message.tool_calls
    )
    text = estimate_tokens(message.content + calls)
    return _PER_MESSAGE + text + image_tokens * len(message.images)


class Ledger:
    """What one scope spent (``usage``, ``usd``; ``unpriced`` counts requests no price was
    known for) and what its requests in flight hold. Change it only under the lock."""

    def __init__(self) -> None:
        self.calls = 0
        self.usage = Usage()
        self.usd = 0.0
        self.unpriced = 0
        self.held = Amount()

    @property
    def committed(self) -> Amount:
        """Spent, plus held by requests in flight."""
        return Amount(self.usage.total_tokens, self.usd) + self.held

    def totals(self) -> tuple[int, Usage, float, int]:
        """``(calls, usage, usd, unpriced)``, read together."""
        with _LOCK:
            return self.calls, self.usage, self.usd, self.unpriced


@dataclass(frozen=True)
class Cap:
    """A scope's ledger and its caps (``None``: no cap of that unit). ``raise_with`` says,
    per cap, how to raise it; ``note`` is added to a refusal (how a cap was split)."""

    scope: str  # "call", "Stagehand", "pytest session"
    ledger: Ledger
    max_cost_usd: float | None = None
    max_total_tokens: int | None = None
    raise_with: Mapping[str, str] = field(default_factory=dict)
    note: str = ""

    def excess(self, extra: Amount) -> tuple[str, float] | None:
        """The cap ``extra`` more than is committed would cross, and its limit; None when
        it fits."""
        now = self.ledger.committed + extra
        if self.max_cost_usd is not None and now.usd > self.max_cost_usd + 1e-12:
            return COST, self.max_cost_usd
        if self.max_total_tokens is not None and now.tokens > self.max_total_tokens:
            return TOKENS, self.max_total_tokens
        return None


def checked_caps(max_cost_usd: object, max_total_tokens: object) -> tuple[float | None, int | None]:
    """A call's ``max_cost_usd=`` / ``max_total_tokens=``, checked: positive numbers or None."""
    if max_cost_usd is not None and (
        isinstance(max_cost_usd, bool)
        or not isinstance(max_cost_usd, (int, float))
        or not max_cost_usd > 0
    ):
        raise ConfigurationError(
            f"max_cost_usd takes a positive number of US dollars, e.g. 0.05; got {max_cost_usd!r}."
        )
    if max_total_tokens is not None and (
        isinstance(max_total_tokens, bool)
        or not isinstance(max_total_tokens, int)
        or max_total_tokens < 1
    ):
        raise ConfigurationError(
            "max_total_tokens takes a positive whole number of tokens (prompt and answer "
            f"together), e.g. 20000; got {max_total_tokens!r}."
        )
    return (None if max_cost_usd is None else float(max_cost_usd)), max_total_tokens


def call_label(kind: str, instruction: str) -> str:
    """How a refusal names the call: ``act('log in')`` (``instruction`` already redacted)."""
    said = " ".join(instruction.split())
    if len(said) > 60:
        said = said[:57] + "..."
    return f"{kind}({said!r})" if said else f"{kind}()"


def scope_cap(
    scope: str, ledger: Ledger, max_cost_usd: float | None, max_total_tokens: int | None
) -> Cap:
    """The cap of a call or a Stagehand, with the words that say how to raise it."""
    return Cap(scope, ledger, max_cost_usd, max_total_tokens, _RAISE[scope])


def needs_prices(what: str, prices: PriceTable | None, model: str | None = None) -> None:
    """Refuse a cost cap that cannot be priced: no price table, or none for ``model``."""
    if prices is not None and (not model or prices.price_of(model) is not None):
        return
    missing = "no prices were given" if prices is None else f"there is no price for {model!r}"
    example = model.split("/", 1)[-1] if model else "gpt-4.1-mini"
    raise ConfigurationError(
        f"{what} needs the price of the model, and {missing}: pass "
        f"prices=PriceTable.of({{{example!r}: {{'input': 0.40, 'output': 1.60}}}}) "
        "(US dollars per million tokens) to the Stagehand, or cap tokens instead with "
        "max_total_tokens."
    )


class Budget:
    """The caps in force for one call: its own (first), its Stagehand's, the pytest
    session's. ``call`` names the call in refusals (already redacted)."""

    def __init__(
        self,
        caps: Sequence[Cap],
        *,
        prices: PriceTable | None = None,
        call: str = "a call",
        image_tokens: int = 800,
    ) -> None:
        self.caps = list(caps) or [Cap("call", Ledger())]
        self.prices = prices
        self.call = call
        self.image_tokens = image_tokens
        with _LOCK:
            for cap in self.caps:
                cap.ledger.calls += 1

    @property
    def spent(self) -> Usage:
        """What this call's requests cost so far."""
        with _LOCK:
            return self.caps[0].ledger.usage

    def admit(self, model: str, estimate: Estimate, kind: str) -> Reservation:
        """Hold ``estimate`` in every ledger, or refuse the request
        (:class:`BudgetExceededError`) when it would cross a cap."""
        request = self._amount(model, estimate.usage)
        reservation = Reservation(self, model, kind, estimate, request)
        with _LOCK:
            reservation.hold(request, Usage())
        return reservation

    def _amount(self, model: str, usage: Usage) -> Amount:
        """``usage`` in tokens and dollars; a cost cap without a price for ``model`` is a
        :class:`ConfigurationError` (nothing is sent)."""
        usd = self.prices.cost(model, usage) if self.prices is not None else None
        if usd is None:
            capped = next((cap for cap in self.caps if cap.max_cost_usd is not None), None)
            if capped is not None:
                words = _SCOPE_WORDS.get(capped.scope, f"the {capped.scope}")
                needs_prices(f"{self.call}: {words}'s max_cost_usd", self.prices, model)
        return Amount(usage.total_tokens, usd or 0.0)

    def _cost(self, model: str, usage: Usage) -> float | None:
        return self.prices.cost(model, usage) if self.prices is not None else None


class Reservation:
    """One model call's hold on the ledgers, from before its first request to its end."""

    def __init__(
        self, budget: Budget, model: str, kind: str, estimate: Estimate, first: Amount
    ) -> None:
        self.budget, self.model, self.kind = budget, model, kind
        self.estimate, self.first = estimate, first
        self.held = Amount()  # what this call holds in every ledger now
        self._settled = False

    def hold(self, wanted: Amount, earlier: Usage) -> None:
        """Hold ``wanted`` (``earlier``, what this model call already sent, plus its next
        request's worst case), or raise :class:`BudgetExceededError`. Under the lock."""
        extra = wanted - self.held
        for cap in self.budget.caps:
            crossed = cap.excess(extra)
            if crossed is not None:
                raise self._refusal(cap, crossed[0], crossed[1], wanted, earlier)
        for cap in self.budget.caps:
            cap.ledger.held += extra
        self.held = wanted

    def _refusal(
        self, cap: Cap, name: str, limit: float, wanted: Amount, earlier: Usage
    ) -> BudgetExceededError:
        ledger, money = cap.ledger, name == COST
        # What the scope has committed besides the refused request: its spending, the holds
        # of other requests in flight, and this model call's earlier requests.
        others = ledger.held - self.held
        before = Amount(ledger.usage.total_tokens, ledger.usd) + others + wanted - self.first
        spent = before.usd if money else float(before.tokens)
        asked = self.first.usd if money else float(self.first.tokens)
        show = _usd if money else _tokens
        what = f"a model request ({self.kind})"
        if earlier.requests:
            what = f"a further model request ({self.kind}, after {earlier.requests} sent)"
        in_flight = others.usd if money else others.tokens
        held = f", {show(in_flight)} of it held by requests in flight" if in_flight > 0 else ""
        message = (
            f"{self.budget.call}: {what} was not sent: it could cost up to {show(asked)} "
            f"({self.estimate.describe()}), which would take "
            f"{_SCOPE_WORDS.get(cap.scope, 'the ' + cap.scope)} past its {name} of "
            f"{show(limit)}: {show(spent)} spent so far{held}{cap.note}. Raise the cap "
            f"({cap.raise_with.get(name, name)}), or lower max_tokens so each request's worst "
            "case is smaller."
        )
        return BudgetExceededError(
            message,
            cap=name,
            scope=cap.scope,
            limit=limit,
            spent=spent,
            request=asked,
            call=self.budget.call,
            usage=earlier,
        )

    def next_request(self, spent: Usage) -> None:
        """Before a further request of this model call: ``spent`` (what the call sent so far)
        plus the first request's estimate must fit every cap. A retry of a request that
        failed without tokens holds nothing more, and is never refused."""
        if spent.requests == 0:
            return
        wanted = self.budget._amount(self.model, spent) + self.first
        with _LOCK:
            if not self._settled:
                self.hold(wanted, spent)

    def settle(self, usage: Usage) -> None:
        """What the model call really cost replaces what it held (once)."""
        usd = self.budget._cost(self.model, usage)
        with _LOCK:
            if self._settled:
                return
            self._settled = True
            for cap in self.budget.caps:
                ledger = cap.ledger
                ledger.held -= self.held
                ledger.usage = ledger.usage + usage
                if usd is None:
                    ledger.unpriced += usage.requests
                else:
                    ledger.usd += usd


_IN_FLIGHT: contextvars.ContextVar[Reservation | None] = contextvars.ContextVar(
    "stagehand_py_model_call_in_flight", default=None
)


@contextmanager
def in_flight(reservation: Reservation) -> Iterator[None]:
    """While a model call runs: its further requests are checked against ``reservation``."""
    token = _IN_FLIGHT.set(reservation)
    try:
        yield
    finally:
        _IN_FLIGHT.reset(token)


def check_next_request(spent: Usage) -> None:
    """Called by a model before each request of one call: with ``spent`` (what the call sent
    so far) above zero requests, the next one must still fit the caps in force. No-op
    outside a Stagehand call."""
    reservation = _IN_FLIGHT.get()
    if reservation is not None:
        reservation.next_request(spent)


# ---------------------------------------------------------------- the pytest session's cap
_session_caps: list[Cap] = []


def push_session_cap(cap: Cap) -> None:
    """Make ``cap`` the process-wide cap every Stagehand call obeys (the pytest plugin's;
    an inner pytest session pushes its own and pops it when it ends)."""
    _session_caps.append(cap)


def pop_session_cap(cap: Cap) -> None:
    for position, pushed in enumerate(_session_caps):
        if pushed is cap:
            del _session_caps[position]
            return


def session_cap() -> Cap | None:
    """The process-wide cap in force, if any."""
    return _session_caps[-1] if _session_caps else None


def _usd(value: float) -> str:
    return f"${value:,.4f}" if abs(value) >= 0.01 else f"${value:.6f}"


def _tokens(value: float) -> str:
    return f"{round(value):,} tokens"
