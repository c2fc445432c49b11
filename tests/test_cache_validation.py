"""Issue #13 item 6: a cache directory is input, and cannot be turned against the user.

Every entry is validated when it is loaded; anything that breaks a rule is a warned miss and
is never replayed. Only regular files of bounded size are read, without blocking.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from stagehand_py.cache import ActionCache, CacheEntry, CacheWarning
from stagehand_py.cache._store import MAX_ENTRY_BYTES
from tests.cache_writer_proc import build_entry


@pytest.fixture
def cache(tmp_path: Path) -> ActionCache:
    return ActionCache(tmp_path / "cache")


def _plant(cache: ActionCache, edit: Any) -> CacheEntry:
    """Store a good entry, then rewrite its file by hand with ``edit(data)``."""
    entry = build_entry(cache, "planted", actions=2)
    path = cache.put(entry)
    data = json.loads(path.read_text("utf-8"))
    edit(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    return entry


def _assert_refused(cache: ActionCache, entry: CacheEntry, reason: str) -> None:
    with pytest.warns(CacheWarning, match=reason):
        assert cache.get(entry.cache_key) is None


def test_a_good_entry_loads(cache: ActionCache) -> None:
    entry = build_entry(cache, "fine", actions=2)
    cache.put(entry)
    assert cache.get(entry.cache_key) == entry


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        # A method off the allow-list (what a planted file would try first).
        (lambda d: d["actions"][0].update(method="evaluate"), "not on act\\(\\)'s allow-list"),
        (lambda d: d["actions"][0].update(method="drag_and_drop"), "allow-list"),
        # A file to upload comes only from a variable: a stored literal path is refused.
        (
            lambda d: d["actions"][0].update(method="set_input_files", arguments=["/etc/passwd"]),
            "placeholders only",
        ),
        # A step missing its argument crashed the replay with an IndexError.
        (lambda d: d["actions"][0].update(arguments=[]), "fill takes 1 argument"),
        (lambda d: d["actions"][1].update(method="press", arguments=[]), "press takes 1"),
        (lambda d: d["actions"][0].update(method="click"), "click takes 0 argument"),
        # A variable aimed where no text is typed.
        (lambda d: d["actions"][0].update(method="press"), "press cannot take a variable"),
        (
            lambda d: d["actions"][0].update(method="scroll", arguments=["%email%"]),
            "scroll cannot take a variable",
        ),
        (lambda d: d["actions"][0].update(method="scroll", arguments=["sideways"]), "direction"),
        # A variable typed with nothing to confirm the element first.
        (lambda d: d["actions"][0].pop("fingerprint"), "types a variable but has no element"),
        (lambda d: d["actions"][1].update(selectors=[]), "has no selector"),
        (lambda d: d["actions"][1].update(selectors=["   "]), "has no selector"),
        # Shapes we never write.
        (lambda d: d["actions"][0].update(script="alert(1)"), "Extra inputs"),
        (lambda d: d.update(run_before="rm -rf /"), "Extra inputs"),
        (lambda d: d.update(actions=[]), "no actions"),
        (lambda d: d["actions"][0].update(arguments=["x" * 10_001]), "longer than"),
        (lambda d: d["actions"][0].update(selectors=["xpath=//a"] * 21), "at most 20"),
    ],
)
def test_a_hand_edited_entry_that_breaks_a_rule_is_refused(
    cache: ActionCache, edit: Any, reason: str
) -> None:
    entry = _plant(cache, edit)
    _assert_refused(cache, entry, reason)


def test_placeholders_are_allowed_in_fill_type_and_select_option(cache: ActionCache) -> None:
    def edit(data: dict[str, Any]) -> None:
        data["actions"][0]["method"] = "type"
        data["actions"][1].update(method="select_option", arguments=["<|EMAIL|>", "Other"])

    entry = _plant(cache, edit)
    loaded = cache.get(entry.cache_key)
    assert loaded is not None and [a.method for a in loaded.actions] == ["type", "select_option"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_planted_as_an_entry_is_refused_at_once(cache: ActionCache) -> None:
    entry = build_entry(cache, "x")
    cache.directory.mkdir(parents=True)
    os.mkfifo(cache.path_for(entry.cache_key))
    result: list[object] = []
    reader = threading.Thread(target=lambda: result.append(_get_warned(cache, entry)))
    started = time.monotonic()
    reader.start()
    reader.join(timeout=10)  # it used to wait 20 s for a writer; now it does not wait at all
    alive = reader.is_alive()
    if alive:  # unblock the reader so the test can end
        fd = os.open(cache.path_for(entry.cache_key), os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
    assert not alive, f"the reader blocked on the FIFO for {time.monotonic() - started:.1f} s"
    assert result == [None]
    assert [e.key for e in _entries_warned(cache)] == []


def _get_warned(cache: ActionCache, entry: CacheEntry) -> object:
    with pytest.warns(CacheWarning, match="not a regular file"):
        return cache.get(entry.cache_key)


def _entries_warned(cache: ActionCache) -> list[CacheEntry]:
    # entries() skips what is not a regular file without even opening it.
    return cache.entries()


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_device_linked_as_an_entry_is_refused_without_reading_it(cache: ActionCache) -> None:
    entry = build_entry(cache, "x")
    cache.directory.mkdir(parents=True)
    cache.path_for(entry.cache_key).symlink_to("/dev/zero")  # read_bytes() ran out of memory
    with pytest.warns(CacheWarning, match="not a regular file"):
        assert cache.get(entry.cache_key) is None


def test_an_oversized_file_is_refused_without_reading_it_all(cache: ActionCache) -> None:
    entry = build_entry(cache, "x")
    path = cache.put(entry)
    with path.open("ab") as handle:
        handle.write(b" " * (MAX_ENTRY_BYTES + 1))  # still valid JSON, just huge
    with pytest.warns(CacheWarning, match=f"larger than {MAX_ENTRY_BYTES} bytes"):
        assert cache.get(entry.cache_key) is None


def test_held_writes_are_seen_by_reads_and_written_only_on_commit(cache: ActionCache) -> None:
    kept = build_entry(cache, "kept", url="https://a.example/kept")
    cache.put(kept)
    cache.hold_writes()
    new = build_entry(cache, "new", url="https://a.example/new")
    cache.put(new)
    cache.remove(kept.cache_key)
    assert cache.get(new.cache_key) == new and cache.get(kept.cache_key) is None
    assert not cache.path_for(new.cache_key).exists()  # nothing on disk yet
    assert cache.path_for(kept.cache_key).exists()
    assert cache.discard() == 2
    assert cache.get(new.cache_key) is None and cache.get(kept.cache_key) == kept

    cache.hold_writes()
    cache.put(new)
    cache.remove(kept.cache_key)
    assert cache.commit() == 2 and not cache.holding
    assert cache.get(new.cache_key) == new and cache.get(kept.cache_key) is None
    assert cache.path_for(new.cache_key).is_file()
