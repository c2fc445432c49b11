"""Hand-written async implementation. ``stagehand_py/_sync`` is generated from this package."""
