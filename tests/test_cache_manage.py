"""list / show / clear as the command line prints them."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from stagehand_py._errors import CacheError
from stagehand_py.cache import (
    ActionCache,
    CachedAction,
    CacheEntry,
    CacheWarning,
)
from stagehand_py.cache._manage import clear_entries, list_entries, show_entry

START = datetime(2026, 11, 1, 9, 30, tzinfo=timezone.utc)


def _put(cache: ActionCache, instruction: str, url: str, actions: int, age_days: int) -> CacheEntry:
    key = cache.key_for(instruction, url, ["query"])
    steps = [CachedAction(method="click", selectors=[f"#b{i}"]) for i in range(actions)]
    entry = CacheEntry.create(key, steps, now=START - timedelta(days=age_days))
    cache.put(entry)
    return entry


def test_list_is_a_table_newest_first(tmp_path: Path) -> None:
    cache = ActionCache(tmp_path)
    old = _put(cache, "search for %query%", "https://shop.example/?q=1", 1, age_days=3)
    new = _put(cache, "open   the first\nresult", "https://shop.example/results", 2, age_days=0)
    lines = list_entries(cache).splitlines()
    assert lines[0].split() == ["KEY", "UPDATED", "ACTIONS", "INSTRUCTION", "URL"]
    assert lines[1].startswith(new.key[:12]) and "2026-11-01 09:30:00Z" in lines[1]
    assert '"open the first result"' in lines[1] and "2 actions" in lines[1]
    assert lines[2].startswith(old.key[:12]) and "1 action " in lines[2]
    assert "https://shop.example/?q=1" in lines[2]
    assert lines[3] == f"2 entries in {tmp_path}"


def test_list_of_an_empty_or_missing_cache(tmp_path: Path) -> None:
    missing = tmp_path / "none"
    assert list_entries(ActionCache(missing)) == f"No cache entries in {missing}."


def test_list_skips_an_unusable_file_with_a_warning(tmp_path: Path) -> None:
    cache = ActionCache(tmp_path)
    good = _put(cache, "search", "https://shop.example/", 1, age_days=0)
    bad = _put(cache, "other", "https://shop.example/", 1, age_days=0)
    cache.path_for(bad.key).write_text('{"format_version": 1, "key": ', encoding="utf-8")
    with pytest.warns(CacheWarning, match=bad.key):
        listing = list_entries(cache)
    assert good.key[:12] in listing and bad.key[:12] not in listing


def test_hand_edited_timestamp_without_zone_is_read_as_utc(tmp_path: Path) -> None:
    cache = ActionCache(tmp_path)
    _put(cache, "search", "https://shop.example/", 1, age_days=0)
    edited = _put(cache, "other", "https://shop.example/", 1, age_days=1)
    path = cache.path_for(edited.key)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["updated_at"] = "2026-11-05T08:00:00"  # newer than the other one, no zone
    path.write_text(json.dumps(data), encoding="utf-8")
    lines = list_entries(cache).splitlines()
    assert lines[1].startswith(edited.key[:12]) and "2026-11-05 08:00:00Z" in lines[1]


def test_show_prints_the_stored_json(tmp_path: Path) -> None:
    cache = ActionCache(tmp_path)
    entry = _put(cache, "klicke „Weiter“ für %query%", "https://shop.example/", 2, age_days=0)
    assert "klicke „Weiter“" in cache.path_for(entry.key).read_text(encoding="utf-8")  # not \u
    shown = show_entry(cache, entry.key[:12])
    assert json.loads(shown) == json.loads(cache.path_for(entry.key).read_text(encoding="utf-8"))
    assert shown.splitlines()[1].startswith('  "format_version"')
    with pytest.raises(CacheError, match="No cache entry"):
        show_entry(cache, "0000" if not entry.key.startswith("0000") else "ffff")


def test_clear_removes_every_entry(tmp_path: Path) -> None:
    cache = ActionCache(tmp_path)
    for n in range(3):
        _put(cache, f"step {n}", "https://shop.example/", 1, age_days=n)
    assert clear_entries(cache) == 3
    assert list(tmp_path.iterdir()) == []
    assert clear_entries(cache) == 0
    assert cache.stats.removals == 3
