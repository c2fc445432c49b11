"""Every example runs, offline, as a user would start it with no model of their own
(``python offline/run.py <example>``: the stand-in model answers as a local OpenAI-compatible
server), so none of them can rot; and what users read of them copies and pastes as it is."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from tests.example_runs import (
    EXAMPLES,
    OFFLINE,
    checkout_suite_twice,
    model_calls,
    run_offline,
)

pytestmark = pytest.mark.slow  # starts processes or runs long: left out of the inner loop

# What users read and copy: every example but the stand-in's own directory.
USER_FACING = sorted(p for p in EXAMPLES.rglob("*.py") if OFFLINE not in p.parents)


def test_fill_form() -> None:
    out = run_offline("fill_form.py")
    assert "Thanks Grace! Cycling news goes to grace@example.org." in out
    assert "fill(<|EMAIL|>)" in out
    assert "grace@example.org" not in out.split("Thanks")[0]  # actions show placeholders


def test_scrape_list() -> None:
    out = run_offline("scrape_list.py")
    assert "8 products" in out
    for name in ("Walnut desk lamp", "Wool throw", "Ceramic vase"):
        assert name in out


def test_the_checkout_suite_replays_act_observe_extract_and_check_with_no_model_call(
    tmp_path: Path,
) -> None:
    # Each run serves the shop on a new random port: a URL-keyed cache would never hit.
    first, second = checkout_suite_twice(tmp_path / "cache")
    assert "3 passed" in first
    # The extract names each value's element, so it compiles into reads: a sixth entry.
    assert "cache: 0 hit(s), 6 miss(es), 0 healed, 6 write(s)" in first
    assert "3 passed" in second
    assert "0 model call(s), 0 tokens; cache: 6 hit(s), 0 miss(es), 0 healed, 0 write(s)" in second
    assert model_calls(first) > 0 and model_calls(second) == 0  # what benchmarks/replay.py reads
    assert "stand-in model: 0 request(s)" in second
    entries = [json.loads(p.read_text("utf-8")) for p in (tmp_path / "cache").glob("*.json")]
    kinds = ["act", "act", "check", "check", "extract", "observe"]
    assert sorted(e["kind"] for e in entries) == kinds
    # The two check() calls replayed as compiled assertions.
    assert all(e["assertions"] for e in entries if e["kind"] == "check")


def test_scrape_many_concurrently_over_one_browser_and_one_cache() -> None:
    out = run_offline("scrape_many.py")
    for line in ("Walnut desk lamp     49.00 EUR  1.8 kg  walnut and brass",
                 "Rope basket          24.50 EUR  0.6 kg  cotton rope"):  # fmt: skip
        assert line in out
    # One act went to the model (the act and its verify); five replayed from the cache. The
    # stand-in reads extract answers from page text only, so no extract is compiled: six misses.
    assert "6 products; act model calls: 2; cache: 5 hit(s), 7 miss(es)" in out


@pytest.mark.parametrize("example", USER_FACING, ids=[p.name for p in USER_FACING])
def test_an_example_imports_only_public_modules(example: Path) -> None:
    tree = ast.parse(example.read_text("utf-8"))
    imported = [
        name
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for name in (
            [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
        )
    ]
    private = [
        name
        for name in imported
        if name != "__future__" and any(p.startswith("_") for p in name.split("."))
    ]
    assert not private, f"{example.name} imports private modules: {private}"
    assert all(not name.startswith(("stand_in", "run")) for name in imported)
    assert "llm=" not in example.read_text("utf-8")  # the model comes from the configuration


def test_the_examples_name_one_base_url_variable() -> None:
    texts = [p.read_text("utf-8") for p in EXAMPLES.rglob("*") if p.suffix in (".py", ".md")]
    named = {m for text in texts for m in re.findall(r"\b[A-Z_]*BASE_URL\b", text)}
    assert named == {"STAGEHAND_PY_BASE_URL"}
