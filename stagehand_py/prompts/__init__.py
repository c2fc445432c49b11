"""Prompt builders and tool schemas: pure functions, no I/O.

The schemas a fake model answers with (``VerifyAnswer``, ``ObserveAnswer``, the ``doAction``
tool) are in :mod:`.act` and :mod:`.observe`; :mod:`stagehand_py.testing` builds them for you.
"""

__all__: list[str] = []
