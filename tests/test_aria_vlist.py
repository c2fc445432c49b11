"""The virtualised-list rules with no browser: the stalled-scroll guard and container order."""

from __future__ import annotations

import pytest

from stagehand_py.aria._vlist import ListContainer, ListSearch, rank_containers, stalled


@pytest.mark.parametrize(
    ("positions", "expected"),
    [
        ([0, 480, 900, 900], False),  # one step without movement
        ([0, 480, 900, 900, 900], True),  # two in a row: the list stopped moving
        ([0, 480, 900, 903, 906], True),  # creeping by less than 5 px counts as stopped
        ([0, 0, 480, 480, 960], False),  # stalls that are not in a row
        ([0, 0], False),  # too few positions to judge
    ],
)
def test_stalled_guard(positions: list[float], expected: bool) -> None:
    assert stalled(positions) is expected


def container(selector: str, scrolls: bool, ratio: float) -> ListContainer:
    return ListContainer(selector, "list", scrolls, ratio, 600, 600 * ratio, 0)


def test_scrollers_first_then_by_ratio() -> None:
    ranked = rank_containers(
        [container("a", False, 0.5), container("b", True, 2.5), container("c", True, 40)]
    )
    assert [c.selector for c in ranked] == ["c", "b", "a"]


def test_log_fields_use_the_adr_names() -> None:
    search = ListSearch(container("css=#feed", True, 2.5), scroll_positions=[480, 900])
    search.viewport_match_counts = [0, 0]
    assert search.log_fields() == {
        "containerSelector": "css=#feed",
        "clientHeight": 600,
        "scrollHeight": 1500.0,
        "ratio": 2.5,
        "attemptCount": 2,
        "scrollPositions": [480, 900],
        "viewportMatchCounts": [0, 0],
    }
