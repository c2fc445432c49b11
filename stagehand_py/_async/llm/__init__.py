"""Async LLM clients (hand-written source of the sync twins)."""
