"""The per-site history store without a browser: one file per site, atomic JSON, entries
past 90 days purged on opening, bounded sizes, and no variable value ever written."""

from __future__ import annotations

import json
import os
import threading
import warnings
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from urllib.parse import quote

import pytest

from stagehand_py import ConfigurationError
from stagehand_py.cache import CachedAction, ElementFingerprint
from stagehand_py.workflow import (
    ChecklistRecord,
    FailureRecord,
    FlowRecord,
    HistoryWarning,
    WorkflowHistory,
)
from stagehand_py.workflow import _history as store
from tests import secret_values

URL = "https://www.shop.example/search?q=lamp"


class Days:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        return self.now


def flow(item: str, path: str = "/search", at: datetime | None = None) -> FlowRecord:
    return FlowRecord(
        item=item,
        start_path=path,
        url="https://www.shop.example" + path,
        actions=[CachedAction(method="click", selectors=["xpath=//button"], description=item)],
        recorded_at=at or datetime.now(timezone.utc),
    )


def test_a_site_file_per_registrable_domain_and_lookups_by_item_and_page(tmp_path: Path) -> None:
    history = WorkflowHistory(tmp_path)
    assert history.record_flow(URL, flow("Search for  lamps"), secret_values=[])
    assert [p.name for p in tmp_path.iterdir()] == ["shop.example.json"]
    other_host = "https://m.shop.example/search?q=other"
    found = history.find_flow(other_host, "search for lamps")  # same site, same page path
    assert found is not None and found.item == "Search for  lamps"
    assert history.find_flow("https://www.shop.example/cart", "search for lamps") is None
    assert history.domains() == ["shop.example"]
    assert not list(tmp_path.glob(".*.tmp"))  # atomic writes leave no temporary files


def test_the_same_item_and_page_replace_the_older_flow_and_sizes_are_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The real bounds (100 flows, 200 failures) work the same; small ones keep the test fast.
    monkeypatch.setattr(store, "MAX_FLOWS", 4)
    monkeypatch.setattr(store, "MAX_FAILURES", 6)
    history = WorkflowHistory(tmp_path)
    history.record_flow(URL, flow("search"), secret_values=[])
    newer = flow("search")
    newer.steps = ["click -> ok"]
    history.record_flow(URL, newer, secret_values=[])
    assert [f.steps for f in history.site("shop.example").flows] == [["click -> ok"]]
    for number in range(9):
        history.record_flow(URL, flow(f"item {number}"), secret_values=[])
    for number in range(11):
        failure = FailureRecord(item=f"item {number}", code="MAX_STEPS", url=URL, message="m")
        history.record_failure(URL, failure, secret_values=[])
    site = history.site("shop.example")
    assert [f.item for f in site.flows] == ["item 5", "item 6", "item 7", "item 8"]
    assert len(site.failures) == 6 and site.failures[0].item == "item 5"


def test_entries_older_than_90_days_go_when_the_history_is_opened(tmp_path: Path) -> None:
    days = Days()
    history = WorkflowHistory(tmp_path, now=days)
    old = days.now - timedelta(days=91)
    history.record_flow(URL, flow("old", at=old), secret_values=[])
    history.record_flow(
        URL, flow("recent", "/cart", at=days.now - timedelta(days=89)), secret_values=[]
    )
    stale = ChecklistRecord(request="r", checklist=["a"], recorded_at=old)
    history.record_checklist(URL, stale, secret_values=[])
    other = "https://other.example/"
    history.record_failure(
        other,
        FailureRecord(item="x", code="TIMEOUT", url=other, message="m", recorded_at=old),
        secret_values=[],
    )
    reopened = WorkflowHistory(tmp_path, now=days)
    assert reopened.purged == 3
    assert [f.item for f in reopened.site("shop.example").flows] == ["recent"]
    assert reopened.site("shop.example").checklists == []
    assert not (tmp_path / "other.example.json").exists()  # nothing left: the file went


def test_no_variable_value_is_written_in_any_form(tmp_path: Path) -> None:
    history = WorkflowHistory(tmp_path)
    secrets = list(secret_values.ALL)
    typed = flow("log in")
    field = ["xpath=//input[@name='password']"]
    typed.actions[0] = CachedAction(
        method="fill", selectors=field, arguments=[secret_values.PASSWORD]
    )
    assert not history.record_flow(URL, typed, secret_values=secrets)
    encoded = flow("search", path="/search")
    encoded.url = "https://www.shop.example/search?q=" + quote(secret_values.EMAIL, safe="")
    assert not history.record_flow(URL, encoded, secret_values=secrets)
    failure = FailureRecord(item="pay", code="X", url=URL, message=f"bad {secret_values.PHONE}")
    assert not history.record_failure(URL, failure, secret_values=secrets)
    placeholder = flow("log in with <|PASSWORD|>")
    placeholder.actions[0] = CachedAction(
        method="fill",
        selectors=field,
        arguments=["<|PASSWORD|>"],
        fingerprint=ElementFingerprint(tag="input", attributes={"name": "password"}),
    )
    assert history.record_flow(URL, placeholder, secret_values=secrets)
    written = "".join(p.read_text("utf-8") for p in tmp_path.glob("*.json"))
    assert "<|PASSWORD|>" in written
    for value in secret_values.ALL:
        assert value not in written and quote(value, safe="") not in written


def test_an_unreadable_file_is_ignored_and_clear_removes_sites(tmp_path: Path) -> None:
    (tmp_path / "shop.example.json").write_text("{not json", "utf-8")
    with pytest.warns(HistoryWarning, match="not a history file"):
        history = WorkflowHistory(tmp_path)
    with pytest.warns(HistoryWarning, match="not a history file"):
        assert history.site("shop.example").flows == []
    with pytest.warns(HistoryWarning):  # the unusable file is read (and replaced)
        history.record_flow(URL, flow("search"), secret_values=[])
    history.record_flow("https://other.example/", flow("x"), secret_values=[])
    assert json.loads((tmp_path / "shop.example.json").read_text("utf-8"))["domain"] == (
        "shop.example"
    )
    assert history.clear("https://www.shop.example/anything") == 1
    assert history.domains() == ["other.example"]
    assert history.clear() == 1 and history.domains() == []


def test_a_file_where_the_directory_should_be_is_a_configuration_error(tmp_path: Path) -> None:
    target = tmp_path / "history"
    target.write_text("", "utf-8")
    with pytest.raises(ConfigurationError, match="is a file"):
        WorkflowHistory(target)


# ---------------------------------------------------------------- special files in the folder


def _open_in_a_thread(tmp_path: Path) -> tuple[list[object], bool]:
    """Open the history (its purge reads every file) and look one site up, in a thread that
    the test can give up on: a read that blocks must fail the test, not hang it."""
    outcome: list[object] = []

    def open_and_read() -> None:
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                history = WorkflowHistory(tmp_path)
                site = history.site("shop.example")
                outcome.extend([history.purged, site.flows, history.domains(), caught])
        except BaseException as exc:  # the assertion below names it
            outcome.append(exc)

    reader = threading.Thread(target=open_and_read, daemon=True)
    reader.start()
    reader.join(timeout=10)
    return outcome, reader.is_alive()


def _make_fifo(path: Path) -> None:
    os.mkfifo(path)


def _link_to_dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _make_sparse(path: Path) -> None:
    with path.open("wb") as handle:
        handle.truncate(8 << 30)  # 8 GB of holes: no disk used, but a read of it all dies


def _make_loop(path: Path) -> None:
    path.symlink_to(path.name)  # a symlink to itself: open() fails with ELOOP


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and devices are POSIX")
@pytest.mark.parametrize(
    ("plant", "reason"),
    [
        (_make_fifo, "not a regular file"),
        (_link_to_dev_zero, "not a regular file"),
        (_make_sparse, f"larger than {store.MAX_FILE_BYTES} bytes"),
        (_make_loop, "cannot be read"),
    ],
    ids=["fifo", "dev-zero", "sparse-8-gb", "symlink-loop"],
)
def test_a_special_file_in_the_folder_is_a_warning_never_a_hang_or_a_crash(
    tmp_path: Path, plant: Callable[[Path], None], reason: str
) -> None:
    WorkflowHistory(tmp_path).record_flow("https://other.example/", flow("x"), secret_values=[])
    planted = tmp_path / "shop.example.json"
    plant(planted)
    outcome, blocked = _open_in_a_thread(tmp_path)
    if blocked and planted.is_fifo():  # release the reader so the test can end
        os.close(os.open(planted, os.O_WRONLY | os.O_NONBLOCK))
    assert not blocked, "opening the history blocked on a special file"
    assert len(outcome) == 4, f"opening the history raised {outcome!r}"
    purged, flows, domains, caught = outcome
    assert purged == 0 and flows == [] and domains == ["other.example"]
    messages = [str(w.message) for w in caught if issubclass(w.category, HistoryWarning)]
    assert messages and all(reason in m and "shop.example.json" in m for m in messages)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads any file")
def test_a_file_without_read_permission_is_a_warning(tmp_path: Path) -> None:
    history = WorkflowHistory(tmp_path)
    history.record_flow(URL, flow("search"), secret_values=[])
    (tmp_path / "shop.example.json").chmod(0)
    with pytest.warns(HistoryWarning, match="cannot be read"):
        assert WorkflowHistory(tmp_path).find_flow(URL, "search") is None


def test_a_site_file_is_kept_within_its_bound_oldest_entries_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The real bound (8 MiB) works the same; a small one keeps the test fast.
    monkeypatch.setattr(store, "MAX_FILE_BYTES", 4000)
    history = WorkflowHistory(tmp_path)
    for number in range(12):
        failure = FailureRecord(item=f"item {number}", code="X", url=URL, message="m" * 200)
        history.record_failure(URL, failure, secret_values=[])
    history.record_flow(URL, flow("search"), secret_values=[])
    assert (tmp_path / "shop.example.json").stat().st_size <= 4000
    site = history.site("shop.example")  # read back: a file over the bound would not be
    assert [f.item for f in site.flows] == ["search"]
    assert site.failures and site.failures[-1].item == "item 11"
    assert len(site.failures) < 12


# ---------------------------------------------------------------- every form of a value


@pytest.mark.parametrize(
    "shown",
    [
        secret_values.EMAIL.upper(),
        "Ada.Lovelace@Analytical.TEST",  # mixed case
        "ADA.LOVELACE",  # the e-mail's local part
        "ada.lovelace",
        secret_values.PHONE.replace(" ", ""),  # whitespace collapsed
        secret_values.PHONE.replace(" ", "\u00a0"),  # another space
        secret_values.PASSWORD.lower(),
    ],
    ids=["upper", "mixed", "local-part-upper", "local-part", "collapsed", "nbsp", "lower"],
)
def test_a_value_in_a_selector_or_a_fingerprint_is_never_written(
    tmp_path: Path, shown: str
) -> None:
    history = WorkflowHistory(tmp_path)
    secrets = list(secret_values.ALL)
    in_selector = flow("continue")
    in_selector.actions[0] = CachedAction(
        method="click", selectors=[f"text=Continue as {shown}"], description="continue"
    )
    assert not history.record_flow(URL, in_selector, secret_values=secrets)
    in_name = flow("continue")
    in_name.actions[0] = CachedAction(
        method="click",
        selectors=["xpath=//button[1]"],
        description="continue",
        fingerprint=ElementFingerprint(tag="button", role="button", name=f"Continue as {shown}"),
    )
    assert not history.record_flow(URL, in_name, secret_values=secrets)
    failure = FailureRecord(item="x", code="X", url=URL, message=f"stuck on {shown}")
    assert not history.record_failure(URL, failure, secret_values=secrets)
    assert not list(tmp_path.glob("*.json"))
    # Text that only looks alike is written: the scanner is not a blanket refusal.
    fine = flow("continue as Ada")
    fine.steps = ["click 'Canada' -> ok", "fill <|EMAIL|> -> ok"]
    assert history.record_flow(URL, fine, secret_values=secrets)
