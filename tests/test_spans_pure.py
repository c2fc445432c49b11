"""Spans without a collector: page origins, redaction, and nothing imported without the API."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from stagehand_py._spans import Span, page_origin
from tests.otel_spans import every_text, span_exporter


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("https://shop.example/cart?email=a%40b.test#top", "https://shop.example"),
        ("http://user:pw@127.0.0.1:8443/login", "http://127.0.0.1:8443"),
        ("http://[::1]:9000/x", "http://[::1]:9000"),
        ("about:blank", ""),
        ("not a url", ""),
    ],
)
def test_a_page_is_named_by_its_origin_only(url: str, origin: str) -> None:
    assert page_origin(url) == origin


@pytest.mark.parametrize("secret", ["Hunter2-Sup3r", "ada@analytical.test"])
def test_every_string_attribute_status_and_event_is_redacted(secret: str) -> None:
    exporter = span_exporter()

    def redact(text: str) -> str:
        return text.replace(secret, "<|SECRET|>")

    with Span("stagehand.act", redact, {"stagehand.step": f"act: type {secret}"}) as span:
        span.set({"stagehand.cache": f"miss for {secret}", "stagehand.llm_calls": 2})
        span.fail(RuntimeError(f"could not type {secret}\nsecond line {secret}"))
    [finished] = exporter.get_finished_spans()
    text = every_text([finished])
    assert secret not in text and "act: type <|SECRET|>" in text
    assert finished.status.description == "could not type <|SECRET|>"
    assert dict(finished.attributes or {})["stagehand.llm_calls"] == 2


def test_an_escaping_error_fails_the_span_once() -> None:
    exporter = span_exporter()
    with pytest.raises(KeyError), Span("stagehand.extract", str):
        raise KeyError("missing")
    [finished] = exporter.get_finished_spans()
    assert [e.name for e in finished.events] == ["exception"]
    assert dict(finished.attributes or {})["error.type"] == "KeyError"


def test_without_opentelemetry_nothing_is_imported_or_emitted() -> None:
    script = textwrap.dedent(
        """
        import sys
        sys.modules["opentelemetry"] = None  # as if the package were not installed
        import stagehand_py
        from stagehand_py._spans import Span
        with Span("stagehand.act", str, {"stagehand.view": "dom"}) as span:
            span.set({"stagehand.cache": "hit"})
            span.fail(RuntimeError("boom"))
            assert not span.recording
        loaded = [name for name in sys.modules if name.startswith("opentelemetry.")]
        assert not loaded, loaded
        print("ok")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.stdout.strip() == "ok", done.stderr
