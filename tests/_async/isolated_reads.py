"""Count the reads tests make through Playwright's locators, which run in its isolated world."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Locator as AsyncLocator


def count_isolated_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names of the Locator reads (``count``, ``get_attribute``) made from now on."""
    reads: list[str] = []
    for name in ("count", "get_attribute"):
        original = getattr(AsyncLocator, name)

        async def counted(
            self: AsyncLocator, *args: Any, _o: Any = original, _n: str = name, **kwargs: Any
        ) -> Any:
            reads.append(_n)
            return await _o(self, *args, **kwargs)

        monkeypatch.setattr(AsyncLocator, name, counted)
    return reads
