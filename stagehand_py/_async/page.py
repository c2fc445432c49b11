"""AsyncStagehandPage: the user's own Playwright page, plus act, extract, observe and check.

It *is* a Playwright ``Page`` (a subclass sharing the same underlying connection object), so
``isinstance(page, Page)``, ``expect(page)``, locators, events and fixtures all keep working.
"""

from __future__ import annotations

import datetime
import functools
import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from playwright.async_api import Page as AsyncPage
from playwright.async_api import Position
from pydantic import BaseModel

from .._config import SnapshotMode
from .._inputs import check_page_type, refuse_playwright_timeout
from .._session_secrets import redact_known
from .._snapshot import Snapshot
from .._types import ActResult, ObserveResult
from ..agent import AgentResult
from ..check import CheckResult
from ..check._selector import looks_like_selector
from .browser.in_time import within
from .browser.inspect import annotated_screenshot, take_snapshot

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..workflow._result import WorkflowResult
    from .options import (
        ActOptions,
        AgentOptions,
        CheckOptions,
        ExtractOptions,
        ObserveOptions,
        WorkflowOptions,
    )
    from .stagehand import AsyncStagehand

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")


class AsyncStagehandPage(AsyncPage):
    """A Playwright page with plain-language methods. Make one with ``AsyncStagehand.wrap``."""

    def __init__(self, page: AsyncPage, stagehand: AsyncStagehand) -> None:
        check_page_type(page, AsyncPage, type(stagehand).__name__)
        super().__init__(page._impl_obj)
        self._stagehand = stagehand

    def __repr__(self) -> str:
        # A URL may carry a value a call typed (a GET form): pytest prints this repr among a
        # failing test's locals, so it is redacted like everything else.
        return f"<Page url={redact_known(self.url)!r}>"

    @property
    def stagehand(self) -> AsyncStagehand:
        """The SDK this page reports to (its model, limits, cache and history)."""
        return self._stagehand

    async def act(self, action: str | ObserveResult, **options: Unpack[ActOptions]) -> ActResult:
        """Do what ``action`` says on this page (or run an observe() result with no LLM call).

        ``variables`` values are substituted locally for ``<|NAME|>`` / ``%name%`` and never
        reach the model, logs or results. On failure raises :class:`~stagehand_py.ActError`
        (its ``.result`` says what happened); pass ``raise_on_failure=False`` to get the
        unsuccessful :class:`~stagehand_py.ActResult` instead. Any
        :class:`~stagehand_py.Settings` field overrides its setting for this call, e.g.
        ``max_steps=3, timeout_s=20, max_tokens=512, snapshot="aria"``;
        ``model="openai/gpt-4.1"`` or ``llm=`` asks another model than the session's, and
        ``instructions=`` adds to the session's own instructions, for this call only (the same
        three work on extract, observe, agent).
        """
        __tracebackhide__ = True
        return await self._stagehand._act(self, action, options)

    @overload
    async def extract(
        self, instruction: str, schema: type[M], **options: Unpack[ExtractOptions]
    ) -> M: ...

    @overload
    async def extract(
        self, instruction: str, schema: dict[str, Any], **options: Unpack[ExtractOptions]
    ) -> dict[str, Any]: ...

    @overload
    async def extract(
        self,
        instruction: str | None = None,
        schema: None = None,
        **options: Unpack[ExtractOptions],
    ) -> str: ...

    async def extract(
        self,
        instruction: str | None = None,
        schema: type[BaseModel] | dict[str, Any] | None = None,
        **options: Unpack[ExtractOptions],
    ) -> Any:
        """Structured data from the page: an instance of a pydantic ``schema``, validated data
        for a JSON-schema dict, or the page's readable text when ``schema`` is omitted.
        ``selector`` limits the extraction to part of the page; ``timeout_s`` bounds the
        whole call (default: the ``timeout_s`` setting); ``max_tokens``, ``temperature``,
        ``model`` / ``llm`` and ``instructions`` apply to this call only (see :meth:`act`);
        ``snapshot="aria"`` reads the accessibility tree instead of the cleaned HTML (default:
        ``Settings.snapshot``)."""
        __tracebackhide__ = True
        outcome = await self._stagehand._extract(self, instruction, schema, options)
        if schema is None:
            return outcome.value["text"]
        return outcome.value

    async def observe(
        self, instruction: str | None = None, **options: Unpack[ObserveOptions]
    ) -> list[ObserveResult]:
        """Elements matching ``instruction`` (or the page's main controls), best first; pass
        one to :meth:`act` to run it without a model call. ``timeout_s`` bounds the call;
        ``max_tokens``, ``temperature``, ``model`` / ``llm`` and ``instructions`` apply to this
        call only (see :meth:`act`); so does ``snapshot`` for ``Settings.snapshot`` (``"dom"``
        or ``"aria"``)."""
        __tracebackhide__ = True
        outcome = await self._stagehand._observe(self, instruction, options)
        return outcome.results

    # A different verb than Playwright's Page.check (which ticks a checkbox), which it still
    # runs for a selector: the signatures cannot match.
    async def check(  # type: ignore[override]
        self,
        statement: str,
        *,
        force: bool | None = None,
        no_wait_after: bool | None = None,
        position: Position | None = None,
        scroll: Literal["auto", "none"] | None = None,
        strict: bool | None = None,
        timeout: float | datetime.timedelta | None = None,
        trial: bool | None = None,
        **options: Unpack[CheckOptions],
    ) -> CheckResult:
        """Assert ``statement`` (plain language) about the page: returns a
        :class:`~stagehand_py.CheckResult` when it holds, raises
        :class:`~stagehand_py.CheckError` (an ``AssertionError``, so pytest reports a failed
        test) with the model's reason and the evidence when it does not.

        The first run asks the model, which judges the statement and, where it can, compiles
        it into Playwright assertions (``to_have_text``, ``to_be_checked``...), checked on
        the page before they are accepted; with an action cache they are stored and the next
        run replays them with no model call (``cache_mode="require"``: a failing one raises
        with Playwright's own expected/actual message). A statement they cannot express is
        judged by the model every run (``result.compiled`` is False, with the reason).
        ``variables``, ``timeout_s``, ``max_tokens``, ``temperature``, ``snapshot``,
        ``model`` / ``llm`` and ``instructions`` work as for :meth:`observe`.

        Written as a Playwright selector (``page.check("#agree")``, or with Playwright's own
        keywords such as ``force=True``), it is Playwright's ``Page.check``: the checkbox is
        ticked and None is returned.
        """
        __tracebackhide__ = True
        # The Playwright keywords given (each named once here, and passed on as given).
        given: dict[str, Any] = {
            name: value
            for name, value in (
                ("force", force),
                ("no_wait_after", no_wait_after),
                ("position", position),
                ("scroll", scroll),
                ("strict", strict),
                ("timeout", timeout),
                ("trial", trial),
            )
            if value is not None
        }
        written_as_selector = isinstance(statement, str) and looks_like_selector(statement)
        if list(given) == ["timeout"] and not written_as_selector:
            # A statement with Playwright's timeout= (milliseconds) only: meant as timeout_s.
            refuse_playwright_timeout("check", given)
        if written_as_selector or given:
            await AsyncPage.check(self, statement, **given)
            return None  # type: ignore[return-value]  # Playwright's check returns nothing
        return await self._stagehand._check(self, statement, options)

    async def agent(self, task: str, **options: Unpack[AgentOptions]) -> AgentResult:
        """Let the model drive this page, step by step and across tabs, until ``task`` is done.

        Each step it sees the page's numbered elements in view, answers with 1 to
        ``max_actions_per_step`` actions, and they run through the same executor as act().
        ``approval(step, proposed_output, state)`` sees every action of a step before any
        runs and returns ``Approve()``, ``Retry(feedback)``, ``Skip()`` or ``Cancel()`` (an
        async function works too); ``controls`` pauses, resumes or stops the run from another
        task or thread. :class:`~stagehand_py.AgentSettings` fields override ``Settings.agent``
        for this run, e.g. ``max_steps=20, timeout_s=300, use_vision=True,
        allowed_domains=["*.example.com"]``.
        ``snapshot`` overrides ``Settings.snapshot`` (how each step reads the page).
        Returns an :class:`~stagehand_py.agent.AgentResult` (``success``, ``final_text``,
        ``data``, ``reason``, ``steps``...); it never raises for a task that was not reached.
        """
        __tracebackhide__ = True
        return await self._stagehand._agent(self, task, options)

    async def workflow(self, text: str, **options: Unpack[WorkflowOptions]) -> WorkflowResult:
        """Turn ``text`` into a checklist with one model request, then work through it item
        by item on this page until each item's completion check says it is done.

        Each step sees the whole checklist with its progress and the current item; emergency
        mode (3 failed steps in a row, 30 s without progress, or low confidence) switches to
        ``fallback_model`` and the DOM view for the rest of the item. With a history
        (``history_dir=``, ``$STAGEHAND_PY_HISTORY_DIR``) items that worked before replay with
        no model call. ``sitemap=False`` turns sitemap hints off; ``clock`` is the monotonic
        clock emergency mode measures a stall with. :class:`~stagehand_py.WorkflowSettings`
        fields override ``Settings.workflow``, e.g. ``max_attempts=8, timeout_s=300,
        view="dom"``. Returns a :class:`~stagehand_py.WorkflowResult`; it never raises for a
        goal not reached.
        """
        __tracebackhide__ = True
        return await self._stagehand._workflow(self, text, options)

    async def snapshot(
        self, mode: SnapshotMode | None = None, *, timeout_s: float | None = None
    ) -> Snapshot:
        """What the model sees: numbered elements in chunks (``.render_chunk(i)``), in
        ``mode`` (default: the Stagehand's ``Settings.snapshot``). ``timeout_s`` (default:
        the ``timeout_s`` setting) bounds the call, whatever the page does: a page that holds
        its main thread is interrupted and :class:`~stagehand_py.StagehandTimeoutError` is
        raised."""
        __tracebackhide__ = True
        chosen = mode or self._stagehand.settings.snapshot
        return await self._in_time(
            "snapshot", timeout_s, functools.partial(take_snapshot, self, mode=chosen)
        )

    async def annotated_screenshot(
        self, path: str | os.PathLike[str], *, timeout_s: float | None = None
    ) -> Snapshot:
        """Save a screenshot with the snapshot's element numbers drawn over the elements.
        ``timeout_s`` bounds the call like :meth:`snapshot`'s."""
        __tracebackhide__ = True
        return await self._in_time(
            "annotated_screenshot", timeout_s, functools.partial(annotated_screenshot, self, path)
        )

    async def _in_time(
        self, call: str, timeout_s: float | None, body: Callable[[], Awaitable[T]]
    ) -> T:
        """``body()`` under the call's hard deadline (the one act/extract/observe run under)."""
        __tracebackhide__ = True
        return await within(
            call, self, timeout_s, body, default_s=self._stagehand.settings.timeout_s
        )
