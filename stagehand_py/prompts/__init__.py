"""Prompt builders and tool schemas: pure functions, no I/O."""
