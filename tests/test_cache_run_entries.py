"""Agent and workflow entries of the action cache: validated on load, listed and diffed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from stagehand_py.cache import ActionCache, CachedAction, CacheEntry, CacheWarning
from stagehand_py.cache._entry import CachedItem
from stagehand_py.cache._manage import entry_diff, list_entries

CLICK = CachedAction(method="click", selectors=["#next"], description="click Next")


def _workflow(cache: ActionCache) -> CacheEntry:
    key = cache.key_for("open an account", "https://bank.example/signup", kind="workflow")
    items = [
        CachedItem(text="fill in the form", actions=[CLICK]),
        CachedItem(text="create the account", actions=[CLICK, CLICK]),
    ]
    return CacheEntry.create(key, items=items)


def test_agent_and_workflow_entries_are_listed_by_kind(tmp_path: Path) -> None:
    cache = ActionCache(tmp_path)
    cache.put(_workflow(cache))
    agent_key = cache.key_for("open an account", "https://bank.example/signup", kind="agent")
    cache.put(CacheEntry.create(agent_key, [CLICK]))
    listed = list_entries(cache)
    assert '2 items  "workflow: open an account"' in listed
    assert '1 action  "agent: open an account"' in listed
    assert agent_key.digest != _workflow(cache).key  # one key per kind


def test_a_healed_workflow_entry_diffs_its_items(tmp_path: Path) -> None:
    cache = ActionCache(tmp_path)
    entry = _workflow(cache)
    moved = CachedAction(method="click", selectors=["#open-account"], description="click Open")
    assert entry.items is not None
    items = [entry.items[0], CachedItem(text="create the account", actions=[moved])]
    healed = entry.with_items(items, reason="item 2, step 1 of 2: no element")
    cache.put(healed)
    diff = entry_diff(cache.find(healed.key[:12]))
    assert diff.startswith("healed because: item 2, step 1 of 2: no element")
    assert "-     selector: #next" in diff and "+     selector: #open-account" in diff
    assert " item 2. create the account" in diff


@pytest.mark.parametrize(
    ("kind", "change", "why"),
    [
        ("workflow", {"items": [{"text": "x", "actions": []}]}, "at least 1 item"),
        ("workflow", {"items": []}, "checklist items"),
        ("agent", {"items": [{"text": "x", "actions": [CLICK.model_dump()]}]}, "not checklist"),
    ],
)
def test_a_malformed_run_entry_is_a_miss(
    tmp_path: Path, kind: Any, change: dict[str, object], why: str
) -> None:
    cache = ActionCache(tmp_path)
    key = cache.key_for("open an account", "https://bank.example/signup", kind=kind)
    data = {"key": key.digest, "kind": kind, "instruction": key.instruction, "url": key.url,
            "actions": [] if kind == "workflow" else [CLICK.model_dump()], **change}  # fmt: skip
    tmp_path.mkdir(exist_ok=True)
    cache.path_for(key).write_text(json.dumps(data), "utf-8")
    with pytest.warns(CacheWarning, match=why):
        assert cache.get(key) is None
