"""The checkout suite's own fixture: the shop, served on 127.0.0.1.

The stagehand_py plugin gives ``stagehand_page`` (pytest-playwright's ``page`` with act,
extract, observe and check) and its model from ``--stagehand-model`` / ``STAGEHAND_PY_MODEL``
(with only ``OPENAI_API_KEY`` set: ``openai/gpt-4.1-mini``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from stagehand_py.testing import serve_directory

PAGES = Path(__file__).resolve().parent.parent / "pages"


@pytest.fixture(scope="session")
def shop_url() -> Iterator[str]:
    """examples/pages served on 127.0.0.1 (trailing slash)."""
    with serve_directory(PAGES) as base_url:
        yield base_url
