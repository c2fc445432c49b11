"""pytest plugin for stagehand_py (registered through the ``pytest11`` entry point)."""
