"""The accessibility-tree view: Playwright's aria snapshot read into the same Snapshot model
the DOM serializer produces, with a ranked locator ladder per element (pure Python).

The browser-facing half is ``stagehand_py._async.aria.snapshot`` (and its sync twin).
:func:`public_form` shows a stored selector as the readable Playwright call it stands for.
"""

from ._ladder import public_form

__all__ = ["public_form"]
