"""``pystagehand snapshot URL --mode aria`` prints the accessibility-tree list."""

from __future__ import annotations

import pytest

from tests.test_cli import run_cli

pytestmark = pytest.mark.slow  # starts processes or runs long: left out of the inner loop


def test_snapshot_mode_aria(capsys: pytest.CaptureFixture[str], pages_url: str) -> None:
    code, out, _ = run_cli(capsys, "snapshot", pages_url + "aria/roles.html", "--mode", "aria")
    assert code == 0
    assert "<switch>Digest" in out and "<button>Invite" in out
    code, out, _ = run_cli(capsys, "snapshot", pages_url + "aria/roles.html")
    assert code == 0 and "<switch" not in out  # the DOM view stays the default


def test_snapshot_mode_is_checked(capsys: pytest.CaptureFixture[str], pages_url: str) -> None:
    with pytest.raises(SystemExit):
        run_cli(capsys, "snapshot", pages_url + "hello.html", "--mode", "tree")
    assert "invalid choice" in capsys.readouterr().err
