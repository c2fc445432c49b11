"""What the plugin keeps per test and per session, and what it does with it when a test ends:
the failure section, the held cache writes and the scrubbed traces (the terminal summary is
``_spending.py``'s)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

from .._errors import CacheError
from .._history import CallRecord
from .._session_secrets import UsedSecrets
from .._trace_scrub import scrub_trace
from .._variables import Variables
from ..cache import ActionCache, CacheWarning

# Where each test's start position in the SDK's history is kept, for the failure report.
HISTORY_KEY = pytest.StashKey[tuple[list[CallRecord], int]]()
# The secrets a test used and when it started, to scrub the traces written for it.
USED_SECRETS_KEY = pytest.StashKey[tuple[UsedSecrets, float]]()
# The cache whose writes the test holds, and whether any phase of the test failed.
HELD_CACHE_KEY = pytest.StashKey[ActionCache]()
FAILED_KEY = pytest.StashKey[bool]()
# Every SDK the session built, for the terminal summary.
SDKS_KEY = pytest.StashKey[list[Any]]()


def failure_section(item: pytest.Item) -> str | None:
    """The summaries of the calls made during the test (already redacted), if any."""
    marked = item.stash.get(HISTORY_KEY, None)
    if marked is None:
        return None
    history, start = marked
    calls = history[start:]
    return "\n".join(record.summary() for record in calls) if calls else None


def scrub_test_traces(item: pytest.Item, report: pytest.TestReport) -> None:
    """Rewrite the traces written for this test without the variables it used."""
    entry = item.stash.get(USED_SECRETS_KEY, None)
    if entry is None:
        return
    del item.stash[USED_SECRETS_KEY]
    used, started = entry
    used.__exit__()
    if not used:
        return
    traces = {
        Path(item.config.invocation_params.dir, str(value))
        for name, value in report.user_properties
        if name == "playwright_trace"
    }
    output = item.config.getoption("--output", default=None)
    if output:  # traces of this test that no report lists (another plugin's, a retry's)
        traces.update(
            path
            for path in Path(item.config.invocation_params.dir, output).rglob("trace*.zip")
            if path.stat().st_mtime >= started - 1
        )
    secrets = Variables().remembering(used.items)  # every value, even two under one name
    for trace in sorted(traces):
        if trace.is_file():
            scrub_trace(trace, secrets)


def settle_held_writes(item: pytest.Item, report: pytest.TestReport) -> None:
    """Write a test's held cache entries when all its phases passed; drop them otherwise."""
    cache = item.stash.get(HELD_CACHE_KEY, None)
    if cache is None:
        return
    if not report.passed:
        item.stash[FAILED_KEY] = True
    if report.when != "teardown":
        return
    del item.stash[HELD_CACHE_KEY]
    if item.stash.get(FAILED_KEY, False):
        cache.discard()
        return
    try:
        cache.commit()
    except CacheError as exc:  # an unwritable directory must not break the run
        warnings.warn(f"{item.nodeid}: cache entries not written: {exc}", CacheWarning, 2)
