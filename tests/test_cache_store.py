"""ActionCache storage: round trip, atomic writes, unusable files as warned misses, stats."""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import pytest

from stagehand_py._errors import CacheError
from stagehand_py.cache import ActionCache, CachedAction, CacheEntry, CacheWarning
from stagehand_py.cache._key import CACHE_FORMAT_VERSION
from stagehand_py.cache._store import CACHE_DIR_ENV
from tests.cache_writer_proc import INSTRUCTION, VARIABLES, build_entry


@pytest.fixture
def cache(tmp_path: Path) -> ActionCache:
    return ActionCache(tmp_path / "cache")


def _only_files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


def test_put_then_get_round_trips_as_readable_json(cache: ActionCache) -> None:
    entry = build_entry(cache, "w:0", actions=2)
    path = cache.put(entry)
    assert path == cache.path_for(entry.cache_key)
    assert _only_files(cache.directory) == [f"{entry.key}.json"]  # no temp file left behind
    text = path.read_text(encoding="utf-8")
    assert text.startswith("{\n  ") and text.endswith("\n")  # indented for people to read
    assert json.loads(text)["actions"][0]["arguments"] == ["<|EMAIL|>"]
    assert cache.get(entry.cache_key) == entry
    assert cache.stats.writes == 1
    if os.name == "posix":  # like any file the user creates, not mkstemp's owner-only mode
        umask = os.umask(0)
        os.umask(umask)
        assert path.stat().st_mode & 0o777 == 0o666 & ~umask


def test_missing_entry_and_missing_directory_are_quiet_misses(cache: ActionCache) -> None:
    key = cache.key_for("anything", "https://a.example/")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cache.get(key) is None
        assert cache.entries() == []
    assert not cache.directory.exists()  # reading never creates the directory


def test_rewrite_replaces_the_entry_and_keeps_one_file(cache: ActionCache) -> None:
    first = build_entry(cache, "first", actions=3)
    cache.put(first)
    healed = first.with_actions([CachedAction(method="click", selectors=["#go"])])
    cache.put(healed)
    stored = cache.get(first.cache_key)
    assert stored is not None and [a.method for a in stored.actions] == ["click"]
    assert stored.created_at == first.created_at and stored.updated_at >= first.updated_at
    assert len(_only_files(cache.directory)) == 1


def _warned_miss(cache: ActionCache, entry: CacheEntry, reason: str) -> None:
    with pytest.warns(CacheWarning, match=reason):
        assert cache.get(entry.cache_key) is None


def test_truncated_file_is_a_miss_with_warning(cache: ActionCache) -> None:
    entry = build_entry(cache, "w:0")
    path = cache.put(entry)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])  # what a full disk or a killed editor leaves
    _warned_miss(cache, entry, "not complete JSON")
    path.write_bytes(b"")
    _warned_miss(cache, entry, "not complete JSON")


def test_corrupt_json_and_wrong_shape_are_misses_with_warning(
    cache: ActionCache, caplog: pytest.LogCaptureFixture
) -> None:
    entry = build_entry(cache, "w:0")
    path = cache.put(entry)
    path.write_bytes(b"\x00\xff{not json")
    _warned_miss(cache, entry, "not complete JSON")
    assert any("Ignoring the cache file" in r.getMessage() for r in caplog.records)
    data = json.loads(entry.to_json())
    data["actions"] = "click everything"
    path.write_text(json.dumps(data), encoding="utf-8")
    _warned_miss(cache, entry, r"not a valid cache entry \(actions")
    data = json.loads(entry.to_json())
    data["instruction"] = "edited by hand"  # no longer matches the key it is stored under
    path.write_text(json.dumps(data), encoding="utf-8")
    _warned_miss(cache, entry, "not a valid cache entry")


def test_other_format_version_is_a_miss_with_warning(cache: ActionCache) -> None:
    entry = build_entry(cache, "w:0")
    path = cache.put(entry)
    data = json.loads(entry.to_json())
    data["format_version"] = CACHE_FORMAT_VERSION + 1
    path.write_text(json.dumps(data), encoding="utf-8")
    _warned_miss(cache, entry, f"format version {CACHE_FORMAT_VERSION + 1}")


def test_entry_copied_under_another_key_is_a_miss(cache: ActionCache) -> None:
    one = build_entry(cache, "w:0", url="https://a.example/one")
    two = build_entry(cache, "w:0", url="https://a.example/two")
    cache.put(one)
    cache.path_for(two.cache_key).write_bytes(cache.path_for(one.cache_key).read_bytes())
    _warned_miss(cache, two, "another key")


def test_unusable_files_are_skipped_by_entries_and_rewritten_by_put(cache: ActionCache) -> None:
    good = build_entry(cache, "good", url="https://a.example/good")
    bad = build_entry(cache, "bad", url="https://a.example/bad")
    cache.put(good)
    cache.put(bad)
    cache.path_for(bad.cache_key).write_text("{", encoding="utf-8")
    with pytest.warns(CacheWarning):
        assert [e.key for e in cache.entries()] == [good.key]
    cache.put(bad)  # the next successful act heals the file
    assert cache.get(bad.cache_key) == bad


def test_failed_write_leaves_old_entry_and_no_temp_file(
    cache: ActionCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = build_entry(cache, "old")
    cache.put(old)

    def disk_full(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", disk_full)
    with pytest.raises(CacheError, match="No space left on device"):
        cache.put(build_entry(cache, "new"))
    monkeypatch.undo()
    assert _only_files(cache.directory) == [f"{old.key}.json"]
    assert cache.get(old.cache_key) == old
    assert cache.stats.writes == 1


def test_unwritable_directory_is_a_cache_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory", encoding="utf-8")
    cache = ActionCache(blocker / "cache")
    with pytest.raises(CacheError, match=CACHE_DIR_ENV):
        cache.put(build_entry(cache, "x"))


def test_remove_clear_and_stats(cache: ActionCache) -> None:
    entries = [build_entry(cache, "x", url=f"https://a.example/{n}") for n in range(3)]
    for entry in entries:
        cache.put(entry)
    (cache.directory / ".abandoned.tmp").write_text("{", encoding="utf-8")  # a killed writer
    (cache.directory / "README.txt").write_text("kept", encoding="utf-8")  # not ours
    assert cache.remove(entries[0].cache_key) is True
    assert cache.remove(entries[0].cache_key) is False
    assert cache.remove(entries[1].key) is True  # a digest string works too
    with pytest.raises(CacheError, match="not a cache key"):
        cache.remove("../README")
    assert cache.clear() == 1
    assert _only_files(cache.directory) == ["README.txt"]
    for status in ("hit", "hit", "miss", "healed"):
        cache.stats.record(status)
    stats = cache.stats
    assert (stats.hits, stats.misses, stats.healed, stats.writes, stats.removals) == (2, 1, 1, 3, 3)
    with pytest.raises(ValueError, match="unknown cache status"):
        cache.stats.record("stale")  # type: ignore[arg-type]


def test_find_by_prefix(cache: ActionCache) -> None:
    entries = [build_entry(cache, "x", url=f"https://a.example/{n}") for n in range(3)]
    for entry in entries:
        cache.put(entry)
    target = entries[1]
    assert cache.find(target.key) == target
    assert cache.find(f"  {target.key[:12].upper()} ") == target
    with pytest.raises(CacheError, match="at least 4 hex digits"):
        cache.find("ab1")
    with pytest.raises(CacheError, match="at least 4 hex digits"):
        cache.find("not-a-key")
    taken = {e.key[:4] for e in entries}
    absent = next(f"{n:04x}" for n in range(0x10000) if f"{n:04x}" not in taken)
    with pytest.raises(CacheError, match="No cache entry"):
        cache.find(absent)


def test_find_refuses_an_ambiguous_prefix(cache: ActionCache) -> None:
    # Keys are deterministic: search URLs until two digests share their first 4 digits.
    by_prefix: dict[str, str] = {}
    for n in range(20_000):
        url = f"https://a.example/{n}"
        prefix = cache.key_for(INSTRUCTION, url, VARIABLES).digest[:4]
        if prefix in by_prefix:
            break
        by_prefix[prefix] = url
    cache.put(build_entry(cache, "x", url=by_prefix[prefix]))
    cache.put(build_entry(cache, "x", url=url))
    with pytest.raises(CacheError, match=r"2 cache entries start with .* give more digits"):
        cache.find(prefix)


def test_find_reports_an_unusable_file(cache: ActionCache) -> None:
    entry = build_entry(cache, "x")
    cache.put(entry)
    cache.path_for(entry.cache_key).write_text("[", encoding="utf-8")
    with pytest.warns(CacheWarning), pytest.raises(CacheError, match="unusable"):
        cache.find(entry.key[:8])


def test_from_env(tmp_path: Path) -> None:
    assert ActionCache.from_env(environ={}) is None
    assert ActionCache.from_env(environ={CACHE_DIR_ENV: "  "}) is None
    cache = ActionCache.from_env(environ={CACHE_DIR_ENV: str(tmp_path)}, url_normalizer=str.lower)
    assert cache is not None and cache.directory == tmp_path
    assert cache.url_normalizer is str.lower
