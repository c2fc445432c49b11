"""Locators for elements inside closed shadow roots, which no Playwright engine reaches.

An element inside a closed root carries a selector of stagehand_py's own
(:mod:`stagehand_py.dom._shadow`). :func:`scoped_locator` turns any stored selector into a
locator: a Playwright one, or for those a :class:`ClosedShadowLocator`, which finds the element
again on every call (as a locator does) from its host, through the closed roots DevTools
registered on the page (:mod:`.devtools`), and acts on it through an element handle, so
Playwright's usual checks (visible, enabled, receives the click) still apply. It offers what
the SDK asks of a located element (actions, reads, ``evaluate``, relative ``locator``);
anything else raises, naming the closed root.
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import ElementHandle as AsyncElementHandle
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import FrameLocator as AsyncFrameLocator
from playwright.async_api import Locator as AsyncLocator
from playwright.async_api import Page as AsyncPage

from ...dom._js import load_js
from ...dom._shadow import ClosedShadowPath, is_closed_shadow, parse_closed_shadow
from .devtools import prepare_page


def scoped_locator(
    page: AsyncPage, scope: AsyncPage | AsyncFrameLocator, selector: str
) -> AsyncLocator:
    """``scope.locator(selector)``, or the closed-shadow locator a closed-root selector names."""
    if not is_closed_shadow(selector):
        return scope.locator(selector)
    return ClosedShadowLocator(page, scope, selector, parse_closed_shadow(selector))


class _HandleLocator(AsyncLocator):
    """A locator whose element is found by our own code: each call finds it again."""

    def __init__(self, page: AsyncPage, description: str) -> None:  # no Playwright selector
        self._owner = page
        self._description = description

    def __repr__(self) -> str:
        return f"<Locator {self._description}>"

    async def _all(self) -> list[AsyncElementHandle]:
        raise NotImplementedError

    async def _one(self) -> AsyncElementHandle:
        found = await self._all()
        if len(found) != 1:
            raise PlaywrightError(
                f"{self._description} matches {len(found)} elements (inside a closed shadow root)"
            )
        return found[0]

    @property
    def page(self) -> AsyncPage:
        return self._owner

    @property
    def first(self) -> AsyncLocator:
        return self.nth(0)

    @property
    def last(self) -> AsyncLocator:
        return self.nth(-1)

    def nth(self, index: int) -> AsyncLocator:
        return _Nth(self, index)

    def locator(self, selector_or_locator: Any, **kwargs: Any) -> AsyncLocator:
        if kwargs or not isinstance(selector_or_locator, str):
            raise PlaywrightError("inside a closed shadow root only a selector string is supported")
        return _Within(self, selector_or_locator)

    async def count(self) -> int:
        return len(await self._all())

    async def element_handle(self, **kwargs: Any) -> AsyncElementHandle:
        return await self._one()

    async def element_handles(self) -> list[AsyncElementHandle]:
        return await self._all()

    async def evaluate(self, expression: str, arg: Any = None, **kwargs: Any) -> Any:
        return await (await self._one()).evaluate(expression, arg)

    async def evaluate_all(self, expression: str, arg: Any = None) -> Any:
        found = await self._all()
        if not found:
            return await self._owner.evaluate(expression, [])
        listed = await found[0].evaluate_handle("(el, rest) => [el, ...rest]", found[1:])
        try:
            return await listed.evaluate(expression, arg)
        finally:
            await listed.dispose()

    async def get_attribute(self, name: str, **kwargs: Any) -> str | None:
        return await (await self._one()).get_attribute(name)

    async def input_value(self, **kwargs: Any) -> str:
        return await (await self._one()).input_value(**kwargs)

    async def inner_text(self, **kwargs: Any) -> str:
        return await (await self._one()).inner_text()

    async def text_content(self, **kwargs: Any) -> str | None:
        return await (await self._one()).text_content()

    async def is_visible(self, **kwargs: Any) -> bool:
        found = await self._all()
        return len(found) == 1 and await found[0].is_visible()

    async def is_checked(self, **kwargs: Any) -> bool:
        return await (await self._one()).is_checked()

    async def is_enabled(self, **kwargs: Any) -> bool:
        return await (await self._one()).is_enabled()

    async def is_editable(self, **kwargs: Any) -> bool:
        return await (await self._one()).is_editable()

    async def click(self, **kwargs: Any) -> None:
        await (await self._one()).click(**kwargs)

    async def dblclick(self, **kwargs: Any) -> None:
        await (await self._one()).dblclick(**kwargs)

    async def hover(self, **kwargs: Any) -> None:
        await (await self._one()).hover(**kwargs)

    async def focus(self, **kwargs: Any) -> None:
        await (await self._one()).focus()

    async def check(self, **kwargs: Any) -> None:
        await (await self._one()).check(**kwargs)

    async def uncheck(self, **kwargs: Any) -> None:
        await (await self._one()).uncheck(**kwargs)

    async def scroll_into_view_if_needed(self, **kwargs: Any) -> None:
        await (await self._one()).scroll_into_view_if_needed(**kwargs)

    async def fill(self, value: str, **kwargs: Any) -> None:
        await (await self._one()).fill(value, **kwargs)

    async def press(self, key: str, **kwargs: Any) -> None:
        await (await self._one()).press(key, **kwargs)

    async def press_sequentially(self, text: str, **kwargs: Any) -> None:
        await (await self._one()).type(text, **kwargs)

    async def select_option(self, value: Any = None, **kwargs: Any) -> list[str]:
        return await (await self._one()).select_option(value, **kwargs)

    async def set_input_files(self, files: Any, **kwargs: Any) -> None:
        await (await self._one()).set_input_files(files, **kwargs)


class ClosedShadowLocator(_HandleLocator):
    """The element a closed-shadow selector names (see the module docstring)."""

    def __init__(
        self,
        page: AsyncPage,
        scope: AsyncPage | AsyncFrameLocator,
        selector: str,
        path: ClosedShadowPath | None,
    ) -> None:
        super().__init__(page, selector)
        self._scope = scope
        self._path = path

    async def _find(self) -> AsyncElementHandle | None:
        if self._path is None:  # a tampered cache file or page: never a match
            raise PlaywrightError(f"malformed selector {self._description[:200]}")
        host = self._scope.locator(self._path.host)
        if await host.count() != 1:
            return None
        handle = await host.evaluate_handle(load_js("closed_shadow.js"), list(self._path.steps))
        element = handle.as_element()
        if element is None:
            await handle.dispose()
        return element

    async def _all(self) -> list[AsyncElementHandle]:
        element = await self._find()
        if element is None:
            # A document whose closed roots were not registered yet (a cached step on a fresh
            # page): have DevTools find them, then look once more.
            await prepare_page(self._owner)
            element = await self._find()
        return [] if element is None else [element]


class _FromParent(_HandleLocator):
    """Elements found from another closed-shadow locator's, by ``step`` (as Playwright writes
    it after ``>>``)."""

    def __init__(self, parent: _HandleLocator, step: str) -> None:
        super().__init__(parent.page, f"{parent._description} >> {step}")
        self._parent = parent

    async def _all(self) -> list[AsyncElementHandle]:
        return await self._pick(await self._parent._all())

    async def _pick(self, found: list[AsyncElementHandle]) -> list[AsyncElementHandle]:
        raise NotImplementedError


class _Within(_FromParent):
    """``selector`` relative to another closed-shadow element (its label, its form)."""

    def __init__(self, parent: _HandleLocator, selector: str) -> None:
        super().__init__(parent, selector)
        self._selector = selector

    async def _pick(self, found: list[AsyncElementHandle]) -> list[AsyncElementHandle]:
        out: list[AsyncElementHandle] = []
        for element in found:
            out += await element.query_selector_all(self._selector)
        return out


class _Nth(_FromParent):
    def __init__(self, parent: _HandleLocator, index: int) -> None:
        super().__init__(parent, f"nth={index}")
        self._index = index

    async def _pick(self, found: list[AsyncElementHandle]) -> list[AsyncElementHandle]:
        try:
            return [found[self._index]]
        except IndexError:
            return []
