"""workflow() through the action cache (the cache's one path is
:class:`~stagehand_py._async.cache.cached.AsyncCachedCall`; the same store and modes as act,
check and agent).

A successful workflow whose every item was done by element actions is stored as one entry
keyed like act()'s: the request, the normalised start URL and the variable names. It holds
the checklist, and for each item the actions that did it. The next run of the same request
there needs no checklist request and replays each item's actions with no model call, each
one located, fingerprint-checked and secret-scope-checked as a cached act's step is (hit). At
the first step that no longer holds, the items before it stay done and the model works on
that item from the page as it is, then on the rest; a success rewrites the entry ("healed",
the old one kept as its previous version). ``cache_mode="require"`` (or ``self_heal=False``)
raises :class:`~stagehand_py.CacheMissError` at that step instead.
"""

from __future__ import annotations

from ..._errors import CacheError
from ...cache import CachedAction, CacheEntry, CacheKey
from ...cache._entry import CachedItem
from ...workflow._result import WorkflowResult
from ..agent.replay import AsyncCachedRun, replayed_outcome
from ..cache.act import replay_until_drift
from ..cache.cached import Drift, Stale
from .run import AsyncWorkflowRun


class AsyncCachedWorkflow(AsyncCachedRun[WorkflowResult]):
    """A workflow() through the cache: its entry is the checklist and each item's actions."""

    kind = "workflow"
    stored = "workflow"
    workflow_run: AsyncWorkflowRun
    _held: dict[int, list[CachedAction]] | None = None  # item id -> stored steps that held

    async def replay(self, entry: CacheEntry) -> WorkflowResult:
        run = self.workflow_run
        stored = entry.items or []
        run._set_items([item.text for item in stored], [
            n for n, item in enumerate(stored, 1) if item.find_page
        ])  # fmt: skip
        run.checklist_replayed = True
        self._held = {}
        for item, cached in zip(run.items, stored, strict=True):
            reach = await replay_until_drift(
                run.run.page,
                cached.actions,
                variables=self.variables,
                settings=self.settings,
                seconds_left=run.run.clock.run_left(),
            )
            run.run.page = reach.page
            item.actions = [replayed_outcome(a) for a in cached.actions[: reach.held]]
            item.url = self.variables.redact(reach.page.url)
            if reach.drift is not None:
                self._held[item.id] = cached.actions[: reach.held]
                item.replay_note = reach.drift
                raise Drift(f"item {item.id} ({item.text}), {reach.drift}")
            item.status, item.replayed = "done", True
            run.item_flows[item.id] = list(cached.actions)
        return run._result("done", "")

    async def ask(self, stale: Stale | None, *, cached: bool) -> WorkflowResult:
        run = self.workflow_run
        run.run.keeps_flow = cached or run.history is not None  # the history keeps flows
        return await run.run_all()

    async def entry_actions(self, result: WorkflowResult) -> list[CachedAction]:
        return []  # a workflow's entry holds items (entry_for)

    async def entry_for(
        self, key: CacheKey, result: WorkflowResult, stale: Stale | None
    ) -> CacheEntry | None:
        run = self.workflow_run
        items: list[CachedItem] = []
        for item in result.items:
            if item.id in run.unreplayable:
                raise CacheError(
                    f"item {item.id} needed more than element actions "
                    f"({run.unreplayable[item.id]}), which a replay cannot redo"
                )
            actions = [*(self._held or {}).get(item.id, []), *run.item_flows.get(item.id, [])]
            if not actions:
                raise CacheError(f"item {item.id} was done without an element action to replay")
            items.append(CachedItem(text=item.text, find_page=item.find_page, actions=actions))
        if stale is not None:
            return stale.entry.with_items(items, reason=stale.reason)
        return CacheEntry.create(key, items=items)
