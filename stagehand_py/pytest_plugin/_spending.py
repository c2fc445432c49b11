"""The pytest session's spending: its caps (``--stagehand-max-cost``,
``--stagehand-max-total-tokens``), which every Stagehand of the process obeys, and the
summary line, whose figures pytest-xdist's workers send to the controller.

Under pytest-xdist each worker is a process of its own: it gets an equal share of the
session's caps (a worker never waits on another's spending, and together they never cross the
caps), and reports its figures when it finishes, so the controller prints the whole session's.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import pytest

from .._errors import ConfigurationError
from ..llm._caps import COST, TOKENS, Cap, Ledger, checked_caps, pop_session_cap, push_session_cap
from ._options import option

SESSION_CAP_KEY = pytest.StashKey[Cap]()
# The figures each finished xdist worker sent (on the controller).
WORKERS_KEY = pytest.StashKey[list["Totals"]]()
WORKER_OUTPUT = "stagehand_py_totals"

_RAISE = {
    COST: "--stagehand-max-cost or STAGEHAND_PY_SESSION_MAX_COST_USD",
    TOKENS: "--stagehand-max-total-tokens or STAGEHAND_PY_SESSION_MAX_TOTAL_TOKENS",
}


@dataclass
class Totals:
    """What one process of the session spent, and how its plugin-built caches did."""

    calls: int = 0
    requests: int = 0
    tokens: int = 0
    usd: float = 0.0
    unpriced: int = 0  # requests no price was known for (not in ``usd``)
    sdks: int = 0  # Stagehands the plugin's fixtures built
    cached: int = 0  # of them, with a cache
    hits: int = 0
    misses: int = 0
    healed: int = 0
    writes: int = 0

    def __add__(self, other: Totals) -> Totals:
        mine, theirs = asdict(self), asdict(other)
        return Totals(**{name: mine[name] + theirs[name] for name in mine})


def open_session_cap(config: pytest.Config) -> None:
    """The session's caps (this worker's share under xdist), in force for every Stagehand of
    the process until :func:`close_session_cap`."""
    cost, tokens = _caps_given(config)
    workers = _worker_count(config)
    note = ""
    if workers > 1 and (cost is not None or tokens is not None):
        cost = None if cost is None else cost / workers
        tokens = None if tokens is None else max(tokens // workers, 1)
        note = f" (this pytest-xdist worker's share: the session's cap split {workers} ways)"
    cap = Cap("pytest session", Ledger(), cost, tokens, _RAISE, note)
    push_session_cap(cap)
    config.stash[SESSION_CAP_KEY] = cap


def close_session_cap(config: pytest.Config) -> None:
    cap = config.stash.get(SESSION_CAP_KEY, None)
    if cap is not None:
        pop_session_cap(cap)


def _caps_given(config: pytest.Config) -> tuple[float | None, int | None]:
    cost = option(config, "--stagehand-max-cost", "STAGEHAND_PY_SESSION_MAX_COST_USD")
    tokens = option(config, "--stagehand-max-total-tokens", "STAGEHAND_PY_SESSION_MAX_TOTAL_TOKENS")
    try:
        return checked_caps(
            None if cost is None else _number(cost, float),
            None if tokens is None else _number(tokens, int),
        )
    except ConfigurationError as error:
        raise pytest.UsageError(
            f"--stagehand-max-cost / --stagehand-max-total-tokens: {error}"
        ) from None


def _number(text: str, kind: type[float] | type[int]) -> object:
    try:
        return kind(text)
    except ValueError:
        return text  # refused by checked_caps, with what it takes


def _worker_count(config: pytest.Config) -> int:
    workerinput: dict[str, Any] | None = getattr(config, "workerinput", None)
    return int(workerinput.get("workercount", 1)) if workerinput else 1


def process_totals(config: pytest.Config, sdks: list[Any]) -> Totals:
    """This process's figures: every Stagehand's spending (the session ledger), and the
    caches of the Stagehands the fixtures built."""
    totals = Totals(sdks=len(sdks))
    cap = config.stash.get(SESSION_CAP_KEY, None)
    if cap is not None:
        calls, usage, usd, unpriced = cap.ledger.totals()
        totals.calls, totals.requests, totals.tokens = calls, usage.requests, usage.total_tokens
        totals.usd, totals.unpriced = usd, unpriced
    for sdk in sdks:
        if sdk.cache is not None:
            stats = sdk.cache.stats
            totals.cached += 1
            totals.hits += stats.hits
            totals.misses += stats.misses
            totals.healed += stats.healed
            totals.writes += stats.writes
    return totals


def report_to_controller(config: pytest.Config, sdks: list[Any]) -> None:
    """On an xdist worker: hand this worker's figures to the controller."""
    output: dict[str, Any] | None = getattr(config, "workeroutput", None)
    if output is not None:
        output[WORKER_OUTPUT] = asdict(process_totals(config, sdks))


def worker_finished(node: Any) -> None:
    """On the controller: keep what a finished worker reported."""
    reported = getattr(node, "workeroutput", {}).get(WORKER_OUTPUT)
    if reported is not None:
        node.config.stash.setdefault(WORKERS_KEY, []).append(Totals(**reported))


def summary_line(config: pytest.Config, sdks: list[Any]) -> str | None:
    """The session's calls, model calls, tokens and cost (and its caps), and how the
    fixtures' caches did; None for a session that never used the SDK."""
    totals = process_totals(config, sdks)
    for worker in config.stash.get(WORKERS_KEY, []):
        totals = totals + worker
    cap = config.stash.get(SESSION_CAP_KEY, None)
    cost_cap = None if cap is None else cap.max_cost_usd
    token_cap = None if cap is None else cap.max_total_tokens
    if not (totals.calls or totals.sdks or cost_cap or token_cap):
        return None
    line = f"stagehand: {totals.calls} call(s), {totals.requests} model call(s), "
    line += f"{totals.tokens:,} tokens" + (f" (of {token_cap:,} max)" if token_cap else "")
    if not totals.unpriced and (totals.usd or cost_cap):
        line += f", ${totals.usd:.4f}" + (f" (of ${cost_cap:.4f} max)" if cost_cap else "")
    if totals.cached:
        line += (
            f"; cache: {totals.hits} hit(s), {totals.misses} miss(es), {totals.healed} healed, "
            f"{totals.writes} write(s)"
        )
    return line
