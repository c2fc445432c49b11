"""Async model clients: the contract (``base``), providers, fakes and the factory.

Hand-written source of ``stagehand_py._sync.llm``. Nothing is imported here on purpose: the
provider SDKs are slow to import, so each module is imported where it is used.
"""
