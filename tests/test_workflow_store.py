"""The per-site history store without a browser: one file per site, atomic JSON, entries
past 90 days purged on opening, bounded sizes, and no variable value ever written."""

from __future__ import annotations

import json
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
    history = WorkflowHistory(tmp_path)
    assert history.site("shop.example").flows == []
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
