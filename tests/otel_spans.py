"""One in-memory OpenTelemetry exporter per test process, installed as the global provider on
first use (OpenTelemetry lets a process set its provider only once)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

_EXPORTER: InMemorySpanExporter | None = None


def span_exporter() -> InMemorySpanExporter:
    """The process's exporter, emptied."""
    global _EXPORTER
    if _EXPORTER is None:
        _EXPORTER = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(_EXPORTER))
        trace.set_tracer_provider(provider)
    _EXPORTER.clear()
    return _EXPORTER


def children(spans: Iterable[ReadableSpan], parent: ReadableSpan) -> list[ReadableSpan]:
    """The spans whose parent is ``parent``, in the order they started."""
    found = [
        s for s in spans if s.parent is not None and s.parent.span_id == parent.context.span_id
    ]
    return sorted(found, key=lambda s: s.start_time or 0)


def every_text(spans: Iterable[ReadableSpan]) -> str:
    """Names, attributes, events and statuses of ``spans`` as one string, for leak scans."""
    parts: list[Any] = []
    for span in spans:
        parts += [span.name, span.status.description, *dict(span.attributes or {}).values()]
        for event in span.events:
            parts += [event.name, *dict(event.attributes or {}).values()]
    return "\n".join(str(p) for p in parts)
