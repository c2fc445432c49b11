"""A cache writer run as its own process by the concurrency test (and a builder of test entries).

Usage: python tests/cache_writer_proc.py DIRECTORY WRITER_ID WRITES GO_FILE

Waits until GO_FILE exists (so every writer starts together), then puts WRITES versions of the
same entry; version ``i`` of writer ``w`` has description ``w:i`` on every action.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from stagehand_py.cache import ActionCache, CachedAction, CacheEntry, ElementFingerprint

INSTRUCTION = "fill the sign-up form with %email% and submit it"
URL = "http://127.0.0.1:8000/form.html?b=2&a=1"
VARIABLES = ("email", "password")
ACTIONS_PER_ENTRY = 60  # a few tens of kB per file, so a torn write would be visible


def build_entry(
    cache: ActionCache, description: str, *, actions: int = ACTIONS_PER_ENTRY, url: str = URL
) -> CacheEntry:
    """An entry for this module's act whose every action has ``description``."""
    key = cache.key_for(INSTRUCTION, url, VARIABLES)
    fingerprint = ElementFingerprint.from_element_fields(
        "input", {"id": "email", "type": "email", "placeholder": "Email"}
    )
    steps = [
        CachedAction(
            method="fill",
            selectors=[f"xpath=/html/body/form/input[{i + 1}]", "xpath=//*[@id='email']"],
            arguments=["<|EMAIL|>"],
            description=description,
            fingerprint=fingerprint,
        )
        for i in range(actions)
    ]
    return CacheEntry.create(key, steps)


def main(directory: str, writer: str, writes: int, go_file: str) -> None:
    cache = ActionCache(directory)
    go = Path(go_file)
    print("ready", flush=True)
    while not go.exists():  # start line; not a timing assertion
        time.sleep(0.005)
    for i in range(writes):
        cache.put(build_entry(cache, f"{writer}:{i}"))
    print(f"done {cache.stats.writes}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4])
